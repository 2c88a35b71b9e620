"""Agent causes: one trajectory per cause, scored by the real scorer and diagnosed, in
boundary order before the retrieval causes, routed to the agent's owners."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from codegold.diagnose import Owners, diagnose_run, load_owners
from goldkit import attempt, case, chunk, run_eval

TARGET = {"file": "src/auth/session.py", "symbol": "createSession", "lines": [10, 20]}


def entry(chunk_id: str, file: str, first: int, last: int, step: int, kind: str,
          **extra: Any) -> dict[str, Any]:
    tool = "grep" if kind == "search_hit" else "read_file"
    return chunk(chunk_id, file, start_line=first, end_line=last, step=step, kind=kind,
                 tool=tool, **extra)


EDIT_GROUPS = [{"id": "accepted", "edit": True, "any_of": [TARGET]}]


def hit(chunk_id: str, step: int) -> dict[str, Any]:
    return entry(chunk_id, TARGET["file"], 10, 20, step, "read", symbol="createSession")


SCENARIOS: dict[str, tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = {
    "never_searched": ({}, [entry("a", "src/other.py", 1, 30, 0, "read")], {}),
    "found_not_read": ({}, [entry("s", TARGET["file"], 12, 12, 0, "search_hit"),
                            entry("a", "src/other.py", 1, 30, 1, "read")], {}),
    "read_past_budget": ({"budget": {"lines": 40}},
                         [entry("a", "src/other.py", 1, 40, 0, "read"), hit("h", 1)], {}),
    "forbidden_read_first": ({"forbidden": ["src/legacy/"]},
                             [entry("l", "src/legacy/session.py", 1, 10, 0, "read"), hit("h", 1)],
                             {}),
    "evidence_dropped": ({}, [hit("h", 0)],
                         {"final": "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n"
                                   "+++ b/src/app.py\n"}),
}


def _diagnose(tmp_path: Path, name: str, owners: Owners | None = None) -> tuple[str, str, list[str]]:
    fields, ranked, extra = SCENARIOS[name]
    run = run_eval(tmp_path, [case(name, groups=EDIT_GROUPS, **fields)],
                   [attempt("t1", name, ranked, **extra)])
    summary, _ = diagnose_run(run, owners=owners)
    by_id = {d.case_id: d for d in summary.diagnoses + summary.passing}
    d = by_id[name]
    return d.cause, d.owner, d.evidence


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_agent_cause_from_its_trajectory(tmp_path: Path, name: str) -> None:
    cause, owner, evidence = _diagnose(tmp_path, name)
    assert cause == name
    assert owner == "agent"
    assert evidence


def test_evidence_lines_name_steps_and_tools(tmp_path: Path) -> None:
    _, _, evidence = _diagnose(tmp_path, "found_not_read")
    assert any("step 0" in e and "grep" in e for e in evidence)
    _, _, evidence = _diagnose(tmp_path, "read_past_budget")
    assert any("budget of 40 lines" in e for e in evidence)


def test_a_passing_agent_case_that_dropped_evidence_is_listed_apart(tmp_path: Path) -> None:
    run = run_eval(tmp_path, [case("c", groups=EDIT_GROUPS)],
                   [attempt("t1", "c", [hit("h", 0)], final="I changed createSession.")])
    summary, _ = diagnose_run(run)
    assert summary.diagnoses == summary.passing == []  # the answer names the symbol
    _, ranked, extra = SCENARIOS["evidence_dropped"]
    run2 = run_eval(tmp_path, [case("c", groups=EDIT_GROUPS)],
                    [attempt("t1", "c", ranked, **extra)])
    assert run2.cases[0].status == "pass"
    summary, _ = diagnose_run(run2)
    assert summary.diagnoses == [] and summary.by_cause == {}  # a pass is no failure
    assert [(d.case_id, d.status, d.cause) for d in summary.passing] == [
        ("c", "pass", "evidence_dropped")]


CALLEE = {"file": "src/auth/tokens.py", "symbol": "sign", "lines": [1, 8]}
FIX = ("diff --git a/src/auth/session.py b/src/auth/session.py\n--- a/src/auth/session.py\n"
       "+++ b/src/auth/session.py\n@@ -12,1 +12,1 @@\n-    return None\n+    return token\n")
COMMENT_ONLY = FIX.replace("-    return None\n+    return token\n",
                           " x = 1\n+    # TODO: return the token here\n").replace(
    "@@ -12,1 +12,1 @@", "@@ -12,1 +12,2 @@")


def _fix_case(tmp_path: Path, final: str) -> Any:
    groups = [{"id": "session", "edit": True, "any_of": [TARGET]},
              {"id": "callee", "any_of": [CALLEE]}]  # read-only: the fix only calls it
    ranked = [hit("h", 0), entry("t", CALLEE["file"], 1, 8, 1, "read", symbol="sign")]
    return run_eval(tmp_path, [case("fix", groups=groups), case("other", [{"file": "x.py"}])],
                    [attempt("t1", "fix", ranked, final=final),
                     attempt("t2", "other", [entry("o", "y.py", 1, 3, 0, "read")])])


def test_the_upstream_fix_drops_no_evidence_a_comment_only_patch_drops_all(
        tmp_path: Path) -> None:
    from codegold.diagnose.bundle import render_summary_markdown, render_summary_text

    run = _fix_case(tmp_path, FIX)
    figures = run.by_id()["fix"].line_figures
    assert figures is not None and figures.evidence_drop == 0.0  # the callee is read-only
    summary, _ = diagnose_run(run)
    assert [d.case_id for d in summary.diagnoses] == ["other"] and summary.passing == []
    run = _fix_case(tmp_path, COMMENT_ONLY)
    figures = run.by_id()["fix"].line_figures
    assert figures is not None and figures.evidence_drop == 1.0
    assert run.by_id()["fix"].status == "pass"
    summary, _ = diagnose_run(run)
    assert [d.case_id for d in summary.diagnoses] == ["other"]  # eval's one failure
    assert [(d.case_id, d.cause) for d in summary.passing] == [("fix", "evidence_dropped")]
    for text in (render_summary_text(summary), render_summary_markdown(summary)):
        assert "1 case(s) did not pass" in text
        assert "findings on 1 passing case(s)" in text


def test_agent_causes_apply_only_to_agent_attempts(tmp_path: Path) -> None:
    plain = [chunk("a", "src/other.py", start_line=1, end_line=30)]
    run = run_eval(tmp_path, [case("c", [TARGET])], [attempt("t1", "c", plain)])
    summary, _ = diagnose_run(run)
    assert summary.diagnoses[0].cause == "retrieval_miss"


def test_forbidden_after_the_evidence_stays_forbidden_source(tmp_path: Path) -> None:
    ranked = [hit("h", 0), entry("l", "src/legacy/session.py", 1, 10, 1, "read")]
    run = run_eval(tmp_path, [case("c", [TARGET], forbidden=["src/legacy/"])],
                   [attempt("t1", "c", ranked)])
    summary, _ = diagnose_run(run)
    assert summary.diagnoses[0].cause == "forbidden_source"


def test_never_searched_comes_before_a_forbidden_read(tmp_path: Path) -> None:
    ranked = [entry("l", "src/legacy/session.py", 1, 10, 0, "read")]
    run = run_eval(tmp_path, [case("c", [TARGET], forbidden=["src/legacy/"])],
                   [attempt("t1", "c", ranked)])
    summary, _ = diagnose_run(run)
    assert summary.diagnoses[0].cause == "never_searched"


def test_the_owners_file_routes_agent_cases(tmp_path: Path) -> None:
    path = tmp_path / "owners.yaml"
    path.write_text("format: 1\ndefault: search\nagent: {default: agent-team, "
                    "found_not_read: agent-tools}\n", encoding="utf-8")
    owners = load_owners(str(path))
    assert _diagnose(tmp_path, "never_searched", owners)[1] == "agent-team"
    assert _diagnose(tmp_path, "found_not_read", owners)[1] == "agent-tools"
    assert owners.owner_of("stale_label", agent=True) == "search"  # dataset keeps its route
    assert owners.owner_of("retrieval_miss", agent=True) == "agent-team"
    assert owners.owner_of("retrieval_miss") == "search"


def test_the_bundle_says_how_the_budget_was_spent(tmp_path: Path) -> None:
    from codegold.diagnose import write_diagnosis_dir

    fields, ranked, extra = SCENARIOS["read_past_budget"]
    run = run_eval(tmp_path, [case("c", [TARGET], **fields)], [attempt("t1", "c", ranked, **extra)])
    summary, diagnosed = diagnose_run(run)
    write_diagnosis_dir(summary, diagnosed, tmp_path / "diag")
    text = (tmp_path / "diag" / str(summary.diagnoses[0].bundle_markdown)).read_text()
    assert "budget lines=40, 40 used" in text
    plain = run_eval(tmp_path, [case("p", [TARGET])],
                     [attempt("t2", "p", SCENARIOS["never_searched"][1])])
    summary, diagnosed = diagnose_run(plain)
    assert b'"budget"' not in msgspec.json.encode(diagnosed[0].bundle)


def test_never_searched_needs_the_whole_trajectory(tmp_path: Path) -> None:
    fields, ranked, extra = SCENARIOS["never_searched"]
    run = run_eval(tmp_path, [case("c", [TARGET], **fields)], [attempt("t1", "c", ranked, **extra)])
    summary, _ = diagnose_run(run, attempts_path=str(tmp_path / "gone.jsonl"))
    d = summary.diagnoses[0]
    assert d.cause != "never_searched"
    assert any(line.startswith("never_searched: needs the whole trajectory")
               for line in d.checks_not_run)
