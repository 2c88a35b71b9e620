"""``run --repeat N``: N attempts per case with distinct ids and one repeat group, resume
completes cases that have fewer; every attempt records ``queried_at``; ``--wait-for-index``."""

from __future__ import annotations

import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_retrievers import REVISION

from codegold.adapters.python import PythonRetriever
from codegold.adapters.runner import run_cases, wait_for_indexes
from codegold.cli.main import cli
from codegold.errors import InputError
from codegold.index.catalog import IndexSet
from codegold.model import iter_attempts, load_cases

ANSWER = "fake_retrievers:answer"


def test_repeat_writes_n_attempts_per_case(cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    before = datetime.now(UTC) - timedelta(seconds=1)
    summary = run_cases(load_cases(str(cases_file)).cases, PythonRetriever(ANSWER),
                        IndexSet.empty(), out, label="x", require_index=False, repeat=3,
                        workers=2, run_id="R")
    assert (summary.written, summary.skipped) == (9, 0)
    attempts = list(iter_attempts(str(out)))
    assert sorted(a.attempt_id for a in attempts if a.case_id == "login") == [
        "R/login#1", "R/login#2", "R/login#3"]
    assert len({a.attempt_id for a in attempts}) == 9
    assert {a.repeat_group for a in attempts if a.case_id == "billing"} == {"R/billing"}
    for attempt in attempts:
        assert attempt.queried_at is not None
        queried = datetime.fromisoformat(attempt.queried_at)
        assert queried.tzinfo is not None and before <= queried <= datetime.now(UTC)


def test_single_attempts_keep_their_ids_and_no_group(cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    run_cases(load_cases(str(cases_file)).cases, PythonRetriever(ANSWER), IndexSet.empty(), out,
              label="x", require_index=False, run_id="R")
    attempts = list(iter_attempts(str(out)))
    assert sorted(a.attempt_id for a in attempts) == ["R/billing", "R/login", "R/search"]
    assert all(a.repeat_group is None and a.queried_at for a in attempts)


def test_error_attempts_record_queried_at(cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    run_cases(load_cases(str(cases_file)).cases, PythonRetriever("fake_retrievers:explode"),
              IndexSet.empty(), out, label="x", require_index=False, repeat=2)
    attempts = list(iter_attempts(str(out)))
    assert len(attempts) == 6 and all(a.error and a.queried_at for a in attempts)


def test_resume_completes_cases_with_fewer_repeats(cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    cases = load_cases(str(cases_file)).cases
    run_cases(cases[:2], PythonRetriever(ANSWER), IndexSet.empty(), out, label="x",
              require_index=False, repeat=2, run_id="R")
    # Drop the last attempt: billing now has one of its two.
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:-1]))
    summary = run_cases(cases, PythonRetriever(ANSWER), IndexSet.empty(), out, label="x",
                        require_index=False, repeat=2, resume=True)
    assert (summary.written, summary.skipped, summary.run_id) == (3, 3, "R")
    attempts = list(iter_attempts(str(out)))
    assert Counter(a.case_id for a in attempts) == {"login": 2, "billing": 2, "search": 2}
    assert len({a.attempt_id for a in attempts}) == 6
    again = run_cases(cases, PythonRetriever(ANSWER), IndexSet.empty(), out, label="x",
                      require_index=False, repeat=2, resume=True)
    assert (again.written, again.skipped) == (0, 6)


def test_repeat_below_one_is_refused(cases_file: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="'repeat' must be at least 1"):
        run_cases(load_cases(str(cases_file)).cases, PythonRetriever(ANSWER), IndexSet.empty(),
                  tmp_path / "a.jsonl", label="x", require_index=False, repeat=0)
    done = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(tmp_path / "b.jsonl"),
                                    "--retriever", f"python:{ANSWER}", "--repeat", "0"])
    assert done.exit_code == 2


def _manifest(folder: Path, revision: str) -> None:
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(
        '{"revision": "' + revision + '", "index_build_id": "x", "complete": true,'
        ' "chunker": {"name": "c", "version": "1"}}')


def test_wait_for_index_names_the_missing_revisions(cases_file: Path, tmp_path: Path) -> None:
    root = tmp_path / "idx"
    _manifest(root / "other", "b" * 40)
    started = time.monotonic()
    done = CliRunner().invoke(cli, ["run", str(cases_file), "--index", str(root), "-o",
                                    str(tmp_path / "a.jsonl"), "--wait-for-index", "0.3", "-q"])
    assert done.exit_code == 2, done.output
    assert REVISION in done.output and "b" * 40 not in done.output
    assert time.monotonic() - started < 10
    assert not (tmp_path / "a.jsonl").exists() or (tmp_path / "a.jsonl").stat().st_size == 0
    missing = CliRunner().invoke(cli, ["run", str(cases_file), "--index", str(tmp_path / "none"),
                                       "-o", str(tmp_path / "b.jsonl"), "--wait-for-index", "0.2"])
    assert missing.exit_code == 2 and REVISION in missing.output


def test_wait_for_index_returns_once_the_index_appears(tmp_path: Path) -> None:
    root = tmp_path / "idx"
    root.mkdir()
    timer = threading.Timer(0.3, _manifest, (root / "late", REVISION))
    timer.start()
    try:
        found = wait_for_indexes(root, [REVISION], 10, poll=0.05)
    finally:
        timer.join()
    assert found.for_revision(REVISION) == root / "late"


def test_eval_scores_a_repeated_run_without_warnings(cases_file: Path, tmp_path: Path) -> None:
    from codegold.evaluate import evaluate_files

    out = tmp_path / "a.jsonl"
    run_cases(load_cases(str(cases_file)).cases, PythonRetriever(ANSWER), IndexSet.empty(), out,
              label="x", require_index=False, repeat=3, run_id="R")
    result = evaluate_files(str(cases_file), str(out))
    assert result.warnings == []
    by_id = result.by_id()
    assert by_id["login"].attempt_id == "R/login#3" and len(by_id["login"].attempt_ids) == 3
    assert {c.status for c in result.cases} == {"pass"}
