"""``command+jsonl:CMD``: one long-running program, one JSON request and one JSON answer per line.

The request and response are the ``command:`` adapter's JSON, each on one line
(newline-terminated, no newline inside). The program starts on the first case and serves
every later one; it runs in its own process group, and the group is killed when an answer
takes longer than the timeout, when one line passes the answer size cap, and when the run
ends. A program that exits (or is killed) is started again for the next case; the case in
flight gets an error attempt that keeps the end of its stderr.

Answers are paired with requests by order, and by ``case_id`` when the answer echoes the
request's: a line that is not the answer asked for (another case's id, no id where the
program's earlier answers carried one, or a line that is not a response at all: a late
warning on stdout) makes this case an error attempt, and the program is started again so
that the next case is not answered by the line meant for this one.
"""

from __future__ import annotations

import threading

from codegold.adapters.command import command_argv
from codegold.adapters.protocol import (
    RetrievalRequest,
    RetrievalResponse,
    decode_response,
    encode_request,
)
from codegold.errors import RetrieverError
from codegold.plumbing import secrets
from codegold.plumbing.process import (
    DEFAULT_MAX_OUTPUT,
    ChildExited,
    ChildOverflow,
    ChildTimeout,
    LineChild,
)


class JsonlCommandRetriever:
    def __init__(self, command: str, *, timeout: float = 30.0,
                 max_output: int = DEFAULT_MAX_OUTPUT) -> None:
        self.argv = command_argv(command, "command+jsonl",
                                 "command+jsonl:./my-retriever --serve")
        self.command = command
        self.timeout = timeout
        self.max_output = max_output
        self.starts = 0  # how many times the program was started (tests, benchmarks)
        self._child: LineChild | None = None
        self._echoes = False  # the running program's answers carry the request's case_id
        self._lock = threading.Lock()

    def _running(self, source: str) -> LineChild:
        child = self._child
        if child is not None and child.alive:
            return child
        if child is not None:  # exited while idle, or left a stray line: start afresh
            child.kill()
        try:
            child = LineChild(self.argv, max_line=self.max_output)
        except OSError as err:
            raise RetrieverError(f"{source} could not start: {err.strerror or err}") from None
        self.starts += 1
        self._child = child
        self._echoes = False
        return child

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        source = f"command+jsonl {self.command!r}"
        with self._lock:
            child = self._running(source)
            try:
                line = child.exchange(encode_request(request), self.timeout)
            except ChildTimeout:
                self._child = None
                raise RetrieverError(f"{source} timed out after {self.timeout:g}s (stopped; "
                                     "the next case starts it again)") from None
            except ChildOverflow:
                self._child = None
                raise RetrieverError(f"{source} wrote more than {self.max_output} bytes on one "
                                     "line; an answer must be one JSON response") from None
            except ChildExited as exited:
                self._child = None
                child.kill()  # waits for its readers: the whole stderr is in the tail
                tail = secrets.redact_text(child.stderr_tail())
                status = ("closed its output" if exited.returncode is None
                          else f"exited with status {exited.returncode}")
                raise RetrieverError(f"{source} {status} before answering"
                                     + (f": {tail}" if tail else "")) from None
            try:
                response = decode_response(line, source=source)
                self._check_pairing(response, request, source)
            except RetrieverError:
                # The answer to this request may still be on its way: the next request
                # starts a fresh program rather than read it as its own.
                self._child = None
                child.kill()
                raise
        return response

    def _check_pairing(self, response: RetrievalResponse, request: RetrievalRequest,
                       source: str) -> None:
        echoed = response.case_id
        if echoed is None and self._echoes:
            raise RetrieverError(f"{source} answered case {request.case_id!r} with a line "
                                 "without the case_id its earlier answers carried: a stray "
                                 "line, not this case's answer (the program is started again)")
        if echoed is not None and echoed != request.case_id:
            raise RetrieverError(f"{source} answered case {echoed!r} while case "
                                 f"{request.case_id!r} was asked: a line too many earlier "
                                 "(the program is started again)")
        self._echoes = self._echoes or echoed is not None

    def close(self) -> None:
        with self._lock:
            if self._child is not None:
                self._child.kill()
                self._child = None
