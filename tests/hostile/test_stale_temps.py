"""Temporary folders a killed ``diagnose`` or index build left beside its output are
removed by the next run (and nothing else is): a diagnosis staging folder whose process
is gone, and an index build's folder even when its recorded pid now names a live
process (pids are reused) — no other build can be running while the build lock is held."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from codegold.model.results import dump_results
from gitrepo import Repo
from hostilekit import assert_no_traceback, run_cli
from runfactory import make_case, make_result, make_run


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _leftover(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "partial.json").write_text("{}")
    return folder


def test_diagnose_removes_what_a_killed_diagnose_left(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    results.write_bytes(dump_results(make_run([make_result(make_case("c"))])))
    stale = _leftover(tmp_path / f".diagk.tmp-{_dead_pid()}-0123abcd")
    unrelated = _leftover(tmp_path / ".diagk.tmp-mine")
    proc = run_cli("diagnose", results, "-o", tmp_path / "diagk", timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert (tmp_path / "diagk" / "diagnoses.json").exists()
    assert not stale.exists()
    assert unrelated.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".diagk.")] == [
        ".diagk.tmp-mine"]


def test_an_index_build_removes_a_killed_builds_folder(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"a.py": "def a():\n    return 1\n"})
    # pid 1 is alive in every container: a reused pid must not keep the folder forever
    stale = [_leftover(tmp_path / ".idx.tmp-1-0123abcd"),
             _leftover(tmp_path / f".idx.old-{_dead_pid()}-89abcdef")]
    unrelated = _leftover(tmp_path / ".idx.tmp-notours")
    proc = run_cli("index", repo.path, "--revision", "HEAD", "-o", tmp_path / "idx", timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not any(path.exists() for path in stale)
    assert unrelated.exists()
