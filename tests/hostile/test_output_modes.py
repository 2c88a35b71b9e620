"""Outputs keep the mode of the file they replace (a shared 0644 report stays 0644), new
ones follow the umask, and an output path that is a symbolic link is refused instead of
having the file it points to replaced."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from codegold.model.results import dump_results
from hostilekit import assert_clean_error, assert_no_traceback, run_cli
from runfactory import make_case, make_result, make_run


def _results(tmp_path: Path) -> Path:
    path = tmp_path / "results.json"
    path.write_bytes(dump_results(make_run([make_result(make_case("c"))])))
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_existing_report_keeps_its_mode(tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    report.write_text("old")
    report.chmod(0o644)
    proc = run_cli("report", _results(tmp_path), "-o", report, timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert report.read_text() != "old"
    assert _mode(report) == 0o644


def test_a_new_output_follows_the_umask(tmp_path: Path) -> None:
    report = tmp_path / "new.html"
    old = os.umask(0o022)
    try:
        proc = run_cli("report", _results(tmp_path), "-o", report, timeout=60)
    finally:
        os.umask(old)
    assert_no_traceback(proc)
    assert _mode(report) == 0o644


def test_an_output_that_is_a_link_is_refused(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("user data")
    link = tmp_path / "report.html"
    link.symlink_to(precious)
    proc = run_cli("report", _results(tmp_path), "-o", link, timeout=60)
    assert_clean_error(proc, contains=["symbolic link", "report.html"])
    assert precious.read_text() == "user data" and link.is_symlink()
