"""Planted causes on a real (small) indexed repository, one case per cause or trap.

Attempts are written by hand the way an external retriever reports them (its own line
windows, its own metadata) and scored by the real evaluator before diagnosis.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from codegold.diagnose import RepoView, diagnose_run
from codegold.diagnose.records import Diagnosis
from codegold.evaluate import evaluate_files
from codegold.index import IndexReader
from plantedrepo import Planted, build, last_line, line_of

SESSION, BIG, CALC = "src/shop/session.py", "src/shop/big.py", "src/shop/calc.py"
DEF = ["definition"]


def window(file: str, start: int, end: int, *, symbol: str | None = None,
           role: str | None = None, rev: str) -> dict[str, Any]:
    data: dict[str, Any] = {"chunk_id": f"ext:{file}#L{start}-{end}", "file": file,
                            "start_line": start, "end_line": end, "revision": rev}
    if symbol is not None:
        data["symbol"] = symbol
    if role is not None:
        data["role"] = role
    return data


def filler(n: int, rev: str, prefix: str = "f") -> list[dict[str, Any]]:
    return [{"chunk_id": f"{prefix}{i}", "file": f"src/shop/other{i}.py", "symbol": f"other{i}",
             "role": "definition", "revision": rev, "start_line": 1, "end_line": 3} for i in range(n)]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    return build(tmp_path_factory.mktemp("planted"))


def _diagnose(planted: Planted, tmp: Path, cases: list[dict[str, Any]],
              attempts: list[dict[str, Any]], *, with_index: bool = True,
              with_repo: bool = False) -> dict[str, Diagnosis]:
    (tmp / "cases.yaml").write_text(yaml.safe_dump({
        "format": 1, "defaults": {"repository": "acme/shop", "revision": planted.revision,
                                  "cutoff": 5, "forbidden": ["src/legacy/"]},
        "cases": cases}), encoding="utf-8")
    lines = []
    for a in attempts:
        a.setdefault("manifest", planted.manifest)
        lines.append(json.dumps(a))
    (tmp / "attempts.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = evaluate_files(str(tmp / "cases.yaml"), str(tmp / "attempts.jsonl"))
    repo = RepoView(planted.repo) if with_repo else None
    if with_index:
        with IndexReader.open(planted.index) as reader:
            summary, _ = diagnose_run(run, index=reader, repo=repo)
    else:
        summary, _ = diagnose_run(run, repo=repo)
    return {d.case_id: d for d in summary.diagnoses}


def _case(case_id: str, file: str, symbol: str | None = None, roles: list[str] | None = None,
          **fields: Any) -> dict[str, Any]:
    target: dict[str, Any] = {"file": file}
    if symbol is not None:
        target["symbol"] = symbol
    if roles:
        target["roles"] = roles
    return {"id": case_id, "query": fields.pop("query", f"where is {symbol or file}"),
            "accepted": [target], **fields}


def _attempt(case_id: str, ranked: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"attempt_id": f"{case_id}-a", "case_id": case_id, "ranked": ranked, **extra}


def test_each_planted_cause(planted: Planted, tmp_path: Path) -> None:
    rev = planted.revision
    start, end = line_of(BIG, "def process_order"), last_line(BIG)
    middle = start + 15
    create = line_of(SESSION, "def createSession")
    cases = [
        # the name survives only in a comment: the parse has no such definition
        _case("renamed-away", SESSION, "refreshToken", DEF),
        _case("moved-file", "src/shop/core/app.py", "App._find_error_handler", DEF),
        _case("wrong-class", "src/shop/app.py", "Flask._find_error_handler", DEF),
        _case("role-contradiction", "tests/test_session.py", "test_create_session", DEF),
        _case("forbids-own-target", "src/legacy/old.py", "old_session", DEF),
        # the retriever found the target, which the case forbids: the label is at fault
        _case("forbids-found-target", "src/legacy/old.py", "old_session", DEF),
        _case("excluded", "src/shop/poetry.lock"),
        _case("minified", "src/shop/pack.js", "packItems"),
        _case("syntax-error", "src/shop/broken.py", "half_broken"),
        _case("mislabelled", f"./{SESSION}", "createSession", DEF),
        _case("split-windows", BIG, "process_order", DEF),
        _case("split-ragged", BIG, "process_order", DEF),
        _case("part-at-rank-6", BIG, "process_order", DEF),
        _case("rewrite", CALC, "total", DEF, query="Where is `total` computed, e.g. with tax?"),
        _case("prose-abbreviations", CALC, "total", DEF,
              query="How is total_with_tax done, e.g. for refunds, i.e. negative totals?"),
        _case("miss", CALC, "total", DEF),
        # a call-site label names the symbol it calls, defined elsewhere: not a label error
        _case("call-site-label", "src/shop/app.py", "_find_error_handler", ["call_site"]),
        _case("demoted", CALC, "total", DEF),
        _case("below", CALC, "total", DEF),
        _case("forbidden", CALC, "total", DEF),
    ]
    query_of = {c["id"]: c["query"] for c in cases}
    good = window(CALC, 5, 6, symbol="total", role="definition", rev=rev)
    legacy = window("src/legacy/old.py", 1, 2, symbol="old_session", role="definition", rev=rev)
    attempts = [
        _attempt(case_id, filler(5, rev))
        for case_id in ("renamed-away", "moved-file", "wrong-class", "role-contradiction",
                        "forbids-own-target", "excluded", "minified", "syntax-error")
    ] + [
        _attempt("forbids-found-target", [window("src/legacy/old.py", 1, 2, symbol="old_session",
                                                 role="definition", rev=rev), *filler(4, rev)]),
        _attempt("mislabelled", [window(SESSION, 4, 11, symbol="rotate_token", role="call_site", rev=rev),
                                 *filler(4, rev)]),
        _attempt("split-windows", [window(BIG, start, middle, rev=rev),
                                   window(BIG, middle + 1, end, rev=rev), *filler(3, rev)]),
        # windows that miss the header line and spell the path "./...": still a split
        _attempt("split-ragged", [{**window(BIG, start + 1, middle, rev=rev), "file": f"./{BIG}"},
                                  *filler(2, rev), window(BIG, middle + 1, end, rev=rev)]),
        # codegold's own index holds process_order whole; the retriever returned one
        # acceptable part at rank 6: that is a ranking fault, not a split
        _attempt("part-at-rank-6", [*filler(5, rev),
                                    window(BIG, start, middle, symbol="process_order", role="definition",
                                           rev=rev)]),
        _attempt("rewrite", filler(5, rev), query={"raw": query_of["rewrite"],
                                                   "rewritten": "where is subtotal computed e.g. tax"}),
        _attempt("prose-abbreviations", filler(5, rev),
                 query={"raw": query_of["prose-abbreviations"], "rewritten": "total_with_tax refunds negative totals"},
                 candidates=filler(20, rev, "c")),
        _attempt("miss", filler(5, rev), candidates=filler(20, rev, "c")),
        _attempt("call-site-label", filler(5, rev), candidates=filler(20, rev, "c")),
        _attempt("demoted", [*filler(6, rev), good], candidates=[good, *filler(6, rev)]),
        _attempt("below", [*filler(5, rev), good], candidates=[*filler(5, rev), good]),
        _attempt("forbidden", [legacy, good, *filler(3, rev)]),
    ]
    assert create < line_of(SESSION, "def rotate_token")
    assert sorted(a["case_id"] for a in attempts) == sorted(c["id"] for c in cases)
    found = _diagnose(planted, tmp_path, cases, attempts)
    causes = {cid: d.cause for cid, d in found.items()}
    assert causes == {
        "renamed-away": "stale_label", "moved-file": "stale_label", "wrong-class": "stale_label",
        "role-contradiction": "stale_label", "forbids-own-target": "stale_label", "forbids-found-target": "stale_label",
        "excluded": "excluded_by_policy", "minified": "retrieval_miss", "syntax-error": "not_chunked",
        "mislabelled": "metadata_mismatch", "split-windows": "split_context", "split-ragged": "split_context",
        "part-at-rank-6": "below_cutoff", "rewrite": "query_rewrite_loss",
        "prose-abbreviations": "retrieval_miss", "miss": "retrieval_miss", "call-site-label": "retrieval_miss",
        "demoted": "reranker_demotion", "below": "below_cutoff", "forbidden": "forbidden_source",
    }
    owners = {cid: d.owner for cid, d in found.items()}
    assert {owners[c] for c in ("renamed-away", "moved-file", "wrong-class", "role-contradiction",
                                "forbids-own-target", "forbids-found-target")} == {"dataset"}
    # packed code is cut into line windows that still name its definitions: the bundle's
    # function was indexed, and the retriever did not return it
    assert owners["minified"] == "retrieval" and owners["syntax-error"] == "parser-chunker"

    def text(case_id: str) -> str:
        return " ".join([found[case_id].summary, *found[case_id].evidence])

    assert "symbol table has no such definition" in text("renamed-away")
    assert "did you mean" in text("moved-file") and "src/shop/sansio/app.py" in text("moved-file")
    assert "did you mean: App._find_error_handler (src/shop/sansio/app.py:2)" in text("wrong-class")
    assert "role test" in text("role-contradiction")
    assert "forbids its own target" in text("forbids-own-target")
    assert "syntax error on" in text("syntax-error")
    assert "role=call_site" in text("mislabelled")
    assert "rank 1:" in text("split-windows") and "rank 2:" in text("split-windows")
    assert "cut by the retriever's own chunking" in text("split-windows")
    assert "rank 6" in text("part-at-rank-6")
    assert "dropped total" in found["rewrite"].summary
    assert "e.g" not in found["rewrite"].summary


def test_split_needs_two_parts_inside_the_cutoff(planted: Planted, tmp_path: Path) -> None:
    rev = planted.revision
    start, end = line_of(BIG, "def process_order"), last_line(BIG)
    middle = start + 15
    cases = [_case("gap", BIG, "process_order", DEF), _case("second-half-deep", BIG, "process_order", DEF),
             _case("index-splits-nothing-returned", BIG, "process_order", DEF)]
    attempts = [
        # the two windows leave lines out: parts of it, none whole, still a split
        _attempt("gap", [window(BIG, start, middle - 8, rev=rev), window(BIG, middle + 1, end, rev=rev),
                         *filler(3, rev)]),
        _attempt("second-half-deep", [window(BIG, start, middle, rev=rev), *filler(5, rev),
                                      window(BIG, middle + 1, end, rev=rev)]),
        _attempt("index-splits-nothing-returned", filler(5, rev)),
    ]
    causes = {cid: d.cause for cid, d in _diagnose(planted, tmp_path, cases, attempts).items()}
    assert causes == {"gap": "split_context", "second-half-deep": "retrieval_miss",
                      "index-splits-nothing-returned": "retrieval_miss"}


def test_without_an_index_the_repository_parse_decides(planted: Planted, tmp_path: Path) -> None:
    rev = planted.revision
    start, end = line_of(BIG, "def process_order"), last_line(BIG)
    cases = [_case("renamed-away", SESSION, "refreshToken", DEF),
             _case("split-windows", BIG, "process_order", DEF)]
    attempts = [_attempt("renamed-away", filler(5, rev)),
                _attempt("split-windows", [window(BIG, start, start + 15, rev=rev),
                                           window(BIG, start + 16, end, rev=rev), *filler(3, rev)])]
    found = _diagnose(planted, tmp_path, cases, attempts, with_index=False, with_repo=True)
    assert {cid: d.cause for cid, d in found.items()} == {
        "renamed-away": "stale_label", "split-windows": "split_context"}
    assert any("excluded_by_policy" in n for n in found["split-windows"].checks_not_run)


def test_body_windows_cut_off_from_the_signature_are_a_split(planted: Planted,
                                                              tmp_path: Path) -> None:
    """Two windows of a function's body, neither holding its ``def`` line or the lines
    right below it: the retriever's windows cut it apart, nothing was missed."""
    rev = planted.revision
    start, end = line_of(BIG, "def process_order"), last_line(BIG)
    cut = start + 6  # the signature and first lines went to a window not returned
    middle = (cut + end) // 2
    quarter = cut + (end - cut) // 4
    cases = [_case("headless", BIG, "process_order", DEF),
             _case("tail-only", BIG, "process_order", DEF),
             _case("two-short", BIG, "process_order", DEF),
             _case("one-window", BIG, "process_order", DEF)]
    attempts = [
        _attempt("headless", [window(BIG, cut, middle, rev=rev), *filler(2, rev),
                              window(BIG, middle + 1, end + 20, rev=rev)]),
        # only the last few lines, in two windows: parts of it all the same
        _attempt("tail-only", [window(BIG, end - 3, end - 2, rev=rev),
                               window(BIG, end - 1, end, rev=rev), *filler(3, rev)]),
        # two short body windows, far from covering most of the function
        _attempt("two-short", [window(BIG, cut, cut + 2, rev=rev), *filler(2, rev),
                               window(BIG, quarter, quarter + 2, rev=rev)]),
        # one part is no split: what else came back says nothing of the rest
        _attempt("one-window", [window(BIG, cut, cut + 2, rev=rev), *filler(4, rev)]),
    ]
    found = _diagnose(planted, tmp_path, cases, attempts)
    assert {cid: d.cause for cid, d in found.items()} == {
        "headless": "split_context", "tail-only": "split_context",
        "two-short": "split_context", "one-window": "retrieval_miss"}
    evidence = " ".join(found["headless"].evidence)
    assert "cut off from its signature" in evidence
    assert "the parts hold 6 of its" in " ".join(found["two-short"].evidence)
