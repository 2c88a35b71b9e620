"""Retriever specs (``--retriever``) → implementations, registered by scheme.

``reference`` (the default), ``command:CMD``, ``command+jsonl:CMD``, ``http://…`` /
``https://…``, ``python:module:function``, ``mcp:stdio:CMD`` / ``mcp:http(s)://URL``. Add a scheme by adding a factory to :data:`SCHEMES`.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from codegold.adapters.mcp.settings import McpSettings
from codegold.adapters.protocol import Retriever
from codegold.errors import InputError
from codegold.plumbing.http import redact_url
from codegold.retrieve.config import RetrieverConfig


class RetrieverOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Settings every factory may read; each uses what applies to it."""

    config: RetrieverConfig = msgspec.field(default_factory=RetrieverConfig)
    timeout: float = 30.0
    retries: int = 2
    backoff: float = 0.5
    dense: bool | None = None  # None: as the config says (signals.dense.enabled)
    embedder: str | None = None
    max_answer_bytes: int = 64 * 1024 * 1024  # command stdout / HTTP body beyond this fails
    follow_redirects: bool = False  # http: same-origin 307/308 only, never another host
    mcp: McpSettings | None = None  # mcp: the tool, its arguments, the result parser
    # python: the interpreter to call module:function in (a retriever in its own virtual
    # environment), a child process per request; None: inside codegold's interpreter.
    python: str | None = None


def config_digest(spec: str, options: RetrieverOptions, *, resolving: bool = False) -> str:
    """``sha256:HEX`` of what decides a run's answers: the retriever spec and every setting
    its factory reads (the reference retriever's whole configuration included)."""
    import hashlib

    settings = msgspec.to_builtins(options)
    # digests of runs made before these options existed stay the same while they are unset
    for later in ("mcp", "python"):
        if settings.get(later) is None:
            settings.pop(later, None)
    used = {"retriever": spec, "options": settings, "resolving": resolving}
    return "sha256:" + hashlib.sha256(msgspec.json.encode(used)).hexdigest()


def _reference(rest: str, options: RetrieverOptions) -> Retriever:
    from codegold.adapters.reference import build_reference

    return build_reference(options.config, dense=options.dense, embedder=options.embedder)


def _command(rest: str, options: RetrieverOptions) -> Retriever:
    from codegold.adapters.command import CommandRetriever

    return CommandRetriever(rest, timeout=options.timeout, max_output=options.max_answer_bytes)


def _command_jsonl(rest: str, options: RetrieverOptions) -> Retriever:
    from codegold.adapters.jsonl import JsonlCommandRetriever

    return JsonlCommandRetriever(rest, timeout=options.timeout,
                                 max_output=options.max_answer_bytes)


def _mcp(rest: str, options: RetrieverOptions) -> Retriever:
    from codegold.adapters.mcp.retriever import McpRetriever

    return McpRetriever(rest, options.mcp, timeout=options.timeout,
                        max_bytes=options.max_answer_bytes)


def _http(rest: str, options: RetrieverOptions) -> Retriever:
    from codegold.adapters.http import HttpRetriever

    return HttpRetriever(rest, timeout=options.timeout, retries=options.retries,
                         backoff=options.backoff, max_bytes=options.max_answer_bytes,
                         follow_redirects=options.follow_redirects)


def _python(rest: str, options: RetrieverOptions) -> Retriever:
    if options.python is not None:
        from codegold.adapters.python import ExternalPythonRetriever

        return ExternalPythonRetriever(rest, python=options.python, timeout=options.timeout,
                                       max_output=options.max_answer_bytes)
    from codegold.adapters.python import PythonRetriever

    return PythonRetriever(rest)


Factory = Callable[[str, RetrieverOptions], Retriever]

# scheme → (factory, whether the factory gets the whole spec instead of what follows "scheme:")
SCHEMES: dict[str, tuple[Factory, bool]] = {
    "reference": (_reference, False),
    "command": (_command, False),
    "command+jsonl": (_command_jsonl, False),
    "http": (_http, True),
    "https": (_http, True),
    "python": (_python, False),
    "mcp": (_mcp, False),
}


def make_retriever(spec: str, options: RetrieverOptions | None = None) -> Retriever:
    """Build the retriever a ``--retriever`` spec names."""
    options = options or RetrieverOptions()
    scheme, sep, rest = spec.partition(":")
    entry = SCHEMES.get(scheme)
    if entry is None:
        raise InputError(f"unknown retriever {redact_url(spec)!r}; expected one of: reference, command:CMD, "
                         "command+jsonl:CMD, http://URL, https://URL, python:module:function, "
                         "mcp:stdio:CMD, mcp:http(s)://URL")
    factory, whole = entry
    if not whole and scheme != "reference" and not (sep and rest):
        raise InputError(f"retriever {redact_url(spec)!r} needs something after '{scheme}:'")
    return factory(spec if whole else rest, options)


def close_retriever(retriever: Retriever) -> None:
    """Release what a retriever holds open (index readers), when it holds anything."""
    close = getattr(retriever, "close", None)
    if callable(close):
        close()
