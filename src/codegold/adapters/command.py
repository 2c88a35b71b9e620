"""``command:CMD``: run a program per request; JSON request on stdin, JSON response on stdout."""

from __future__ import annotations

import shlex
import subprocess

from codegold.adapters.protocol import (
    RetrievalRequest,
    RetrievalResponse,
    decode_response,
    encode_request,
)
from codegold.errors import InputError, RetrieverError

_STDERR_TAIL = 400


class CommandRetriever:
    """Runs ``argv`` once per request with a wall-clock ``timeout`` in seconds."""

    def __init__(self, command: str, *, timeout: float = 30.0) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as err:
            raise InputError(f"cannot parse retriever command {command!r}: {err}") from None
        if not self.argv:
            raise InputError("command: retriever needs a command, e.g. command:./my-retriever")
        self.command = command
        self.timeout = timeout

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        source = f"command {self.command!r}"
        try:
            done = subprocess.run(self.argv, input=encode_request(request), capture_output=True,
                                  timeout=self.timeout, check=False)
        except subprocess.TimeoutExpired:
            raise RetrieverError(f"{source} timed out after {self.timeout:g}s") from None
        except OSError as err:
            raise RetrieverError(f"{source} could not start: {err.strerror}") from None
        if done.returncode != 0:
            tail = done.stderr.decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
            raise RetrieverError(f"{source} exited with status {done.returncode}"
                                 + (f": {tail}" if tail else ""))
        return decode_response(done.stdout, source=source)
