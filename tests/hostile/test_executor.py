"""Hostile ``--executor`` values on ``index`` and ``run``: words that are no executor,
cluster addresses that are malformed, closed, silent or unreachable, and a machine
without the Ray extra. Each is one ``error:`` line and exit 2 within a bounded time,
nothing written, user files intact."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegold.index import build_index
from gitrepo import Repo
from hostilekit import assert_clean_error, assert_sentinels, plant_sentinels, run_cli

CASES = Path(__file__).resolve().parents[2] / "examples" / "acme-shop" / "cases.yaml"


def _repo(tmp_path: Path) -> tuple[Repo, str]:
    repo = Repo(tmp_path / "repo")
    return repo, repo.commit({"app.py": "def handler():\n    return 1\n"})


def _run_args(tmp_path: Path, executor: str) -> list[str]:
    # A real index, so that the run gets as far as starting its executor.
    repo, sha = _repo(tmp_path / "r")
    build_index(repo.path, sha, tmp_path / "idx" / sha)
    return ["run", str(CASES), "--index", str(tmp_path / "idx"), "-o",
            str(tmp_path / "out" / "a.jsonl"), "--executor", executor]


def _index_args(tmp_path: Path, executor: str) -> list[str]:
    repo, sha = _repo(tmp_path)
    return ["index", str(repo.path), "--revisions", sha, "-o", str(tmp_path / "out" / "idx"),
            "--executor", executor]


BAD_WORDS = ["", "Ray", "dask", "ray:", "ray://", "ray://host:0", "ray://host:70000",
             "ray://host:port", "ray://a b:1", "ray://h:1/x", "local\n", "ray://" + "a" * 5000,
             "ray://h:1;rm -rf /", "\x1b[31mray"]


@pytest.mark.parametrize("word", BAD_WORDS)
@pytest.mark.parametrize("command", ["run", "index"])
def test_a_word_that_names_no_executor_is_one_error(tmp_path: Path, word: str,
                                                    command: str) -> None:
    planted = plant_sentinels(tmp_path / "out", ("keep-me.txt",))
    args = _run_args(tmp_path, word) if command == "run" else _index_args(tmp_path, word)
    line = assert_clean_error(run_cli(*args, timeout=60), contains="executor")
    assert "\x1b" not in line
    assert_sentinels(planted)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["keep-me.txt"]


def test_a_single_revision_build_refuses_a_remote_executor(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path)
    proc = run_cli("index", str(repo.path), "--revision", sha, "-o", str(tmp_path / "idx"),
                   "--executor", "ray", timeout=60)
    assert_clean_error(proc, contains=["--revisions", "--cases"])
    assert not (tmp_path / "idx").exists()


def test_without_the_ray_extra_the_error_names_it(tmp_path: Path) -> None:
    # A `ray` package that cannot be imported stands in for a machine without the extra.
    fake = tmp_path / "site" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no ray here')\n")
    for args in (_run_args(tmp_path, "ray"), _index_args(tmp_path / "i", "ray")):
        proc = run_cli(*args, env={"PYTHONPATH": str(tmp_path / "site")}, timeout=60)
        assert_clean_error(proc, contains=["codegold[ray]"])
    assert not (tmp_path / "out").exists()


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never says anything."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("command", ["run", "index"])
def test_a_closed_cluster_port_is_one_error_in_seconds(tmp_path: Path, command: str) -> None:
    pytest.importorskip("ray", reason="needs codegold[ray] to reach the connection step")
    address = f"ray://127.0.0.1:{_closed_port()}"
    planted = plant_sentinels(tmp_path / "out", ("keep-me.txt",))
    args = _run_args(tmp_path, address) if command == "run" else _index_args(tmp_path, address)
    assert_clean_error(run_cli(*args, timeout=30), contains=["cannot reach", address])
    assert_sentinels(planted)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["keep-me.txt"]


def test_an_unknown_cluster_host_is_one_error(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="needs codegold[ray] to reach the connection step")
    proc = run_cli(*_run_args(tmp_path, "ray://no-such-host.invalid:10001"), timeout=60)
    assert_clean_error(proc, contains=["no-such-host.invalid"])


def test_a_port_that_never_answers_is_one_error_within_the_timeout(
        tmp_path: Path, silent_server: int) -> None:
    pytest.importorskip("ray", reason="needs codegold[ray] to reach the connection step")
    proc = run_cli(*_run_args(tmp_path, f"ray://127.0.0.1:{silent_server}"), timeout=60)
    assert_clean_error(proc, contains=["ray cluster", str(silent_server)])
    assert not (tmp_path / "out").exists()


def test_ray_address_naming_a_silent_port_is_one_error_within_the_timeout(
        tmp_path: Path, silent_server: int) -> None:
    """``--executor ray`` joins the cluster RAY_ADDRESS names: bounded like ``ray://``."""
    pytest.importorskip("ray", reason="needs codegold[ray] to reach the connection step")
    started = time.monotonic()
    proc = run_cli(*_run_args(tmp_path, "ray"), timeout=90,
                   env={"RAY_ADDRESS": f"127.0.0.1:{silent_server}"})
    assert_clean_error(proc, contains=["ray cluster", str(silent_server), "RAY_ADDRESS"])
    assert time.monotonic() - started < 60
    assert not (tmp_path / "out").exists()
