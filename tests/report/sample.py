"""A small, fixed report input that exercises every part of the renderers."""

from __future__ import annotations

from codegold.compare import compare_runs
from codegold.model import Check, RunResult, Verdict
from codegold.model.diagnoses import Diagnosis
from codegold.report import ReportInput
from runfactory import chunk, make_case, make_result, make_run

XSS_QUERY = 'Why does <script>document.body.setAttribute("data-pwned","1")</script> appear?'


def sample_runs() -> tuple[RunResult, RunResult]:
    auth = {"area": "auth"}
    billing = {"area": "billing"}
    c_pass = make_case("session-expiry", tags=auth)
    c_past = make_case("refresh-below-cutoff", tags=auth, file="src/auth/refresh.py",
                       symbol="validateRefreshToken")
    c_forb = make_case("legacy-leak", tags=billing, file="src/billing/invoice.py", symbol="total")
    c_xss = make_case("xss</script><b>case", query=XSS_QUERY, tags=billing)
    c_inv = make_case("stale-index", tags=billing, query_class="exact_identifier")
    c_miss = make_case("no-attempt", tags=auth, query_class="exact_identifier")
    new = [
        make_result(c_pass, rank=2),
        make_result(c_past, rank=None, any_depth=7),
        make_result(c_forb, rank=1, forbidden_ids=["legacy-1"], status="fail"),
        make_result(c_xss, rank=None, ranked=[
            chunk("x1", "src/<img src=x onerror=alert(1)>.py", symbol="</script>",
                  excerpt="</script><script>alert(1)</script>")]),
        make_result(c_inv, rank=None, status="invalid",
                    invalid_reason="index built from revision bbbb, case pinned to aaaa"),
        make_result(c_miss, rank=None, status="missing", ranked=[]),
    ]
    base = [
        make_result(c_pass, rank=1), make_result(c_past, rank=2),
        make_result(c_forb, rank=1), make_result(c_xss, rank=None),
        make_result(c_inv, rank=1), make_result(c_miss, rank=3),
    ]
    return make_run(base), make_run(new)


def sample_report() -> ReportInput:
    base, new = sample_runs()
    comparison = compare_runs(base, new, base_name="base.json", new_name="new.json")
    diagnoses = {
        "refresh-below-cutoff": Diagnosis(
            case_id="refresh-below-cutoff", status="fail", cause="below_cutoff",
            owner="retrieval-team", summary="the definition is ranked 7, two past the cutoff of 5",
            evidence=["chunk refresh-below-cutoff-hit at rank 7"], checks_not_run=[],
            bundle_markdown="bundles/refresh-below-cutoff.md"),
        "legacy-leak": Diagnosis(
            case_id="legacy-leak", status="fail", cause="forbidden_source",
            owner="retrieval-team", summary="src/legacy/old.py is inside the cutoff",
            evidence=["legacy-1 at rank 1"], checks_not_run=[]),
        "xss</script><b>case": Diagnosis(
            case_id="xss</script><b>case", status="fail", cause="retrieval_miss", owner="search <team>",
            summary="<b>not bold</b>", evidence=["<script>alert(2)</script>"],
            checks_not_run=["reranker_demotion: attempts carry no candidates"]),
    }
    bundles = {"refresh-below-cutoff": "# Evidence bundle\n\nraw query: ..."}
    gate = Verdict(passed=False, checks=[
        Check(rule="hit_rate >= 0.9", passed=False, figure="0.400", threshold=">= 0.9",
              cases=["refresh-below-cutoff"]),
        Check(rule="zero tolerance: invalid_cases", passed=False, figure="1 case(s)",
              threshold="0", cases=["stale-index"]),
    ])
    return ReportInput(results=new, results_name="new.json", comparison=comparison,
                       diagnoses=diagnoses, bundles=bundles, gate=gate, gate_policy="policy.yaml")
