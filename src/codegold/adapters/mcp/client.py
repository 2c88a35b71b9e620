"""One MCP server for a run, through the official SDK's :class:`mcp.ClientSession`.

The session runs on an event loop in a thread of its own (an anyio blocking portal), so
the synchronous retriever protocol can call it from any worker thread; calls are
serialised. The server is started (spawned or connected, ``initialize``, ``tools/list``)
on first use, kept for the whole run and started again after it died, timed out or
answered nonsense. After :data:`MAX_FAILED_STARTS` failed starts in a row it is not
started again: every later case gets the last start's error at once.

The stdio transport is codegold's own rather than the SDK's ``stdio_client``: it caps
each message at the answer size limit (the SDK's reader buffers a line of any length),
skips stdout lines that are not JSON-RPC (servers print progress there) but names them in
the error when the server then fails to answer, refuses a message opening more than
:data:`MAX_VALUES` JSON objects and arrays before decoding it, keeps the last 64 KiB of
the server's stderr (its end goes into the error), and the server leads
its own process group, killed whole (SIGKILL) on timeout, garbage or close. Every
failure the server causes becomes a :class:`~codegold.errors.RetrieverError`.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Future
from contextlib import AbstractContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import httpx2
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter

from codegold.errors import RetrieverError
from codegold.plumbing import secrets
from codegold.plumbing.process import kill_scope, open_async_child

T = TypeVar("T")
MAX_FAILED_STARTS = 2
MAX_VALUES = 100_000
"""Most JSON objects and arrays one message may open, counted before it is decoded: the
SDK makes an object of each (2.1 million tiny content blocks in 64 MiB took 4.6 GB),
and an answer is cut to k hits anyway."""
_STDERR_TAIL = 400
_STDERR_KEEP = 64 * 1024  # bytes of the server's stderr kept for its errors, as commands'
_READ = 64 * 1024
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"')
_STRING_REST = re.compile(rb'[^"\\]*+(?:\\.[^"\\]*+)*+')


def too_many_values(line: bytes) -> int | None:
    """How many objects and arrays the JSON ``line`` opens when that is more than
    :data:`MAX_VALUES` (braces inside strings not counted); else None."""
    if line.count(b"{") + line.count(b"[") <= MAX_VALUES:
        return None
    bare = _STRING.sub(b"", line)
    count = bare.count(b"{") + bare.count(b"[")
    return count if count > MAX_VALUES else None


class _Openers:
    """The objects and arrays a JSON byte stream opens, strings skipped, counted chunk by
    chunk (a string or an escape may straddle two chunks). With ``events`` (a Server-Sent
    Events stream: one message per event) the count starts again at each blank line."""

    def __init__(self, events: bool) -> None:
        self.events = events
        self.count = 0
        self.in_string = False
        self.escaped = False  # the chunk ended on a backslash inside a string
        self.newline = False  # the last byte outside a string was a newline

    def feed(self, data: bytes) -> int:
        position, size = 0, len(data)
        while position < size:
            if self.in_string:
                if self.escaped:
                    self.escaped, position = False, position + 1
                    continue
                position = _STRING_REST.match(data, position).end()  # type: ignore[union-attr]
                if position >= size:
                    break
                if data[position] == 0x5C:  # a backslash whose escaped byte comes next
                    self.escaped = True
                    break
                self.in_string, position = False, position + 1
                continue
            quote = data.find(b'"', position)
            end = size if quote < 0 else quote
            if self.events:
                self._events(data, position, end)
            else:
                self.count += data.count(b"{", position, end) + data.count(b"[", position, end)
            if quote < 0:
                break
            self.in_string, self.newline, position = True, False, quote + 1
        return self.count

    def _events(self, data: bytes, start: int, end: int) -> None:
        part = data[start:end].replace(b"\r", b"")
        blocks = part.split(b"\n\n")
        if self.newline and part.startswith(b"\n"):
            self.count = 0
        for number, block in enumerate(blocks):
            if number:
                self.count = 0
            self.count += block.count(b"{") + block.count(b"[")
        if part:
            self.newline = part.endswith(b"\n")


class _Fault:
    """The first thing that went wrong with one server instance (set from the loop)."""

    def __init__(self) -> None:
        self.message: str | None = None
        self.event = anyio.Event()
        self.stop = anyio.Event()

    def fail(self, message: str) -> None:
        if self.message is None:
            self.message = message
            self.event.set()


@dataclass
class _Instance:
    fault: _Fault
    settled: threading.Event = field(default_factory=threading.Event)
    session: ClientSession | None = None
    future: Future[None] | None = None
    pid: int | None = None
    errtail: bytearray = field(default_factory=bytearray)  # the end of the server's stderr
    setups: set[str] = field(default_factory=set)  # checkouts the setup call ran for
    stray: int = 0          # stdout lines that were not JSON-RPC
    last_stray: str = ""


Opener = Callable[["_Instance"], AbstractContextManager[Any]]


class ServerLink:
    """A server behind ``what`` (for messages), reached by ``connect`` (an async context
    manager factory yielding the SDK's stream pair)."""

    def __init__(self, what: str, *, stdio: list[str] | None = None, url: str | None = None,
                 timeout: float, max_bytes: int, env: dict[str, str] | None = None,
                 cwd: str | None = None) -> None:
        self.what = what
        self.stdio = stdio
        self.url = url
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.env = env
        self.cwd = cwd
        self._lock = threading.Lock()
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._instance: _Instance | None = None
        self._failed_starts = 0
        self._last_start_error = ""
        self.tools: list[Any] = []

    # -- the synchronous surface ------------------------------------------------------

    def call(self, work: Callable[[ClientSession, _Instance], Awaitable[T]], *,
             seconds: float | None = None) -> T:
        """Run ``work(session)`` on the server within ``seconds`` (default: the timeout)."""
        with self._lock:
            instance = self._running()
            budget = self.timeout if seconds is None else seconds
            try:
                portal = self._portal
                assert portal is not None
                return portal.call(_guard, instance.fault, budget,
                                   lambda: work(_session(instance), instance))
            except _Timeout:
                detail = self._detail(instance, f"did not answer within {budget:g}s (it was "
                                      "stopped; the next case starts it again)")
                self._stop(instance)
                raise RetrieverError(f"{self.what} {detail}") from None
            except _Broken as err:
                detail = self._detail(instance, str(err))
                self._stop(instance)
                raise RetrieverError(f"{self.what} {detail}") from None
            except MCPError as err:
                if instance.fault.message is not None:  # "connection closed": the fault says why
                    detail = self._detail(instance, instance.fault.message)
                    self._stop(instance)
                    raise RetrieverError(f"{self.what} {detail}") from None
                raise RetrieverError(f"{self.what} answered an error: {_mcp_message(err)}") from None
            except RetrieverError:
                raise
            except Exception as err:  # the SDK's own validation of an answer, a broken stream
                detail = self._detail(instance, f"failed: {_describe(err)}")
                self._stop(instance)
                raise RetrieverError(f"{self.what} {detail}") from None

    def close(self) -> None:
        with self._lock:
            if self._instance is not None:
                self._stop(self._instance)
            if self._portal_cm is not None:
                with contextlib.suppress(Exception):
                    self._portal_cm.__exit__(None, None, None)
            self._portal_cm = self._portal = None

    # -- starting and stopping --------------------------------------------------------

    def _running(self) -> _Instance:
        instance = self._instance
        if instance is not None and instance.fault.message is None:
            return instance
        if instance is not None:
            self._stop(instance)
        if self._failed_starts >= MAX_FAILED_STARTS:
            raise RetrieverError(f"{self.what} is not started again after "
                                 f"{self._failed_starts} failed starts: "
                                 f"{self._last_start_error}")
        try:
            started = self._start()
        except RetrieverError as err:
            self._failed_starts += 1
            self._last_start_error = str(err).removeprefix(self.what).strip()
            raise
        self._failed_starts = 0
        return started

    def _start(self) -> _Instance:
        if self._portal is None:
            self._portal_cm = start_blocking_portal("asyncio")
            self._portal = self._portal_cm.__enter__()
        portal = self._portal
        instance = portal.call(_new_instance)
        instance.future = portal.start_task_soon(self._lifetime, instance)
        if not instance.settled.wait(self.timeout + 5):
            instance.fault.message = instance.fault.message or "did not start"
        message = instance.fault.message
        if message is not None or instance.session is None:
            detail = self._detail(instance, message or "did not start")
            self._stop(instance)
            raise RetrieverError(f"{self.what} {detail}")
        self._instance = instance
        return instance

    async def _lifetime(self, instance: _Instance) -> None:
        fault = instance.fault

        async def on_message(message: Any) -> None:
            if isinstance(message, Exception):
                fault.fail(f"broke the connection: {_describe(message)}")

        try:
            async with self._connect(instance) as (read, write), \
                    ClientSession(read, write, message_handler=on_message) as session:
                deadline = time.monotonic() + self.timeout
                try:
                    await _guard(fault, self.timeout, session.initialize)
                except _Timeout:
                    fault.fail(f"did not answer initialize within {self.timeout:g}s")
                    return
                listed = await _guard(fault, max(0.01, deadline - time.monotonic()),
                                      session.list_tools)
                self.tools = list(listed.tools)
                instance.session = session
                instance.settled.set()
                await fault.stop.wait()
        except _Timeout:
            fault.fail(f"did not list its tools within {self.timeout:g}s")
        except _Broken as err:
            fault.fail(str(err))
        except MCPError as err:
            fault.fail(f"refused to start: {_mcp_message(err)}")
        except BaseException as err:
            leaf = _leaf(err)
            if isinstance(leaf, anyio.get_cancelled_exc_class()):
                raise
            fault.fail(_start_failure(leaf))
        finally:
            instance.settled.set()

    def _connect(self, instance: _Instance) -> Any:
        if self.stdio is not None:
            return _stdio(self.stdio, instance, self.max_bytes, self.env, self.cwd)
        assert self.url is not None
        return _http(self.url, instance, self.max_bytes, self.timeout)

    def _stop(self, instance: _Instance) -> None:
        """Kill the server's process group, then let its lifetime task unwind (bounded)."""
        if instance.pid is not None:
            _kill_group(instance.pid)
        portal = self._portal
        if portal is not None and instance.future is not None:
            with contextlib.suppress(Exception):
                portal.call(instance.fault.stop.set)
            try:
                instance.future.result(timeout=5)
            except Exception:
                instance.future.cancel()
        if self._instance is instance:
            self._instance = None

    def _detail(self, instance: _Instance, message: str) -> str:
        if instance.stray:
            message += (f"; it printed {instance.stray} line(s) on stdout that are not "
                        f"JSON-RPC, the last: {instance.last_stray!r}")
        tail = _stderr_tail(instance)
        return message + (f"; its stderr ends: {tail}" if tail else "")


def _session(instance: _Instance) -> ClientSession:
    assert instance.session is not None
    return instance.session


async def _new_instance() -> _Instance:
    return _Instance(fault=_Fault())  # anyio events are made on the loop's thread


class _Timeout(Exception):
    pass


class _Broken(Exception):
    pass


async def _guard(fault: _Fault, seconds: float, work: Callable[[], Awaitable[T]]) -> T:
    """``await work()`` unless the server breaks (``fault``) or ``seconds`` pass first."""
    if fault.message is not None:
        raise _Broken(fault.message)
    outcome: dict[str, Any] = {}
    with anyio.move_on_after(seconds):
        async with anyio.create_task_group() as group:

            async def run() -> None:
                try:
                    outcome["value"] = await work()
                except Exception as err:
                    outcome["error"] = err
                group.cancel_scope.cancel()

            async def watch() -> None:
                await fault.event.wait()
                group.cancel_scope.cancel()

            group.start_soon(run)
            group.start_soon(watch)
    if "value" in outcome:
        return outcome["value"]  # type: ignore[no-any-return]
    if "error" in outcome:
        raise outcome["error"]
    if fault.message is not None:
        raise _Broken(fault.message)
    raise _Timeout


@asynccontextmanager
async def _stdio(argv: list[str], instance: _Instance, max_bytes: int,
                 env: dict[str, str] | None, cwd: str | None) -> AsyncIterator[Any]:
    fault = instance.fault
    try:
        process = await open_async_child(argv, env=env, cwd=cwd)
    except OSError as err:
        raise _Broken(f"could not start: {err.strerror or err}") from None
    instance.pid = process.pid
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    stdout, stdin, stderr = process.stdout, process.stdin, process.stderr
    assert stdout is not None and stdin is not None and stderr is not None
    stderr_ended = anyio.Event()

    async def drain_stderr() -> None:
        # Only the end is kept, as for command retrievers: a server logging gigabytes
        # costs nothing but the reading.
        tail = instance.errtail
        try:
            while True:
                tail += await stderr.receive(_READ)
                if len(tail) > 2 * _STDERR_KEEP:
                    del tail[:-_STDERR_KEEP]
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            stderr_ended.set()

    async def exited() -> int | None:
        """The server's exit status once it has gone (waited for a second), its stderr
        read to the end first (bounded) so the error can quote it."""
        with anyio.move_on_after(1):
            while process.returncode is None:
                await anyio.sleep(0.02)
        with anyio.move_on_after(1):
            await stderr_ended.wait()
        return process.returncode  # type: ignore[no-any-return]

    async def read() -> None:
        buffer = bytearray()
        scanned = 0  # bytes of ``buffer`` known to hold no newline: a long line is searched once
        try:
            while True:
                chunk = await stdout.receive(_READ)
                buffer += chunk
                while (cut := buffer.find(b"\n", scanned)) >= 0 and cut <= max_bytes:
                    line = bytes(buffer[:cut]).strip()
                    del buffer[:cut + 1]
                    scanned = 0
                    if not line:
                        continue
                    many = too_many_values(line)
                    if many is not None:
                        fault.fail(f"sent a message opening {many} JSON objects and arrays; "
                                   f"at most {MAX_VALUES} are read")
                        return
                    try:
                        message = jsonrpc_message_adapter.validate_json(line, by_name=False)
                    except ValueError:
                        # Servers print progress to stdout; skipped, and named if it times out.
                        instance.stray += 1
                        instance.last_stray = line[:80].decode("utf-8", "replace")
                        continue
                    await to_session.send(SessionMessage(message))
                scanned = len(buffer)
                if len(buffer) > max_bytes:  # one line over the cap, whole or still arriving
                    fault.fail(f"sent a message of more than {max_bytes} bytes "
                               "(the answer size limit)")
                    return
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        code = await exited()
        fault.fail(f"exited with status {code}" if code is not None else "closed its output")

    async def write() -> None:
        try:
            async for message in from_session:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await stdin.send(data.encode("utf-8") + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # a server that exited closes its input first: say how it exited, as the
            # reader would once it sees the end of the output
            code = await exited()
            fault.fail(f"exited with status {code}" if code is not None
                       else "stopped reading its input")

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(write)
            group.start_soon(drain_stderr)
            try:
                yield from_server, to_server
            finally:
                group.cancel_scope.cancel()
    finally:
        _kill_group(process.pid)
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            for stream in (to_session, from_server, to_server, from_session):
                await stream.aclose()
            await process.aclose()


@asynccontextmanager
async def _http(url: str, instance: _Instance, max_bytes: int,
                timeout: float) -> AsyncIterator[Any]:
    from mcp.client.streamable_http import streamable_http_client

    fault = instance.fault
    capped = _CappedTransport(httpx2.AsyncHTTPTransport(), max_bytes, fault)
    # The client's own timeouts are a backstop past codegold's deadline, so that the
    # deadline (and its message) is what a silent server meets.
    client = httpx2.AsyncClient(transport=capped, follow_redirects=False,
                                timeout=httpx2.Timeout(timeout + 5))
    async with client, streamable_http_client(url, http_client=client,
                                              max_sse_event_size=max_bytes) as streams:
        yield streams


class _CappedTransport(httpx2.AsyncBaseTransport):
    """Counts every response body's bytes; past ``limit`` the server is at fault."""

    def __init__(self, inner: Any, limit: int, fault: _Fault) -> None:
        self.inner = inner
        self.limit = limit
        self.fault = fault

    async def handle_async_request(self, request: Any) -> Any:
        try:
            response = await self.inner.handle_async_request(request)
        except httpx2.TimeoutException as err:
            self.fault.fail(f"did not answer: {_describe(err)}")
            raise
        except Exception as err:
            self.fault.fail(f"could not be reached: {_describe(err)}")
            raise
        events = "event-stream" in response.headers.get("content-type", "")
        response.stream = _CappedStream(response.stream, self.limit, self.fault, events)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _CappedTransport:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *args: Any) -> None:
        await self.inner.__aexit__(*args)


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, limit: int, fault: _Fault, events: bool = False) -> None:
        self.inner = inner
        self.limit = limit
        self.fault = fault
        self.openers = _Openers(events)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self.inner:
            seen += len(chunk)
            if seen > self.limit:
                self.fault.fail(f"sent an answer of more than {self.limit} bytes "
                                "(the answer size limit)")
                raise _Broken("answer too large")
            if self.openers.feed(chunk) > MAX_VALUES:
                self.fault.fail(f"sent a message opening more than {MAX_VALUES} JSON objects "
                                "and arrays; at most that many are read")
                raise _Broken("answer too large")
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


def _kill_group(pid: int) -> None:
    kill_scope(pid)  # helpers that left the group first, while the server still holds them
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(pid, signal.SIGKILL)


def _stderr_tail(instance: _Instance) -> str:
    data = bytes(instance.errtail[-4096:])
    text = " ".join(data.decode("utf-8", "replace").split())[-_STDERR_TAIL:]
    return secrets.redact_text(text)


def _leaf(err: BaseException) -> BaseException:
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        err = err.exceptions[0]
    return err


def _start_failure(err: BaseException) -> str:
    if isinstance(err, _Broken):
        return str(err)
    if isinstance(err, OSError):
        return f"could not start: {err.strerror or err}"
    return f"failed to start: {_describe(err)}"


def _mcp_message(err: MCPError) -> str:
    error = getattr(err, "error", None)
    message = getattr(error, "message", None) or str(err)
    return " ".join(str(message).split())[:300]


def _describe(err: BaseException) -> str:
    err = _leaf(err)
    text = str(err)
    return f"{type(err).__name__}: {text}" if text else type(err).__name__

