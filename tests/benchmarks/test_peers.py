"""The peers benchmark's own cases (a non-Python repository) load and merge with the real
cases into one file that codegold reads back case for case."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from codegold.model import load_cases

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_express_cases_are_pinned_and_classed() -> None:
    cases = load_cases(str(BENCHMARKS / "peercases" / "express.yaml")).cases
    assert 10 <= len(cases) <= 30
    assert {c.repository for c in cases} == {"expressjs/express"}
    assert {c.query_class for c in cases} == {"exact_identifier", "descriptive", "usage",
                                              "test", "config"}
    assert all(c.rationale and c.cutoff == 5 for c in cases)


def test_case_files_merge_into_one(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("peers", BENCHMARKS / "peers.py")
        assert spec is not None and spec.loader is not None
        peers = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(peers)
    finally:
        sys.path.remove(str(BENCHMARKS))
    parts = [BENCHMARKS / "realcases" / "flask.yaml", BENCHMARKS / "peercases" / "express.yaml"]
    merged = load_cases(str(peers.merge_cases(parts, tmp_path / "cases.yaml"))).cases
    originals = [c for p in parts for c in load_cases(str(p)).cases]
    assert [(c.id, c.repository, c.revision, c.groups, c.forbidden) for c in merged] == \
        [(c.id, c.repository, c.revision, c.groups, c.forbidden) for c in originals]
