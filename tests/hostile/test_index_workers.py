"""Hostile inputs to a build large enough that ``codegold index`` chunks files in worker
processes: awkward content must give the rows a one-process build gives, a killed build
must not leave workers behind, and an interrupted one must leave no index."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codegold.index import build_index
from gitrepo import Repo
from hostilekit import CODE, assert_sentinels, plant_sentinels, run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and fork")


def _hostile_files() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        f"pkg/mod_{i:03}.py": f"class C{i}:\n    def m(self):\n        return f_{i}()\n\n\n"
                              f"def f_{i}():\n    return {i}\n" for i in range(80)}
    files.update({
        "deep.py": "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n",
        "nested.py": "".join("    " * i + f"def f{i}():\n" for i in range(200))
                     + "    " * 200 + "pass\n",
        "packed.min.js": "var a=1;" * 200_000 + "\n",
        "long_string.py": "DATA = '" + "x" * 500_000 + "'\n",
        "binary.py": b"\x00\x01" * 5000,
        "latin1.py": "def caf\u00e9():\n    return '\u00e9'\n".encode("latin-1"),
        "crlf.py": b"def a():\r\n    return 1\r\n",
        "nul_after_header.py": b"def a():\n    pass\n" + b"\x00" * 9000,
        "syntax.py": "def (:\n" * 300,
        "empty.py": "",
    })
    return files


def _rows(index: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(index / "index.sqlite") as conn:
        return [*conn.execute("SELECT c.rowid, c.id, c.text, t.body FROM chunks c "
                              "JOIN tokens t ON t.rowid = c.rowid ORDER BY c.rowid"),
                *conn.execute("SELECT * FROM files ORDER BY path"),
                *conn.execute("SELECT * FROM symbols ORDER BY rowid"),
                *conn.execute("SELECT * FROM refs ORDER BY rowid")]


def test_awkward_content_in_workers_gives_the_one_process_rows(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit(_hostile_files())
    planted = plant_sentinels(tmp_path / "out")
    proc = run_cli("index", repo.path, "--revision", "HEAD", "-o", tmp_path / "out" / "idx",
                   "--quiet", timeout=240, env={"SOURCE_DATE_EPOCH": "1700000000"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    build_index(repo.path, "HEAD", tmp_path / "serial", jobs=1)
    assert _rows(tmp_path / "out" / "idx") == _rows(tmp_path / "serial")
    assert_sentinels(planted)


# Ctrl-C as a terminal delivers it: a process started in the background of a script
# inherits SIGINT ignored, and Python then installs no KeyboardInterrupt for it (a CI runner
# that launches the suite so would see the build run to its end).
_SLOW_BUILD = CODE.replace("main()", "") + """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import codegold.index.build.chunking as build
original = build.chunk_file
def slow(path, data, **kwargs):
    open(os.path.join(os.environ["PIDS"], str(os.getpid())), "w").close()
    time.sleep(0.5)
    return original(path, data, **kwargs)
build.chunk_file = slow
main()
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize(("how", "group"), [
    (signal.SIGINT, True),  # Ctrl-C in a terminal: the whole foreground group
    (signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGKILL, False)])
def test_a_stopped_build_leaves_no_index_and_no_workers(tmp_path: Path, how: signal.Signals,
                                                         group: bool) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({f"pkg/mod_{i:03}.py": f"def f_{i}():\n    return {i}\n" for i in range(70)})
    pids = tmp_path / "pids"
    pids.mkdir()
    out = tmp_path / "out"
    planted = plant_sentinels(tmp_path / "keep")
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_BUILD, "index", str(repo.path), "--revision", "HEAD",
         "-o", str(out), "--quiet"], env={**os.environ, "PIDS": str(pids)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(list(pids.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = {int(p.name) for p in pids.iterdir()}
        assert len(workers) >= 2, workers
        if group:
            os.killpg(proc.pid, how)
        else:
            os.kill(proc.pid, how)  # the build process only, as `kill PID` would
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert "Traceback" not in stderr, stderr[-3000:]
    assert proc.returncode != 0, "the build ended before the signal came"
    if how == signal.SIGINT:
        assert len([line for line in stderr.splitlines() if line.strip()]) <= 1, stderr
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)
    assert not (out / "manifest.json").exists()
    if how == signal.SIGINT:  # interrupted, the build cleans up after itself
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.tmp")]
    # Killed, it cannot: the next build removes what it left and succeeds.
    again = run_cli("index", repo.path, "--revision", "HEAD", "-o", out, "--quiet",
                    timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    assert (out / "manifest.json").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.tmp")]
    assert_sentinels(planted)
