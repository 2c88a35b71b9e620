"""Running a child program with bounded time and bounded output.

The child leads its own session, so a timeout (or an output flood) kills the whole
process group, grandchildren included: a retriever that forks a ``sleep`` cannot keep
codegold waiting on a pipe the grandchild still holds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024
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


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc`` and everything in its process group (it must lead its own session)."""
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
    proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=dict(env) if env is not None else None,
                            cwd=cwd, start_new_session=True)
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
        self.proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE,
                                     env=dict(env) if env is not None else None, cwd=cwd,
                                     start_new_session=True)
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

    return await anyio.open_process(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE,
                                    env=dict(env) if env is not None else None,
                                    cwd=cwd, start_new_session=True)
