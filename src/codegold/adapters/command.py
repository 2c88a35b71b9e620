"""``command:CMD``: run a program per request; JSON request on stdin, JSON response on stdout."""

from __future__ import annotations

import shlex

from codegold.adapters.protocol import (
    RetrievalRequest,
    RetrievalResponse,
    decode_response,
    encode_request,
)
from codegold.errors import InputError, RetrieverError
from codegold.plumbing.process import DEFAULT_MAX_OUTPUT, run_bounded

_STDERR_TAIL = 400


def command_argv(command: str, scheme: str, example: str) -> list[str]:
    """``command`` split as a shell would (no shell runs it); an InputError naming the
    ``scheme`` and an ``example`` when it cannot be split or is empty."""
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise InputError(f"cannot parse retriever command {command!r}: {err}") from None
    if not argv:
        raise InputError(f"{scheme}: retriever needs a command, e.g. {example}")
    return argv


class CommandRetriever:
    """Runs ``argv`` once per request with a wall-clock ``timeout`` in seconds.

    The program runs in its own process group, killed whole on timeout; an answer
    longer than ``max_output`` bytes stops it and fails the attempt.
    """

    def __init__(self, command: str, *, timeout: float = 30.0,
                 max_output: int = DEFAULT_MAX_OUTPUT) -> None:
        self.argv = command_argv(command, "command", "command:./my-retriever")
        self.command = command
        self.timeout = timeout
        self.max_output = max_output

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        source = f"command {self.command!r}"
        try:
            done = run_bounded(self.argv, input=encode_request(request), timeout=self.timeout,
                               max_output=self.max_output)
        except OSError as err:
            raise RetrieverError(f"{source} could not start: {err.strerror or err}") from None
        if done.timed_out:
            raise RetrieverError(f"{source} timed out after {self.timeout:g}s")
        if done.overflowed:
            raise RetrieverError(f"{source} wrote more than {self.max_output} bytes to stdout; "
                                 "an answer must be one JSON response")
        if done.returncode != 0:
            tail = done.stderr.decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
            raise RetrieverError(f"{source} exited with status {done.returncode}"
                                 + (f": {tail}" if tail else ""))
        return decode_response(done.stdout, source=source)
