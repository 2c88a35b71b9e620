"""Running codegold as a hostile user would: a child process with bounded time and
memory, and the assertions every hostile case shares (exit code, one clear line, no
traceback, sentinel files intact)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

MEMORY_LIMIT = 3 * 1024**3  # bytes of address space for the child
CODE = "from codegold.cli.main import main; main()"


def _limit_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_cli(*args: str | Path, cwd: str | Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 60, memory: int = MEMORY_LIMIT,
            stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``codegold ARGS`` in a child process with an address-space limit and a timeout.

    A hang past ``timeout`` raises ``subprocess.TimeoutExpired`` (the test fails), and a
    memory blow-up past ``memory`` ends the child with a MemoryError traceback (the test
    fails on the traceback check).
    """
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", CODE, *map(str, args)], cwd=cwd, env=full_env,
        input=stdin.decode("utf-8", "surrogateescape") if stdin is not None else None,
        capture_output=True, text=True, timeout=timeout, check=False,
        preexec_fn=lambda: _limit_memory(memory),
    )


def assert_clean_error(proc: subprocess.CompletedProcess[str], *, code: int = 2,
                       contains: str | Sequence[str] = ()) -> str:
    """The child failed the way codegold promises: ``code``, no traceback, one ``error:`` line.

    Returns the error line. ``contains`` are substrings (case-insensitive) the line must hold.
    """
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output, output[-3000:]
    assert proc.returncode == code, (proc.returncode, output[-3000:])
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr[-3000:]
    line = errors[0]
    for text in [contains] if isinstance(contains, str) else contains:
        assert text.lower() in line.lower(), (text, line)
    return line


def assert_no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output, output[-3000:]


def plant_sentinels(folder: Path, names: Sequence[str] = ("keep-me.txt",)) -> dict[Path, bytes]:
    """Files that must survive whatever codegold is asked to do next to them."""
    folder.mkdir(parents=True, exist_ok=True)
    planted = {}
    for name in names:
        path = folder / name
        path.write_bytes(b"user data: " + name.encode())
        planted[path] = path.read_bytes()
    return planted


def assert_sentinels(planted: dict[Path, bytes]) -> None:
    for path, content in planted.items():
        assert path.exists(), f"{path} was deleted"
        assert path.read_bytes() == content, f"{path} was changed"


def input_of(data: bytes) -> Callable[[Path], Path]:
    """A maker of an input file holding ``data`` (``folder/input``), for tables of hostile inputs."""
    def make(folder: Path) -> Path:
        path = folder / "input"
        path.write_bytes(data)
        return path
    return make


def fifo_input(folder: Path) -> Path:
    """A FIFO nobody writes to: a reader that blocks on it hangs."""
    path = folder / "fifo"
    os.mkfifo(path)
    return path


def control_named(suffix: str = "") -> Callable[[Path], Path]:
    """A maker of an empty file whose name holds a newline and a terminal escape."""
    def make(folder: Path) -> Path:
        path = folder / f"na\nme\x1b[31m{suffix}"
        path.write_bytes(b"")
        return path
    return make


# The input files every file-reading command must refuse cleanly; suites add their own.
HOSTILE_FILES: dict[str, Callable[[Path], Path]] = {
    "empty": input_of(b""),
    "garbage": input_of(bytes(range(256)) * 4),
    "nul-bytes": input_of(b"\0" * 1000),
    "bad-json": input_of(b'{"a": [1, 2,\n'),
    "deep-json": input_of(b"[" * 100_000 + b"]" * 100_000),
    "a-folder": lambda folder: folder,
    "missing": lambda folder: folder / "does-not-exist",
    "fifo": fifo_input,
    "dev-zero": lambda folder: Path("/dev/zero"),
}


# Two cases for a retriever run: the cases file the MCP and command hostile tests share.
RUN_CASES = """format: 1
defaults: {repository: acme/shop, revision: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, cutoff: 3}
cases:
  - id: one
    query: login flow
    accepted: [{file: src/login.py}]
  - id: two
    query: billing totals
    accepted: [{file: src/billing.py}]
"""


def import_swe_steps(tmp_path: Path, steps: Sequence[tuple[str, str]], cases: Path,
                     timeout: float = 60) -> tuple[str, list[dict[str, Any]]]:
    """``codegold import trajectories`` of one SWE-agent trajectory of ``steps`` (action,
    observation): everything it wrote (attempts and report) as text, and the attempts."""
    folder = tmp_path / "t"
    folder.mkdir(parents=True, exist_ok=True)
    traj = folder / "demo__repo-1.traj"
    traj.write_text(json.dumps({"trajectory": [
        {"action": a, "observation": o, "state": {"working_dir": "/testbed"}}
        for a, o in steps]}), encoding="utf-8")
    out, report = tmp_path / "a.jsonl", tmp_path / "report.json"
    proc = run_cli("import", "trajectories", traj, "--format", "swe-agent", "-o", out,
                   "--report", report, "--cases", cases, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-2000:]
    written = out.read_text(encoding="utf-8") + report.read_text(encoding="utf-8")
    return written, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
