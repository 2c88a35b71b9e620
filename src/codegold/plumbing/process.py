"""Running a child program with bounded time and bounded output.

The child leads its own session, so a timeout (or an output flood) kills the whole
process group, grandchildren included: a retriever that forks a ``sleep`` cannot keep
codegold waiting on a pipe the grandchild still holds.

A helper that leaves the group (``setsid``, Node's ``detached``, a language server's
daemon) is found another way when its child is stopped (:func:`kill_scope`): every child
carries a token of its own in its environment (:data:`SCOPE_VARIABLE`), which its
descendants inherit, and on Linux codegold is their *child subreaper*, so a helper whose
parent exits is adopted by codegold rather than by init and is still found below it.
Every process below the child, and every process below codegold holding the token, is
killed (and reaped when codegold adopted it).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024
SCOPE_VARIABLE = "CODEGOLD_CHILD_SCOPE"
_STDERR_KEEP = 64 * 1024
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Bounded:
    """What a bounded run produced. ``timed_out``/``overflowed`` say why it was stopped."""

    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    overflowed: bool = False


_SCOPES: dict[int, str] = {}  # child pid -> the token its environment carries
_SCOPE_LOCK = threading.Lock()
_SUBREAPER: list[bool] = []


def _become_subreaper() -> None:
    """On Linux, make codegold the child subreaper of everything it starts (once)."""
    if _SUBREAPER or not sys.platform.startswith("linux"):
        return
    _SUBREAPER.append(True)
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def scoped_env(env: Mapping[str, str] | None) -> tuple[dict[str, str], str]:
    """``env`` (the current environment when None) with a fresh scope token, and the
    token; record it for the child's pid with :func:`remember_scope`."""
    _become_subreaper()
    token = f"{os.getpid()}-{secrets.token_hex(8)}"
    return {**(os.environ if env is None else env), SCOPE_VARIABLE: token}, token


def remember_scope(pid: int, token: str) -> None:
    with _SCOPE_LOCK:
        _SCOPES[pid] = token


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process this user can see (from /proc)."""
    found: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                found[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    return found


def _below(root: int, parents: dict[int, int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    seen: set[int] = set()
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            todo.extend(children.get(pid, ()))
    return seen


def _holds(pid: int, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return marker in handle.read()
    except OSError:
        return False


def kill_scope(pid: int) -> None:
    """Kill what ``pid`` (a child started with :func:`scoped_env`) left running: every
    process below it, and every process below codegold carrying its token (a helper that
    started its own session and was adopted by codegold). ``pid`` itself is its owner's to
    stop and reap; a process codegold adopted is reaped here."""
    with _SCOPE_LOCK:
        token = _SCOPES.pop(pid, None)
    if token is None or not os.path.isdir("/proc"):
        return
    parents = _parents()
    me = os.getpid()
    marker = f"{SCOPE_VARIABLE}={token}\0".encode()
    # Below ``pid`` only while it is still this process's child (running, or dead but not
    # yet reaped): once reaped, its number may already be another program's.
    under = _below(pid, parents) if parents.get(pid) == me else set()
    doomed = under | {p for p in _below(me, parents) - {pid} if _holds(p, marker)}
    for each in doomed:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(each, signal.SIGKILL)
    for each in doomed:
        if parents.get(each) == me:  # adopted: nobody else will wait for it
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(each, 0)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc`` and everything in its process group (it must lead its own session)."""
    kill_scope(proc.pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def run_bounded(argv: Sequence[str], *, input: bytes | None, timeout: float,
                max_output: int = DEFAULT_MAX_OUTPUT, env: Mapping[str, str] | None = None,
                cwd: str | None = None) -> Bounded:
    """Run ``argv`` with ``input`` on stdin; stop the process group after ``timeout``
    seconds or once stdout passes ``max_output`` bytes. Raises ``OSError`` when the
    program cannot start. Only the last 64 KiB of stderr are kept."""
    scoped, token = scoped_env(env)
    proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=scoped, cwd=cwd, start_new_session=True)
    remember_scope(proc.pid, token)
    stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr
    if stdin is None or stdout is None or stderr is None:  # pragma: no cover - pipes asked for
        kill_group(proc)
        raise OSError("child started without pipes")
    out = bytearray()
    err = bytearray()
    overflow = threading.Event()

    def feed() -> None:
        with contextlib.suppress(OSError, ValueError):
            if input:
                stdin.write(input)
            stdin.close()

    def drain_out() -> None:
        with contextlib.suppress(OSError, ValueError), stdout:
            while chunk := os.read(stdout.fileno(), _CHUNK):
                out.extend(chunk)
                if len(out) > max_output:
                    overflow.set()
                    kill_group(proc)
                    return

    def drain_err() -> None:
        with contextlib.suppress(OSError, ValueError), stderr:
            while chunk := os.read(stderr.fileno(), _CHUNK):
                err.extend(chunk)
                if len(err) > 2 * _STDERR_KEEP:
                    del err[:-_STDERR_KEEP]

    threads = [threading.Thread(target=feed, daemon=True),
               threading.Thread(target=drain_out, daemon=True),
               threading.Thread(target=drain_err, daemon=True)]
    for thread in threads:
        thread.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = not overflow.is_set()
    finally:
        # The child is done (or out of time); whatever it left behind in its group goes too,
        # so no grandchild keeps the pipes open.
        kill_group(proc)
        proc.wait()
    for thread in threads:
        thread.join(timeout=5)
    # stdout and stderr are closed by their readers: closing one here while a reader still
    # waits on it (a grandchild that left the group holds the pipe) would hand its
    # descriptor number to the next pipe opened, and that reader would steal its output
    with contextlib.suppress(OSError, ValueError):
        stdin.close()
    # An overflowing answer is refused whole: not copied again just to be dropped.
    answer = b"" if overflow.is_set() else bytes(out)
    out.clear()
    return Bounded(proc.returncode, answer, bytes(err[-_STDERR_KEEP:]),
                   timed_out=timed_out, overflowed=overflow.is_set())


class ChildTimeout(Exception):
    """No answer line within the deadline (the child's group was killed)."""


class ChildOverflow(Exception):
    """An answer line longer than the cap (the child's group was killed)."""


class ChildExited(Exception):
    """The child closed its output (exited) before answering."""

    def __init__(self, returncode: int | None) -> None:
        super().__init__(returncode)
        self.returncode = returncode


class LineChild:
    """A long-running child that answers one line on stdout per line on stdin.

    It leads its own session (:func:`kill_group` stops it with everything it forked);
    stdout is read by a thread that splits lines and stops, killing the group, at a line
    longer than ``max_line`` bytes; the last 64 KiB of stderr are kept for error messages.
    Not thread-safe: one exchange at a time (callers lock).
    """

    def __init__(self, argv: Sequence[str], *, max_line: int = DEFAULT_MAX_OUTPUT,
                 env: Mapping[str, str] | None = None, cwd: str | None = None) -> None:
        import queue

        self.max_line = max_line
        scoped, token = scoped_env(env)
        self.proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=scoped, cwd=cwd,
                                     start_new_session=True)
        remember_scope(self.proc.pid, token)
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._overflow = threading.Event()
        self._err = bytearray()
        self._err_lock = threading.Lock()
        # Each reader closes its own stream when it ends: closing it from another thread
        # while a read is under way would free the descriptor number for the next pipe
        # opened, and the old reader would then steal that pipe's output.
        self._readers = (threading.Thread(target=self._read_out, daemon=True),
                         threading.Thread(target=self._read_err, daemon=True))
        for reader in self._readers:
            reader.start()

    def _read_out(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        buffer = bytearray()
        with contextlib.suppress(OSError, ValueError), stdout:
            while chunk := os.read(stdout.fileno(), _CHUNK):
                buffer.extend(chunk)
                while (cut := buffer.find(b"\n")) >= 0 and cut <= self.max_line:
                    self._lines.put(bytes(buffer[:cut]))
                    del buffer[:cut + 1]
                # A line over the cap, whole or still arriving, stops the child.
                if len(buffer) > self.max_line:
                    self._overflow.set()
                    kill_group(self.proc)
                    break
        self._lines.put(None)

    def _read_err(self) -> None:
        stderr = self.proc.stderr
        assert stderr is not None
        with contextlib.suppress(OSError, ValueError), stderr:
            while chunk := os.read(stderr.fileno(), _CHUNK):
                with self._err_lock:
                    self._err.extend(chunk)
                    if len(self._err) > 2 * _STDERR_KEEP:
                        del self._err[:-_STDERR_KEEP]

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None and self._lines.empty()

    def exchange(self, line: bytes, timeout: float) -> bytes:
        """Send ``line`` (one line, newline added) and return the answer line."""
        import queue

        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(line.rstrip(b"\n") + b"\n")
            stdin.flush()
        except (OSError, ValueError):
            pass  # a child that is gone: its end of output says so below
        try:
            answer = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise ChildTimeout from None
        if answer is None:
            if self._overflow.is_set():
                self.kill()
                raise ChildOverflow
            self._lines.put(None)  # stays ended for any later look
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=1)
            raise ChildExited(self.proc.poll())
        return answer

    def stderr_tail(self, limit: int = 400) -> str:
        with self._err_lock:
            data = bytes(self._err[-4096:])
        return data.decode("utf-8", "replace").strip()[-limit:]

    def kill(self) -> None:
        kill_group(self.proc)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        # stdout and stderr are closed by their readers at end of file (see __init__)
        for reader in self._readers:
            reader.join(timeout=1)


async def open_async_child(argv: Sequence[str], *, env: Mapping[str, str] | None,
                           cwd: str | None) -> Any:
    """An ``anyio`` process leading its own session (so :func:`kill_group`-style stops
    reach everything it forks), pipes on all three streams (the caller keeps only the end
    of stderr): the MCP stdio transport's child. ``anyio`` comes with the optional MCP SDK
    and is imported here only."""
    import anyio

    scoped, token = scoped_env(env)
    process = await anyio.open_process(list(argv), stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       env=scoped, cwd=cwd, start_new_session=True)
    remember_scope(process.pid, token)
    return process
