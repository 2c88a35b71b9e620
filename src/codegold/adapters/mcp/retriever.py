"""``mcp:stdio:COMMAND`` / ``mcp:http(s)://URL``: a code-search tool an agent would call.

Each case becomes one ``tools/call`` of one tool (``--mcp-tool``, else the only
search-like tool the server lists) with arguments rendered from the case
(``--mcp-args``, see :mod:`codegold.adapters.mcp.settings`); the result becomes ranked
chunks (:mod:`codegold.adapters.mcp.parsers`), one per file span, each with the
request's revision. Run with ``--resolve`` so the spans are judged by what the index of
the case's revision holds there.
"""

from __future__ import annotations

import json
import posixpath
import re
import threading
from pathlib import Path
from typing import Any

from codegold.adapters.mcp.checkout import Checkouts
from codegold.adapters.mcp.parsers import Hit, ToolAnswer, get_parser
from codegold.adapters.mcp.settings import (
    McpSettings,
    SetupCall,
    parse_setup,
    parse_template,
    query_terms,
    render,
    render_command,
    split_command,
    terms_regex,
    uses_checkout,
)
from codegold.adapters.protocol import RetrievalRequest, RetrievalResponse
from codegold.errors import InputError, MissingDependency, RetrieverError
from codegold.model import Chunk
from codegold.plumbing import secrets
from codegold.plumbing.http import parse_url, redact_url
from codegold.plumbing.text import mend_surrogates

SEARCH_LIKE = re.compile(r"search|find|grep|query|lookup|retriev|locate", re.IGNORECASE)
QUERY_NAMES = ("query", "q", "pattern", "search", "search_query", "search_pattern", "text",
               "question", "term", "keywords")
DEPTH_NAMES = ("k", "limit", "top_k", "max_results", "n", "count", "num_results",
               "max_count", "top_n")
_EXCERPT_CHARS = 4000
_NOTE_CHARS = 200


def _client() -> Any:
    import importlib

    try:
        return importlib.import_module("codegold.adapters.mcp.client")
    except ImportError as err:
        raise MissingDependency("mcp", "mcp", "the mcp: retriever") from err


class McpRetriever:
    def __init__(self, target: str, settings: McpSettings | None = None, *,
                 timeout: float = 30.0, max_bytes: int = 64 * 1024 * 1024) -> None:
        settings = settings or McpSettings()
        self.settings = settings
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.argv: list[str] | None = None
        self.url: str | None = None
        if target.startswith("stdio:"):
            self.argv = split_command(target.removeprefix("stdio:"))
            self.what = f"MCP server {target.removeprefix('stdio:')!r}"
        elif target.startswith(("http://", "https://")):
            parse_url(target)
            self.url = target
            self.what = f"MCP server at {redact_url(target)}"
        else:
            raise InputError(f"mcp retriever {redact_url('mcp:' + target)!r}: expected "
                             "mcp:stdio:COMMAND or mcp:http(s)://URL")
        self.template = (parse_template(settings.arguments, setting="mcp_args")
                         if settings.arguments else None)
        self.setup: SetupCall | None = parse_setup(settings.setup) if settings.setup else None
        self.parser = get_parser(settings.parse)
        self.needs_checkout = uses_checkout(self.template, self.argv,
                                            self.setup.arguments if self.setup else None)
        if self.needs_checkout and not settings.checkout and not settings.repo:
            raise InputError("the MCP arguments name {checkout}, but no checkout was given: "
                             "pass {repo} (codegold writes each case revision's files to a "
                             "temporary folder) or {mcp_checkout} DIR",
                             settings=("repo", "mcp_checkout"))
        if settings.checkout and not Path(settings.checkout).is_dir():
            raise InputError("{mcp_checkout} is not a directory", path=settings.checkout,
                             settings=("mcp_checkout",))
        self.checkouts = (Checkouts(settings.repo) if self.needs_checkout and settings.repo
                          and not settings.checkout else None)
        _client()  # a missing SDK is the user's error, before any case runs
        self._lock = threading.Lock()
        self._link: Any = None
        self._link_key: tuple[str, ...] | None = None

    def _fields(self, request: RetrievalRequest, checkout: str | None) -> dict[str, Any]:
        context = request.context
        terms = query_terms(request.query)
        return {"terms": " ".join(terms) or request.query,
                "terms_regex": terms_regex(terms) or re.escape(request.query),"query": request.query, "k": request.k, "revision": request.revision,
                "repository": request.repository, "case_id": request.case_id,
                "open_file": getattr(context, "open_file", None) if context else None,
                "checkout": checkout}

    def _checkout(self, request: RetrievalRequest) -> str | None:
        if not self.needs_checkout:
            return self.settings.checkout
        if self.settings.checkout:
            return str(Path(self.settings.checkout).resolve())
        assert self.checkouts is not None
        return str(self.checkouts.path_for(request.revision, request.repository))

    def _server(self, fields: dict[str, Any]) -> Any:
        client = _client()
        argv = render_command(self.argv, fields) if self.argv is not None else None
        key = tuple(argv) if argv is not None else (self.url or "",)
        with self._lock:
            if self._link is None or self._link_key != key:
                if self._link is not None:
                    self._link.close()
                self._link = client.ServerLink(self.what, stdio=argv, url=self.url,
                                               timeout=self.timeout, max_bytes=self.max_bytes)
                self._link_key = key
            return self._link

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        checkout = self._checkout(request)
        fields = self._fields(request, checkout)
        link = self._server(fields)
        tool_name: list[str] = []

        if self.setup is not None:
            setup = self.setup

            async def run_setup(session: Any, instance: Any) -> None:
                key = checkout or ""
                if key in instance.setups:
                    return
                result = await session.call_tool(setup.tool, render(setup.arguments, fields))
                if getattr(result, "is_error", False):
                    raise RetrieverError(f"{self.what}: setup tool {setup.tool!r} reported an "
                                         f"error: {_text(result)[:300]}")
                instance.setups.add(key)

            link.call(run_setup)

        async def search(session: Any, instance: Any) -> Any:
            tool = self._choose_tool(link.tools)
            tool_name.append(tool.name)
            arguments = render(self._arguments_for(tool), fields)
            return await session.call_tool(tool.name, arguments)

        result = link.call(search)
        if getattr(result, "is_error", False):
            raise RetrieverError(f"{self.what}: tool {tool_name[0]!r} reported an error: "
                                 f"{' '.join(_text(result).split())[:300]}")
        answer = ToolAnswer(text=_text(result), structured=result.structured_content,
                            content=tuple(_dump(block) for block in result.content))
        try:
            hits = self.parser(answer)
            ranked = _chunks(hits, request, checkout, tool_name[0])
        except RetrieverError:
            raise
        except Exception as err:
            # a parser meeting what it was not written for: this case's error, never the
            # run's (--resume would meet it again)
            raise RetrieverError(f"{self.what}: the answer of tool {tool_name[0]!r} could not "
                                 f"be read (--mcp-parse {self.settings.parse}): "
                                 f"{type(err).__name__}: {str(err)[:200]}") from None
        note = None if hits else _unread_note(answer, tool_name[0], self.settings.parse)
        return RetrievalResponse(ranked=ranked[: max(request.k, 1)], note=note)

    def _choose_tool(self, tools: list[Any]) -> Any:
        names = [t.name for t in tools]
        listed = ", ".join(names) if names else "none"
        if self.settings.tool:
            for tool in tools:
                if tool.name == self.settings.tool:
                    return tool
            raise RetrieverError(f"{self.what} has no tool {self.settings.tool!r}; it lists: "
                                 f"{listed}")
        search_like = [t for t in tools if SEARCH_LIKE.search(t.name)]
        if len(search_like) == 1:
            return search_like[0]
        which = "no search-like tool" if not search_like else \
            f"{len(search_like)} search-like tools"
        raise RetrieverError(f"{self.what} lists {which} (tools: {listed}); name one with "
                             "--mcp-tool")

    def _arguments_for(self, tool: Any) -> Any:
        if self.template is not None:
            return self.template
        schema = getattr(tool, "input_schema", None) or {}
        # the server's schema, whatever shape it has: a list of properties or a string
        # where an object belongs describes no argument
        found = schema.get("properties") if isinstance(schema, dict) else None
        properties: dict[str, Any] = {name: spec if isinstance(spec, dict) else {}
                                      for name, spec in found.items()} \
            if isinstance(found, dict) else {}
        listed = schema.get("required") if isinstance(schema, dict) else None
        required = [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
        query = next((n for n in QUERY_NAMES if n in properties), None)
        if query is None:
            strings = [n for n in required if (properties.get(n) or {}).get("type") == "string"]
            if len(strings) != 1:
                raise RetrieverError(f"{self.what}: cannot tell which argument of tool "
                                     f"{tool.name!r} takes the query (properties: "
                                     f"{', '.join(properties) or 'none'}); give --mcp-args")
            query = strings[0]
        arguments: dict[str, Any] = {query: "{query}"}
        depth = next((n for n in DEPTH_NAMES if n in properties
                      and (properties[n] or {}).get("type") in ("integer", "number")), None)
        if depth is not None:
            arguments[depth] = "{k}"
        return arguments

    def close(self) -> None:
        with self._lock:
            if self._link is not None:
                self._link.close()
                self._link = None
        if self.checkouts is not None:
            self.checkouts.close()


def _unread_note(answer: ToolAnswer, tool: str, parse: str) -> str | None:
    """What the attempt says of an answer that held something no parser read (None for an
    empty answer: a search that found nothing)."""
    shown = " ".join(answer.text.split())
    if not shown and answer.structured not in (None, {}, []):
        shown = _json_text(answer.structured)
    if not shown:
        return None
    return (f"no hits read from the answer of tool {tool!r} (--mcp-parse {parse}); it "
            f"begins: {secrets.redact_text(shown[:5 * _NOTE_CHARS])[:_NOTE_CHARS]}")


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)[:5 * _NOTE_CHARS]
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__


def _text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content
                     if getattr(block, "type", None) == "text")


def _dump(block: Any) -> dict[str, Any]:
    dump = getattr(block, "model_dump", None)
    return dump(mode="json", by_alias=True) if callable(dump) else {}  # type: ignore[no-any-return]


_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


def _relative(path: str, checkout: str | None) -> tuple[str, bool]:
    """A repository-relative path, and whether it lies outside the repository.

    A relative path is normalised as the server's file system would read it
    (``src/./a.py`` and ``src/x/../a.py`` are ``src/a.py``); one that climbs out of the
    checkout (``src/../../etc/passwd``), one in the home directory (``~/a.py``) and a
    Windows drive path (``C:\\co\\a.py``, not this machine's checkout) lie outside."""
    path = mend_surrogates(path.strip())
    if path.startswith("file://"):
        path = path.removeprefix("file://")
    if path.startswith("/"):
        full = posixpath.normpath(path)
        for root in (checkout, str(Path(checkout).resolve())) if checkout else ():
            prefix = posixpath.normpath(root).rstrip("/") + "/"
            if full.startswith(prefix) or full + "/" == prefix:  # the checkout: no file
                return full[len(prefix):] or ".", False
        return full, True
    if path.startswith("~") or _DRIVE.match(path):
        return path, True
    clean = posixpath.normpath(path)
    return clean, clean == ".." or clean.startswith("../")


def _chunks(hits: list[Hit], request: RetrievalRequest, checkout: str | None,
            tool: str) -> list[Chunk]:
    seen: set[tuple[str, int | None, int | None]] = set()
    chunks = []
    for hit in hits:
        file, outside = _relative(hit.file, checkout)
        if not file or file in (".", "/"):  # the checkout itself names no file
            continue
        key = (file, hit.start_line, hit.end_line)
        if key in seen:
            continue
        seen.add(key)
        span = f":{hit.start_line}-{hit.end_line}" if hit.start_line is not None else ""
        # JSON may spell lone surrogates (`"\ud800"`), which no attempt can be written with
        text = mend_surrogates(hit.text[:_EXCERPT_CHARS]) if hit.text else None
        symbol = mend_surrogates(hit.symbol) if hit.symbol else hit.symbol
        chunks.append(Chunk(chunk_id=f"{file}{span}", file=file, revision=request.revision,
                            start_line=hit.start_line, end_line=hit.end_line,
                            excerpt=text, score=hit.score, symbol=symbol, tool=tool,
                            kind="search_hit", outside_repo=outside))
    return chunks
