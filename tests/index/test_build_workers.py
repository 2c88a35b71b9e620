"""The build's chunking workers never outlive the build, whatever happens to it."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from codegold.errors import CodeIndexError
from codegold.execute.processes import ProcessExecutor
from codegold.index import build_index
from gitrepo import Repo

MakeRepo = Callable[[str], Repo]

# Each worker records its pid, then hangs in the middle of a file.
_HANGING_BUILD = """
import os, sys, time
import codegold.index.build as build
import codegold.index.build.chunking as chunking
def hang(path, data, **kwargs):
    open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
    time.sleep(120)
chunking.chunk_file = hang
build.build_index(sys.argv[2], "HEAD", sys.argv[3], jobs=2)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has exited; only its parent entry is left


def _small_repo(make_repo: MakeRepo) -> Repo:
    repo = make_repo("proj")
    repo.commit({f"pkg/mod_{i}.py": f"def f_{i}():\n    return {i}\n" for i in range(8)})
    return repo


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_workers_exit_when_the_build_process_is_killed(make_repo: MakeRepo,
                                                      tmp_path: Path) -> None:
    repo = _small_repo(make_repo)
    pids = tmp_path / "pids"
    pids.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", _HANGING_BUILD, str(pids), str(repo.path),
                             str(tmp_path / "index")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(list(pids.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = [int(p.name) for p in pids.iterdir()]
        assert len(workers) == 2, proc.stderr.read() if proc.poll() is not None else workers
    finally:
        proc.kill()
    # The workers held the build's stdout and stderr too: reading them to the end
    # returns only once every worker is gone.
    started = time.monotonic()
    proc.communicate(timeout=20)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)
    assert time.monotonic() - started < 20


def test_an_error_in_a_worker_reaches_the_caller_and_stops_the_pool(
        make_repo: MakeRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import codegold.index.build.chunking as chunking_module

    repo = _small_repo(make_repo)
    monkeypatch.setattr(chunking_module, "chunk_file", _refuse)
    with pytest.raises(RuntimeError, match="refused in worker"):
        build_index(repo.path, "HEAD", tmp_path / "index", jobs=2)
    assert [p.name for p in tmp_path.iterdir()] == ["proj"]  # no index, no temporary


def _refuse(path: str, data: bytes, **kwargs: str) -> object:
    raise RuntimeError(f"refused in worker {os.getpid()}")


def test_left_to_itself_a_build_forks_only_a_single_threaded_process(
        make_repo: MakeRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    import codegold.index.build.batching as build_module

    repo = make_repo("many")
    repo.commit({f"pkg/mod_{i}.py": f"def f_{i}():\n    return {i}\n" for i in range(70)})
    pools: list[int] = []
    original = build_module.ProcessExecutor

    def recording(workers: int, **kwargs: Any) -> ProcessExecutor:
        pools.append(workers)
        return original(workers, **kwargs)

    monkeypatch.setattr(build_module, "ProcessExecutor", recording)
    monkeypatch.setattr(build_module, "default_workers", lambda: 2)
    # This process alone: a thread an earlier test in the same worker left (a reader
    # waiting on a pipe, a test server) must not decide this half.
    real_count = threading.active_count
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    first = build_index(repo.path, "HEAD", tmp_path / "a")
    assert pools == [2]
    monkeypatch.setattr(threading, "active_count", real_count)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        second = build_index(repo.path, "HEAD", tmp_path / "b")
        assert pools == [2]  # another thread runs: no fork
        build_index(repo.path, "HEAD", tmp_path / "c", jobs=2)
        assert pools == [2, 2]  # unless the caller insists
    finally:
        release.set()
        other.join()
    assert first.index_build_id == second.index_build_id


class _NoFork(ProcessPoolExecutor):
    def submit(self, fn: Callable[..., object], /, *args: object,
               **kwargs: object) -> Future[object]:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")


def test_workers_that_cannot_start(make_repo: MakeRepo, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import codegold.execute.processes as pool_module
    import codegold.index.build.batching as build_module

    repo = make_repo("many")
    repo.commit({f"pkg/mod_{i}.py": f"def f_{i}():\n    return {i}\n" for i in range(70)})
    expected = build_index(repo.path, "HEAD", tmp_path / "serial", jobs=1)
    monkeypatch.setattr(pool_module, "ProcessPoolExecutor", _NoFork)
    monkeypatch.setattr(build_module, "default_workers", lambda: 2)
    # Left to the build, it chunks in its own process instead ...
    found = build_index(repo.path, "HEAD", tmp_path / "auto")
    assert (found.index_build_id, found.chunks) == (expected.index_build_id, expected.chunks)
    # ... asked for workers, it says it cannot start them and leaves no index.
    with pytest.raises(CodeIndexError, match="cannot start 2 chunking worker processes"):
        build_index(repo.path, "HEAD", tmp_path / "asked", jobs=2)
    assert not (tmp_path / "asked").exists()


def test_queries_are_compiled_once_before_the_workers_fork(
        make_repo: MakeRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent compiles the queries of the languages it will read; workers inherit
    them (a TypeScript query costs 0.2 s to compile: per worker, it was paid again)."""
    from codegold.index import grammars
    from codegold.index.store import IndexReader

    compiled: list[list[str | None]] = []
    original = grammars.compile_queries

    def recording(languages: Iterable[str | None]) -> None:
        names = list(languages)
        compiled.append(names)
        original(names)

    repo = make_repo("langs")
    repo.commit({"a.py": "def f():\n    return g()\n", "b.go": "package b\nfunc F() {}\n",
                 "c.md": "# c\n"})
    monkeypatch.setattr("codegold.index.build.driver.compile_queries", recording)
    build_index(repo.path, "main", tmp_path / "one", jobs=1)
    assert compiled == []  # no workers: compiled lazily, as files need them
    build_index(repo.path, "main", tmp_path / "two", jobs=2)
    assert len(compiled) == 1 and {"go", "python"} <= set(compiled[0])
    with IndexReader.open(tmp_path / "two") as two, IndexReader.open(tmp_path / "one") as one:
        assert [c.id for c in two.iter_chunks()] == [c.id for c in one.iter_chunks()]
