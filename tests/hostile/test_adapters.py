"""Hostile retrievers and hostile artifacts through the real CLI: every one ends in
bounded time with error attempts (exit 3) or one clean error line (exit 2)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from codegold.model.results import dump_results
from gitrepo import Repo
from hostilekit import (
    assert_clean_error,
    assert_no_traceback,
    assert_sentinels,
    plant_sentinels,
    run_cli,
)
from runfactory import make_case, make_result, make_run

REVISION = "a" * 40
CASES = f"""format: 1
defaults: {{repository: acme/shop, revision: {REVISION}, cutoff: 3}}
cases:
  - id: one
    query: login flow
    accepted: [{{file: src/login.py}}]
  - id: two
    query: billing totals
    accepted: [{{file: src/billing.py}}]
"""


def _cases(tmp_path: Path) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(CASES)
    return path


def _attempts(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _run(tmp_path: Path, retriever: str, *extra: str, timeout: float = 30,
         env: dict[str, str] | None = None) -> tuple[object, list[dict[str, object]], float]:
    out = tmp_path / "attempts.jsonl"
    started = time.monotonic()
    proc = run_cli("run", _cases(tmp_path), "-o", out, "--quiet", "--retriever", retriever,
                   *extra, cwd=tmp_path, timeout=timeout, env=env)
    return proc, _attempts(out) if out.exists() else [], time.monotonic() - started


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return f"command:{sys.executable} {path}"


def _assert_error_run(proc: object, attempts: list[dict[str, object]], contains: str) -> None:
    assert hasattr(proc, "returncode")
    assert_no_traceback(proc)  # type: ignore[arg-type]
    assert proc.returncode == 3, proc.stderr[-2000:]  # type: ignore[attr-defined]
    assert [a["case_id"] for a in attempts] == ["one", "two"]
    assert all(contains in str(a.get("error")) for a in attempts), attempts
    assert contains in proc.stderr  # type: ignore[attr-defined]  # the reason is printed


def test_command_printing_forever_is_capped(tmp_path: Path) -> None:
    # `yes` answers gigabytes; the cap stops it long before memory or time runs out.
    proc, attempts, seconds = _run(tmp_path, "command:yes", "--timeout", "20",
                                   timeout=60)
    _assert_error_run(proc, attempts, "more than")
    assert seconds < 30


def test_command_spawning_a_grandchild_sleep_is_killed_whole(tmp_path: Path) -> None:
    retriever = "command:sh -c 'sleep 60 & sleep 60'"
    proc, attempts, seconds = _run(tmp_path, retriever, "--timeout", "1", timeout=30)
    _assert_error_run(proc, attempts, "timed out after 1s")
    assert seconds < 15


def test_command_leaving_a_grandchild_after_answering_does_not_hold_the_run(tmp_path: Path) -> None:
    retriever = "command:sh -c 'sleep 60 & echo []'"
    proc, attempts, seconds = _run(tmp_path, retriever, "--timeout", "20", timeout=30)
    assert_no_traceback(proc)  # type: ignore[arg-type]
    assert proc.returncode == 0, proc.stderr  # type: ignore[attr-defined]
    assert len(attempts) == 2 and not any(a.get("error") for a in attempts)
    assert seconds < 15


@pytest.mark.parametrize("body", [
    "import sys\ndef answer(request):\n    sys.exit(0)\n",
    "def answer(request):\n    raise SystemExit(4)\n",
    "def answer(request):\n    raise GeneratorExit('odd')\n",
    "def answer(request):\n    raise ValueError('bad \\ud800 text')\n",
    "class E(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\n"
    "def answer(request):\n    raise E()\n",
])
def test_python_retriever_exiting_is_an_error_attempt(tmp_path: Path, body: str) -> None:
    (tmp_path / "hostile_ret.py").write_text(body)
    env = {"PYTHONPATH": str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc, attempts, _ = _run(tmp_path, "python:hostile_ret:answer", env=env)
    _assert_error_run(proc, attempts, "raised")


def test_python_retriever_returning_lone_surrogates(tmp_path: Path) -> None:
    (tmp_path / "surrogate_ret.py").write_text(
        "def answer(request):\n"
        "    return [{'chunk_id': 'x\\ud800', 'file': 'src/\\udcff.py', 'score': 1.0}]\n")
    env = {"PYTHONPATH": str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc, attempts, _ = _run(tmp_path, "python:surrogate_ret:answer", env=env)
    _assert_error_run(proc, attempts, "not valid Unicode")


def test_allow_errors_exits_zero(tmp_path: Path) -> None:
    proc, attempts, _ = _run(tmp_path, "command:false", "--allow-errors")
    assert_no_traceback(proc)  # type: ignore[arg-type]
    assert proc.returncode == 0  # type: ignore[attr-defined]
    assert len(attempts) == 2 and all(a.get("error") for a in attempts)


@pytest.mark.parametrize(("option", "value"), [
    ("--timeout", "nan"), ("--timeout", "inf"), ("--timeout", "0"), ("--timeout", "-1"),
    ("--retries", "-1"), ("--workers", "0"),
])
def test_run_refuses_nonsense_limits(tmp_path: Path, option: str, value: str) -> None:
    planted = plant_sentinels(tmp_path)
    proc, attempts, _ = _run(tmp_path, "command:false", option, value, timeout=30)
    assert_no_traceback(proc)  # type: ignore[arg-type]
    assert proc.returncode == 2  # type: ignore[attr-defined]
    assert option in proc.stderr  # type: ignore[attr-defined]
    assert attempts == []
    assert_sentinels(planted)


def test_http_retriever_redirecting_elsewhere_is_an_error_attempt(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent.parent / "plumbing"))
    from rawserver import answer, serve

    redirect = answer("302 Found", b"", headers=("Location: http://127.0.0.2:9/steal",))
    with serve(redirect) as url:
        proc, attempts, _ = _run(tmp_path, url, "--timeout", "5")
    _assert_error_run(proc, attempts, "redirect")


@pytest.mark.parametrize("revision", ["--output=OUT/x", "-oOUT/y", "--textconv"])
def test_diagnose_repo_never_passes_an_artifact_revision_as_an_option(tmp_path: Path,
                                                                       revision: str) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"src/auth/session.py": "def createSession():\n    return 1\n"})
    out = tmp_path / "out"
    out.mkdir()
    planted = plant_sentinels(out)
    hostile = revision.replace("OUT", str(out))
    case = make_case("c1", revision=hostile)
    results = tmp_path / "results.json"
    results.write_bytes(dump_results(make_run([make_result(case, rank=None)])))
    proc = run_cli("diagnose", results, "--repo", repo.path, cwd=tmp_path, timeout=30)
    assert_clean_error(proc, code=2, contains="revision")
    assert sorted(p.name for p in out.iterdir()) == ["keep-me.txt"]
    assert_sentinels(planted)


def test_http_retriever_dripping_bytes_is_cut_at_the_timeout(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent.parent / "plumbing"))
    import socket

    from rawserver import serve

    def drip(conn: socket.socket, _request: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        for _ in range(600):  # a byte every 0.05 s: no single read ever waits long
            conn.sendall(b" ")
            time.sleep(0.05)

    with serve(drip) as url:
        proc, attempts, seconds = _run(tmp_path, url, "--timeout", "1", "--retries", "0")
    _assert_error_run(proc, attempts, "timed out after 1s")
    assert seconds < 15


def test_run_repo_refuses_an_annotated_tag_object_as_case_revision(tmp_path: Path) -> None:
    from gitrepo import git

    repo = Repo(tmp_path / "repo")
    commit = repo.commit({"src/login.py": "def login():\n    return 1\n"})
    git(repo.path, "tag", "-a", "3.0.3", "-m", "release")
    tag_object = git(repo.path, "rev-parse", "3.0.3")  # what users copy: not the commit
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES.replace(REVISION, tag_object))
    proc = run_cli("run", cases, "--repo", repo.path, "--index", tmp_path / "idx",
                   "-o", tmp_path / "a.jsonl", "--quiet", cwd=tmp_path, timeout=60)
    line = assert_clean_error(proc, code=2, contains=[tag_object, commit, "^{commit}"])
    assert "case 'one'" in line
    assert not (tmp_path / "a.jsonl").exists()


@pytest.mark.parametrize("spec", ["http://[::1", "http://host:99999/", "https://", "command:",
                                  "command:'unclosed", "python:nomodule_xyz:f", "python:os:nope"])
def test_unusable_retriever_spec_is_one_clean_error(tmp_path: Path, spec: str) -> None:
    planted = plant_sentinels(tmp_path)
    proc, attempts, _ = _run(tmp_path, spec)
    assert_clean_error(proc, code=2)  # type: ignore[arg-type]
    assert attempts == []
    assert_sentinels(planted)
