"""Inputs that gave a traceback instead of one ``error:`` line: a log timestamp holding a
NUL, a whole-number log-scale tune range whose low end rounds to 0, an HTTP timeout no
timer takes, a ``python:`` retriever module that raises while imported, and ``demo
--out`` holding a link in place of one of its entries."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gitrepo import Repo
from hostilekit import assert_clean_error, assert_no_traceback, run_cli

REVISION = "a" * 40


def test_a_nul_in_a_log_timestamp_is_no_traceback(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"a.py": "def f():\n    pass\n"})
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"id": "r1", "query": "where is f", "timestamp": "2024-01-01\0x",
                               "cited": ["a.py"]}) + "\n")
    proc = run_cli("cases", "from-log", log, "--repo", repo.path, "-o", tmp_path / "d.yaml",
                   timeout=60)
    assert_clean_error(proc, contains="timestamp")


@pytest.mark.parametrize("low", [0.2, 0.49])
def test_a_log_integer_range_rounding_to_zero_is_refused(tmp_path: Path, low: float) -> None:
    space = tmp_path / "space.yaml"
    space.write_text(f"format: 1\nparams:\n  fusion.rrf_k: {{low: {low}, high: 50, int: true, "
                     "log: true}\n")
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{revision: {REVISION}, cutoff: 3}}\ncases:\n"
                     "  - {id: one, query: q, accepted: [{file: a.py}]}\n")
    (tmp_path / "idx").mkdir()
    proc = run_cli("tune", cases, "--index", tmp_path / "idx", "--space", space, "-o",
                   tmp_path / "tuned.yaml", timeout=60)
    assert_clean_error(proc, contains=["fusion.rrf_k", "low >= 1"])


@pytest.mark.parametrize("body", ["raise RuntimeError('boom at import')\n",
                                  "import sys\nsys.exit(3)\n", "1 / 0\n"])
def test_a_python_retriever_failing_at_import_is_one_clean_error(tmp_path: Path,
                                                                 body: str) -> None:
    (tmp_path / "badmod.py").write_text(body)
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{revision: {REVISION}, cutoff: 3}}\ncases:\n"
                     "  - {id: one, query: q, accepted: [{file: a.py}]}\n")
    proc = run_cli("run", cases, "-o", tmp_path / "a.jsonl", "--retriever",
                   "python:badmod:answer", cwd=tmp_path, env={"PYTHONPATH": str(tmp_path)},
                   timeout=60)
    assert_clean_error(proc, contains=["badmod", "imported"])


def test_demo_out_with_a_linked_entry_removes_the_link_only(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    out.mkdir()
    (out / ".codegold-demo").write_text("written by `codegold demo`; safe to delete\n")
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "keep.txt").write_text("user data")
    os.symlink(precious, out / "indexes")
    proc = run_cli("demo", "--out", out, timeout=300)
    assert_no_traceback(proc)
    assert "error: OSError" not in proc.stderr
    assert (precious / "keep.txt").read_text() == "user data"
    assert not (out / "indexes").is_symlink()

