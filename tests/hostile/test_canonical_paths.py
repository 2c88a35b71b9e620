"""A path from an attempt spelled another way (``/src/legacy/a.py``, ``src//legacy/a.py``,
``src/./legacy/a.py``, ``src/x/../legacy/a.py``) is the same repository path: it must
neither slip past ``forbidden`` nor miss the target it names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldkit import attempt, chunk, write_attempts, write_cases
from hostilekit import assert_no_traceback, run_cli

SPELLINGS = ["/src/legacy/a.py", "src//legacy/a.py", "src/./legacy/a.py",
             "src/x/../legacy/a.py", "./src/legacy/./a.py", "src\\legacy\\a.py"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_forbidden_source_under_another_spelling_fails_the_case(tmp_path: Path,
                                                                  spelling: str) -> None:
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "src/a.py"}],
                                    "forbidden": ["src/legacy/"]}])
    ranked = [chunk("ok", "src/a.py"), chunk("bad", spelling)]
    attempts = write_attempts(tmp_path, [attempt("a", "c", ranked)])
    out = tmp_path / "results.json"
    proc = run_cli("eval", cases, attempts, "-o", out, "-q", timeout=60)
    assert_no_traceback(proc)
    result = json.loads(out.read_text(encoding="utf-8"))["cases"][0]
    assert result["forbidden_chunk_ids"] == ["bad"], result
    assert result["status"] == "fail"


@pytest.mark.parametrize("spelling", ["/src/a.py", "src//a.py", "src/x/../a.py"])
def test_a_target_under_another_spelling_is_found(tmp_path: Path, spelling: str) -> None:
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "src/a.py"}]}])
    attempts = write_attempts(tmp_path, [attempt("a", "c", [chunk("ok", spelling)])])
    out = tmp_path / "results.json"
    proc = run_cli("eval", cases, attempts, "-o", out, "-q", timeout=60)
    assert_no_traceback(proc)
    assert json.loads(out.read_text(encoding="utf-8"))["cases"][0]["status"] == "pass"


def test_a_path_climbing_out_of_the_root_names_nothing(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "a.py"}]}])
    attempts = write_attempts(tmp_path, [attempt("a", "c", [chunk("out", "../a.py"),
                                                            chunk("out2", "x/../../a.py")])])
    out = tmp_path / "results.json"
    proc = run_cli("eval", cases, attempts, "-o", out, "-q", timeout=60)
    assert_no_traceback(proc)
    assert json.loads(out.read_text(encoding="utf-8"))["cases"][0]["status"] == "fail"
