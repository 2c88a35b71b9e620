"""The runner: one attempt per case, appended and flushed; resume; workers; error attempts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_retrievers import REVISION, SCRIPT_CRASH

from codegold.adapters.python import PythonRetriever
from codegold.adapters.runner import run_cases
from codegold.cli.main import cli
from codegold.errors import InputError
from codegold.evaluate import evaluate_files
from codegold.index.catalog import IndexSet
from codegold.model import iter_attempts, load_cases


def test_run_then_eval_passes(cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "attempts.jsonl"
    summary = run_cases(load_cases(str(cases_file)).cases, PythonRetriever("fake_retrievers:answer"),
                        IndexSet.empty(), out, label="python:fake_retrievers:answer",
                        require_index=False, default_k=10)
    assert (summary.written, summary.errors, summary.skipped) == (3, 0, 0)
    attempts = list(iter_attempts(str(out)))
    assert {a.case_id for a in attempts} == {"login", "billing", "search"}
    for attempt in attempts:
        assert len(attempt.ranked) == 10  # max(cutoff 3, default 10)
        assert attempt.query is not None and attempt.query.raw
        assert attempt.timing_ms is not None and "wall" in attempt.timing_ms
        assert attempt.run_id == summary.run_id
    statuses = {c.case_id: c.status for c in evaluate_files(str(cases_file), str(out)).cases}
    assert statuses == {"login": "pass", "billing": "pass", "search": "pass"}


def test_errors_become_invalid_and_run_goes_on(cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "attempts.jsonl"
    summary = run_cases(load_cases(str(cases_file)).cases, PythonRetriever("fake_retrievers:explode"),
                        IndexSet.empty(), out, label="x", require_index=False)
    assert summary.errors == 3
    attempts = list(iter_attempts(str(out)))
    assert all(a.error and "index offline" in a.error and a.ranked == [] for a in attempts)
    statuses = {c.status for c in evaluate_files(str(cases_file), str(out)).cases}
    assert statuses == {"invalid"}


def test_missing_index_for_revision_is_an_error_attempt(cases_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "idx"
    other.mkdir()
    (other / "manifest.json").write_text(
        '{"revision": "' + "b" * 40 + '", "index_build_id": "x", "complete": true,'
        ' "chunker": {"name": "c", "version": "1"}}')
    out = tmp_path / "attempts.jsonl"
    run_cases(load_cases(str(cases_file)).cases, PythonRetriever("fake_retrievers:answer"),
              IndexSet.from_path(other), out, label="reference", require_index=True)
    attempts = list(iter_attempts(str(out)))
    assert all(a.error and f"no index for revision {REVISION}" in a.error for a in attempts)


def test_resume_skips_done_and_drops_torn_line(cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "attempts.jsonl"
    cases = load_cases(str(cases_file)).cases
    first = run_cases(cases[:1], PythonRetriever("fake_retrievers:answer"), IndexSet.empty(), out,
                      label="x", require_index=False)
    with out.open("ab") as handle:
        handle.write(b'{"attempt_id": "half')  # a run killed mid-write
    with pytest.raises(InputError, match="pass 'resume' to continue"):
        run_cases(cases, PythonRetriever("fake_retrievers:answer"), IndexSet.empty(), out,
                  label="x", require_index=False)
    second = run_cases(cases, PythonRetriever("fake_retrievers:answer"), IndexSet.empty(), out,
                       label="x", require_index=False, resume=True)
    assert (second.written, second.skipped, second.run_id) == (2, 1, first.run_id)
    ids = [a.case_id for a in iter_attempts(str(out))]
    assert sorted(ids) == ["billing", "login", "search"]


def test_workers_write_every_case_once(tmp_path: Path) -> None:
    lines = [f"  - {{id: c{i}, query: w{i} words, accepted: [{{file: src/w{i}.py}}]}}"
             for i in range(40)]
    cases_path = tmp_path / "many.yaml"
    cases_path.write_text(f"format: 1\ndefaults: {{revision: {REVISION}, cutoff: 1}}\ncases:\n"
                          + "\n".join(lines) + "\n")
    out = tmp_path / "attempts.jsonl"
    run_cases(load_cases(str(cases_path)).cases, PythonRetriever("fake_retrievers:answer"),
              IndexSet.empty(), out, label="x", require_index=False, workers=4)
    ids = [a.case_id for a in iter_attempts(str(out))]
    assert sorted(ids) == sorted(f"c{i}" for i in range(40))
    result = evaluate_files(str(cases_path), str(out))
    assert {c.status for c in result.cases} == {"pass"}


def test_cli_run_with_crashing_command_records_errors(cases_file: Path, tmp_path: Path) -> None:
    script = tmp_path / "crash.py"
    script.write_text(SCRIPT_CRASH)
    out = tmp_path / "attempts.jsonl"
    result = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(out), "--quiet",
                                      "--retriever", f"command:{sys.executable} {script}"])
    assert result.exit_code == 3, result.output  # error attempts: written, and said so
    attempts = list(iter_attempts(str(out)))
    assert len(attempts) == 3 and all("status 3" in (a.error or "") for a in attempts)


def test_cli_reference_needs_index(cases_file: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(tmp_path / "a.jsonl")])
    assert result.exit_code == 2
    assert "needs --index" in result.output
