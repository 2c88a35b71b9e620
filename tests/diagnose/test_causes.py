"""One constructed scenario per cause; each must come out as exactly that cause."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeindex import FakeIndex, entry, ichunk, sdef

from codegold.diagnose import Owners, diagnose_run, load_owners, write_diagnosis_dir
from codegold.errors import SchemaError
from codegold.model import Attempt, CaseResult, Chunk, Query, RunResult, encode_attempt
from runfactory import chunk, make_case, make_result, make_run

SVC = "src/auth/session.py"
BODY = "class SessionService:\n    def createSession(self, token):\n        return validate(token)\n"


def _index(**overrides: object) -> FakeIndex:
    chunks = [ichunk("svc-1", SVC, 1, 20, symbol="SessionService.createSession", text=BODY),
              ichunk("legacy-1", "src/legacy/old.py", 1, 5, symbol="old", text="def old(): ...")]
    inventory = [entry(SVC), entry("src/legacy/old.py"),
                 entry("src/auth/secret.lock", fate="excluded", reason="policy: exclude '*.lock'", chunks=0),
                 entry("src/auth/calls.py")]
    defs = [sdef("SessionService.createSession", SVC, 2, 20, "svc-1")]
    chunks += overrides.get("chunks", [])  # type: ignore[arg-type]
    inventory += overrides.get("inventory", [])  # type: ignore[arg-type]
    defs += overrides.get("defs", [])  # type: ignore[arg-type]
    return FakeIndex(chunks, inventory, defs)


def _attempt(result: CaseResult, ranked: list[Chunk], candidates: list[Chunk] | None = None,
             rewritten: str | None = None) -> Attempt:
    return Attempt(attempt_id=result.attempt_id or "", case_id=result.case_id, ranked=ranked,
                   candidates=candidates, context_ids=[c.chunk_id for c in ranked[:3]],
                   query=Query(raw=result.case.query, rewritten=rewritten or result.case.query))


def _diagnose(tmp_path: Path, results: list[CaseResult], attempts: list[Attempt],
              index: FakeIndex | None = None) -> dict[str, tuple[str, list[str], list[str]]]:
    path = tmp_path / "attempts.jsonl"
    path.write_bytes(b"".join(encode_attempt(a) + b"\n" for a in attempts))
    summary, _ = diagnose_run(make_run(results, attempts_path=str(path)), index=index)
    return {d.case_id: (d.cause, d.evidence, d.checks_not_run) for d in summary.diagnoses}


def _filler(n: int, prefix: str = "n") -> list[Chunk]:
    return [chunk(f"{prefix}{i}", f"src/other{i}.py", symbol=f"other{i}") for i in range(n)]


def good(symbol: str = "SessionService.createSession") -> Chunk:
    return chunk("svc-1", SVC, symbol=symbol, start=1, end=20, excerpt=BODY)


def test_every_cause_from_a_constructed_scenario(tmp_path: Path) -> None:
    results, attempts = [], []

    def add(result: CaseResult, ranked: list[Chunk], candidates: list[Chunk] | None = None,
            rewritten: str | None = None) -> None:
        results.append(result)
        attempts.append(_attempt(result, ranked, candidates, rewritten))

    add(make_result(make_case("invalid"), status="invalid", invalid_reason="attempt has no index manifest"), [])
    add(make_result(make_case("stale-file", file="src/auth/gone.py", symbol=None)), _filler(5))
    add(make_result(make_case("stale-symbol", symbol="destroySession")), _filler(5))
    add(make_result(make_case("excluded", file="src/auth/secret.lock", symbol=None, roles=())), _filler(5))
    add(make_result(make_case("not-chunked", file="src/auth/calls.py", symbol="refresh")), _filler(5))
    # The spec's second null row: the definition's text came back, labelled as a call site.
    mislabelled = chunk("svc-1", SVC, symbol="validate", role="call_site", start=1, end=20, excerpt=BODY)
    add(make_result(make_case("metadata"), ranked=[mislabelled, *_filler(4)]), [mislabelled, *_filler(4)])
    # The spec's first null row: a true miss, nothing of the definition came back.
    add(make_result(make_case("true-miss")), _filler(5), candidates=_filler(30, "c"))
    # Both halves of the function came back inside the cutoff as the retriever's own
    # line windows, neither labelled with the symbol.
    halves = [chunk("w-1", "src/auth/big.py", start=10, end=45), chunk("w-2", "src/auth/big.py", start=46, end=80)]
    add(make_result(make_case("split", file="src/auth/big.py", symbol="bigFunction"),
                    ranked=[*halves, *_filler(3)]), [*halves, *_filler(3)])
    add(make_result(make_case("rewrite", query="Where is create_session defined?")), _filler(5),
        rewritten="where is the session created")
    demoted = [*_filler(7), good()]
    add(make_result(make_case("demoted"), any_depth=8), demoted, candidates=[_filler(1)[0], good(), *_filler(6, "d")])
    below = [*_filler(6), good()]
    add(make_result(make_case("below"), any_depth=7), below, candidates=[*_filler(8, "e"), good()])
    forb = [chunk("legacy-1", "src/legacy/old.py", symbol="old"), good()]
    add(make_result(make_case("forbidden"), rank=2, forbidden_ids=["legacy-1"], status="fail",
                    ranked=forb), forb)
    add(make_result(make_case("passing"), rank=1, ranked=[good()]), [good()])

    index = _index(
        chunks=[ichunk("calls-1", "src/auth/calls.py", 1, 9, symbol=None, role="call_site",
                       text="x = refresh(token)\n"),
                ichunk("big-1", "src/auth/big.py", 10, 40, symbol="bigFunction", text="def bigFunction():"),
                ichunk("big-2", "src/auth/big.py", 41, 80, symbol=None, role="definition", text="    ...")],
        inventory=[entry("src/auth/big.py")],
        defs=[sdef("bigFunction", "src/auth/big.py", 10, 80, "big-1"),
              # the parser saw refresh at lines 20-30, yet no chunk of the file reaches there
              sdef("refresh", "src/auth/calls.py", 20, 30, "calls-1")],
    )
    found = _diagnose(tmp_path, results, attempts, index)
    causes = {cid: cause for cid, (cause, _, _) in found.items()}
    assert causes == {
        "invalid": "invalid_run", "stale-file": "stale_label", "stale-symbol": "stale_label",
        "excluded": "excluded_by_policy", "not-chunked": "not_chunked", "metadata": "metadata_mismatch",
        "true-miss": "retrieval_miss", "split": "split_context", "rewrite": "query_rewrite_loss",
        "demoted": "reranker_demotion", "below": "below_cutoff", "forbidden": "forbidden_source",
    }
    assert any("role=call_site" in e for e in found["metadata"][1])
    assert any("covers SessionService.createSession" in e for e in found["metadata"][1])
    assert any("none satisfies" in e for e in found["true-miss"][1])
    assert any("create_session" in e for e in found["rewrite"][1])
    assert any("candidate rank 2" in e for e in found["demoted"][1])
    assert any("policy: exclude" in e for e in found["excluded"][1])


def test_foreign_retriever_without_index_lists_checks_not_run(tmp_path: Path) -> None:
    r = make_result(make_case("foreign"))
    found = _diagnose(tmp_path, [r], [_attempt(r, _filler(5))], index=None)
    cause, _, not_run = found["foreign"]
    assert cause == "retrieval_miss"
    text = " ".join(not_run)
    assert "stale_label" in text and "excluded_by_policy" in text
    assert "reranker_demotion: the attempt records no candidates" in text


def test_index_from_another_revision_is_not_borrowed(tmp_path: Path) -> None:
    r = make_result(make_case("moved", file="src/auth/gone.py", symbol=None))
    other = FakeIndex([], [], [], revision="c" * 40)
    cause, _, not_run = _diagnose(tmp_path, [r], [_attempt(r, _filler(5))], other)["moved"]
    assert cause == "retrieval_miss"  # without a trustworthy index the label cannot be judged
    assert any("not borrowed" in n for n in not_run)


def test_owner_routing(tmp_path: Path) -> None:
    owners_file = tmp_path / "owners.yaml"
    owners_file.write_text("format: 1\nowners: {below_cutoff: ranking-team}\ndefault: search\n")
    owners = load_owners(str(owners_file))
    assert owners.owner_of("below_cutoff") == "ranking-team"
    assert owners.owner_of("stale_label") == "search"
    assert Owners().owner_of("stale_label") == "dataset"
    assert Owners().owner_of("reranker_demotion") == "reranker"
    owners_file.write_text("format: 1\nowners: {nonsense: x}\n")
    with pytest.raises(SchemaError, match="unknown cause"):
        load_owners(str(owners_file))


def test_bundles_written_and_report_reads_them(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from codegold.cli.main import cli
    from codegold.model import dump_results

    r = make_result(make_case("below", query="find `createSession` </script>"), any_depth=7)
    ranked = [*_filler(6), good()]
    attempts = tmp_path / "attempts.jsonl"
    attempts.write_bytes(encode_attempt(_attempt(r, ranked, candidates=ranked)) + b"\n")
    run: RunResult = make_run([r], attempts_path=str(attempts))
    summary, diagnosed = diagnose_run(run, index=_index())
    out = tmp_path / "diag"
    write_diagnosis_dir(summary, diagnosed, out)
    bundle_md = (out / diagnosed[0].diagnosis.bundle_markdown).read_text()  # type: ignore[operator]
    for heading in ("## Query", "## Versions", "## Target inventory", "## Candidates before rerank",
                    "## Final ranking", "## Excerpts around the expected symbol", "## Final context ids"):
        assert heading in bundle_md
    assert "createSession(self, token)" in bundle_md
    assert "| below_cutoff | 1 |" in (out / "summary.md").read_text()

    results = tmp_path / "results.json"
    results.write_bytes(dump_results(run))
    html = tmp_path / "r.html"
    got = CliRunner().invoke(cli, ["report", str(results), "--diagnosis", str(out), "-o", str(html),
                                   "--junit", str(tmp_path / "j.xml")])
    assert got.exit_code == 0, got.output
    assert "below_cutoff" in html.read_text()
    assert 'type="below_cutoff"' in (tmp_path / "j.xml").read_text()


def test_an_excerpt_counts_lines_as_the_index_does() -> None:
    from codegold.diagnose.bundle import _excerpts
    from codegold.diagnose.checks import CaseFacts

    text = "def a():\n    x = 1\f# a form feed, no new line\n    y = x\u2028z = 2\n    return y\n"
    index = FakeIndex([ichunk("a-1", SVC, 10, 13, symbol="a", text=text)], [entry(SVC)],
                      [sdef("a", SVC, 10, 13, "a-1")])
    facts = CaseFacts(result=make_result(make_case("x", symbol="a")), attempt=None, index=index,
                      repo=None, definitions=(sdef("a", SVC, 10, 13, "a-1"),))
    [excerpt] = _excerpts(facts)
    assert (excerpt.start_line, excerpt.end_line) == (10, 13)
    assert excerpt.text.split("\n")[3] == "    return y"
