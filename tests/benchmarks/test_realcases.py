"""The hand-written real cases load through codegold's case loader, and the benchmark script
runs end to end (index, three configurations, eval, table) on a small local repository."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from codegold.model import load_cases
from gitrepo import Repo

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
CASE_FILES = sorted((BENCHMARKS / "realcases").glob("*.yaml"))
CLASSES = {"exact_identifier", "descriptive", "usage", "test", "config"}
OLD = {"flask": "flask", "pytest": "pt", "requests": "req"}
# The development repositories added to judge the retriever away from the first three.
NEW = {"attrs": "attrs", "axum": "axum", "click": "click", "gin": "gin", "hono": "hono",
       "gson": "gson", "httpx": "httpx", "koa": "koa", "urfave-cli": "cli",
       "jackson-databind": "jackson"}
# The third round: seven languages none of the others is in, written blind.
THIRD = {"rack": "rack", "guzzle": "guzzle", "restsharp": "restsharp", "spdlog": "spdlog",
         "okio": "okio", "alamofire": "alamofire", "hiredis": "hiredis"}
THIRD_CLASSES = {"exact_identifier", "descriptive", "stack_trace", "example_request", "test",
                 "config"}
LANGUAGES = {"python", "go", "javascript", "typescript", "rust", "java", "ruby", "php",
             "csharp", "cpp", "kotlin", "swift", "c"}


def test_the_case_files_are_the_old_three_and_seventeen_more_in_thirteen_languages() -> None:
    assert {p.stem for p in CASE_FILES} == set(OLD) | set(NEW) | set(THIRD)
    languages = set()
    for path in CASE_FILES:
        cases = load_cases(str(path)).cases
        low = 25 if path.stem in OLD else 12
        assert low <= len(cases) <= 30, path.name
        languages |= {c.tags["language"] for c in cases}
    assert languages == LANGUAGES


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.stem)
def test_every_case_is_pinned_classed_and_explained(path: Path) -> None:
    cases = load_cases(str(path)).cases
    assert len({c.revision for c in cases}) == 1
    assert len(cases[0].revision) == 40
    # The new files also hold stack traces (issue-length queries: the learnt ranker).
    wanted = (CLASSES if path.stem in OLD else THIRD_CLASSES if path.stem in THIRD
              else CLASSES | {"stack_trace"})
    assert {c.query_class for c in cases} == wanted
    prefix = {**OLD, **NEW, **THIRD}[path.stem]
    for case in cases:
        assert case.repository and case.cutoff == 5, case.id
        assert case.rationale, case.id
        assert case.tags["language"] in LANGUAGES, case.id
        assert case.id.split("-")[0] == prefix, case.id


def test_case_ids_are_unique_across_files() -> None:
    ids = [c.id for p in CASE_FILES for c in load_cases(str(p)).cases]
    assert len(ids) == len(set(ids))


SOURCE = '''"""Tiny shop."""


def apply_discount(price, percent):
    """Lower a price by a percentage, never below zero."""
    return max(0.0, price * (1 - percent / 100))


def shipping_cost(weight):
    """Flat rate up to one kilo, then per kilo."""
    return 5.0 if weight <= 1 else 5.0 + 2.0 * (weight - 1)
'''
TEST = '''from shop.prices import apply_discount


def test_discount_never_negative():
    assert apply_discount(10, 200) == 0.0
'''


def test_the_benchmark_runs_end_to_end_on_a_local_clone(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    repo = Repo(tmp_path / "repos" / "acme+shop")
    sha = repo.commit({"shop/prices.py": SOURCE, "tests/test_prices.py": TEST,
                       "CHANGES.md": "# Changes\n\napply_discount used to go negative.\n"})
    cases = tmp_path / "shop.yaml"
    cases.write_text(yaml.safe_dump({"format": 1, "defaults": {
        "repository": "acme/shop", "revision": sha, "cutoff": 5}, "cases": [
        {"id": "discount", "query": "apply_discount", "query_class": "exact_identifier",
         "accepted": [{"file": "shop/prices.py", "symbol": "apply_discount"}]},
        {"id": "shipping", "query": "how much does shipping cost for a heavy parcel",
         "query_class": "descriptive",
         "accepted": [{"file": "shop/prices.py", "symbol": "shipping_cost"}]},
        {"id": "discount-test", "query": "which test covers discounts", "query_class": "test",
         "accepted": [{"file": "tests/test_prices.py", "roles": ["test"]}]}]}))
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import realcases
    finally:
        sys.path.remove(str(BENCHMARKS))
    report = tmp_path / "report.json"
    assert realcases.main(["--repos-dir", str(tmp_path / "repos"), "--cache-dir",
                           str(tmp_path / "cache"), "--cases", str(cases),
                           "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "| reference | 3 |" in out and "| lexical | 3 |" in out and "| file-bm25 | 3 |" in out
    assert "| exact_identifier | 1 |" in out and "| acme/shop | 3 |" in out
    assert "| new | 3 |" in out and "worst acme/shop" in out
    figures = json.loads(report.read_text())
    assert set(figures) == {"reference", "lexical", "file-bm25"}
    assert figures["reference"]["cases"]["discount"] == "pass"
    assert figures["reference"]["summary"]["invalid"] == 0
    assert (tmp_path / "cache" / "indexes" / sha / "manifest.json").is_file()
    assert (tmp_path / "cache" / "runs" / "reference" / "shop.results.json").is_file()
    # A second run reuses the index and replaces the attempts instead of refusing them.
    assert realcases.main(["--repos-dir", str(tmp_path / "repos"), "--cache-dir",
                           str(tmp_path / "cache"), "--cases", str(cases),
                           "--configs", "reference"]) == 0
