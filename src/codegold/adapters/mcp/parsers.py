"""Turning what a code-search tool answers into ranked spans (``--mcp-parse NAME``).

A tool result has structured content (any JSON value) and text blocks. Every parser
returns :class:`Hit` values in the tool's order; the retriever makes chunks of them
(one per hit, ``--resolve`` then says which definitions each span holds).

Registered parsers (:data:`PARSERS`):

- ``structured``: the result's structured content, read as JSON hits (below).
- ``json``: the text is JSON (or holds one JSON object or array; a Python ``repr`` of
  dicts and lists is read too, with ``ast.literal_eval``), read as JSON hits.
- ``grep``: ``path:line:text`` lines (``path:line:column:text`` too, as ``rg --vimgrep``
  prints); hits on adjacent lines of one file join into one span.
- ``ranges``: header lines ``path:start-end`` (also ``path:line``, ``path#L10-L20``,
  ``path (lines 10-20)``), each followed by its text until the next header.
- ``markdown``: a heading or bold line naming a path (with an optional range) followed
  by a fenced code block; without a range in the heading, numbered lines in the block
  (``12: code``, ``12 | code``) give the span, else the hit is the whole file.
- ``paths``: one path per line (a file finder); each hit is a whole file.
- ``auto`` (the default): structured content when it holds hits, else the files the
  result's ``resource_link`` and embedded ``resource`` blocks name (each a whole file),
  else the text as JSON, else the first of ``markdown``, ``grep``, ``ranges`` that finds
  any, else a JSON array or object inside the text (last: a code line the tool found may
  hold a literal).

JSON hits: a list of objects, or an object with such a list under ``results``,
``matches``, ``hits``, ``chunks``, ``items``, ``files``, ``ranked`` or ``result`` (searched
one level down too). An object's file is its ``file``, ``path``, ``file_path``,
``filename``, ``filePath`` or ``uri``; lines ``start_line``/``startLine``/``line``/
``line_number``/``lineNumber``/``start``, ``end_line``/``endLine``/``end``; text
``text``/``content``/``snippet``/``excerpt``/``code``/``match``/``line_text``; ``score``.
A list of strings is a list of paths.

``module:function`` names your own parser: it is called with ``{"text": ...,
"structured": ..., "content": [...]}`` and returns a list of dicts with ``file`` and
optional ``start_line``, ``end_line``, ``excerpt``, ``score``, ``symbol``.
"""

from __future__ import annotations

import ast
import importlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codegold.errors import InputError, RetrieverError
from codegold.plumbing.numbers import as_int, number


@dataclass(frozen=True)
class Hit:
    file: str
    start_line: int | None = None
    end_line: int | None = None
    text: str | None = None
    score: float | None = None
    symbol: str | None = None


@dataclass(frozen=True)
class ToolAnswer:
    """One tool result, SDK types left behind: joined text blocks, structured content."""

    text: str
    structured: Any = None
    content: tuple[dict[str, Any], ...] = ()


Parser = Callable[[ToolAnswer], list[Hit]]
_LITERAL_LIMIT = 8 * 1024 * 1024
TEXT_LIMIT = 8 * 1024 * 1024
"""Characters of an answer's text the line parsers (``grep``, ``ranges``, ``markdown``,
``paths``) read: hits come in rank order and are cut to k, and a line loop over the whole
answer size cap would take tens of seconds after the call's own deadline."""


def _lines(answer: ToolAnswer) -> list[str]:
    return answer.text[:TEXT_LIMIT].splitlines()

_LIST_KEYS = ("results", "matches", "hits", "chunks", "items", "files", "ranked", "result",
              "data")
_FILE_KEYS = ("file", "path", "file_path", "filename", "filePath", "uri", "relative_path")
_START_KEYS = ("start_line", "startLine", "line", "line_number", "lineNumber", "start",
               "lineno")
_END_KEYS = ("end_line", "endLine", "end")
_TEXT_KEYS = ("text", "content", "snippet", "excerpt", "code", "match", "line_text", "preview")


def _int(value: Any) -> int | None:
    if isinstance(value, dict):  # {"line": 12} as LSP-like positions give
        return _int(value.get("line"))
    found = as_int(value) if not isinstance(value, float) else None
    return found if found is not None and found >= 1 else None


def _first(item: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in item and item[key] is not None:
            return item[key]
    return None


def _hit_from_object(item: dict[str, Any]) -> Hit | None:
    file = _first(item, _FILE_KEYS)
    if not isinstance(file, str) or not file.strip():
        return None
    start = _int(_first(item, _START_KEYS))
    end = _int(_first(item, _END_KEYS))
    span = item.get("range") or item.get("lines")
    if start is None and isinstance(span, dict):
        start, end = _int(span.get("start")), _int(span.get("end"))
    if start is None and isinstance(span, list) and len(span) == 2:
        start, end = _int(span[0]), _int(span[1])
    if end is None or (start is not None and end < start):
        end = start
    text = _first(item, _TEXT_KEYS)
    if isinstance(text, list):
        text = "\n".join(str(t) for t in text)
    symbol = item.get("symbol") or item.get("name")
    return Hit(file=file.strip(), start_line=start, end_line=end,
               text=text if isinstance(text, str) else None, score=_score(item.get("score")),
               symbol=symbol if isinstance(symbol, str) else None)


def _score(value: Any) -> float | None:
    """A finite score, or None: an integer past a float's range (``1`` and 400 zeros is
    valid JSON) or ``NaN`` and ``Infinity`` (which Python's JSON reader takes) is none."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        score = float(value)
    except OverflowError:
        return None
    return score if math.isfinite(score) else None


def hits_from_json(value: Any, *, depth: int = 0) -> list[Hit]:
    """JSON hits (see the module docstring) in ``value``; [] when it holds none."""
    if isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            return [Hit(file=v.strip()) for v in value if v.strip()]
        found: list[Hit] = []
        for item in value:
            if not isinstance(item, dict):
                continue
            if depth < 2 and any(isinstance(item.get(k), list) for k in _LIST_KEYS):
                found.extend(_group_hits(item, depth + 1))
                continue
            hit = _hit_from_object(item)
            if hit is not None:
                found.append(hit)
        return found
    if isinstance(value, dict):
        single = _hit_from_object(value)
        for key in _LIST_KEYS:
            if key in value:
                found = hits_from_json(value[key], depth=depth + 1)
                if found:
                    return found
        if depth < 2:
            for inner in value.values():
                if isinstance(inner, dict | list):
                    found = hits_from_json(inner, depth=depth + 1)
                    if found:
                        return found
        return [single] if single is not None else []
    return []


def _group_hits(group: dict[str, Any], depth: int) -> list[Hit]:
    """``{"file": F, "matches": [{"line": 3, ...}]}``: the matches, each in F."""
    file = _first(group, _FILE_KEYS)
    inner = next((group[k] for k in _LIST_KEYS if isinstance(group.get(k), list)), None)
    if not isinstance(file, str) or inner is None:
        return hits_from_json(group, depth=depth)
    hits = []
    for item in inner:
        if isinstance(item, dict):
            hit = _hit_from_object({"file": file, **item})
            if hit is not None:
                hits.append(hit)
    return hits


def parse_structured(answer: ToolAnswer) -> list[Hit]:
    return hits_from_json(answer.structured) if answer.structured is not None else []


def parse_json(answer: ToolAnswer) -> list[Hit]:
    return _json_hits(answer.text.strip(), whole=True, inside=True)


def _json_hits(text: str, *, whole: bool, inside: bool) -> list[Hit]:
    """Hits of the text read as JSON (``whole``) and of the one JSON array or object it
    holds (``inside``: ``Found 3 results: [...]``)."""
    candidates = _json_candidates(text)
    chosen = (candidates[:1] if whole else []) + (candidates[1:] if inside else [])
    for candidate in chosen:
        try:
            value = json.loads(candidate)
        except RecursionError:
            continue
        except ValueError:
            value = _python_literal(candidate)
            if value is None:
                continue
        return hits_from_json(value)
    return []


def _python_literal(text: str) -> Any:
    """A Python ``repr`` of dicts and lists (some servers print ``str(result)``), read with
    :func:`ast.literal_eval`, which evaluates literals only, never code."""
    if len(text) > _LITERAL_LIMIT or text[:1] not in "[{":
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _json_candidates(text: str) -> list[str]:
    out = [text]
    for opener, closer in (("[", "]"), ("{", "}")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            out.append(text[start:end + 1])
    return out


# the path runs to the first colon (one greedy run: linear on a line of any length); that
# it holds a character that is neither a digit nor a space is checked after the match
_GREP = re.compile(r"^(?P<path>[^:\n\t]+):(?P<line>\d+):(?:(?P<col>\d+):)?(?P<text>.*)$")
_NAME_CHARACTER = re.compile(r"[^\s\d]")
_HEADER_CHARS = 1024
"""Longest line read as a path header (``ranges``, ``markdown``): a longer one is body text,
and the header patterns, which backtrack, never see it."""


def parse_grep(answer: ToolAnswer) -> list[Hit]:
    spans: list[list[Any]] = []  # [file, start, end, lines]
    for raw in _lines(answer):
        match = _GREP.match(raw.strip("\r"))
        if not match or not _NAME_CHARACTER.search(match.group("path")):
            continue
        path, line = match.group("path").strip(), number(match.group("line")) or 0
        if line < 1:
            continue
        last = spans[-1] if spans else None
        if last is not None and last[0] == path and last[2] + 1 >= line >= last[1]:
            last[2] = max(last[2], line)
            last[3].append(match.group("text"))
            continue
        spans.append([path, line, line, [match.group("text")]])
    return [Hit(file=f, start_line=s, end_line=e, text="\n".join(t)) for f, s, e, t in spans]


# Header patterns run in time linear in the line: every run of characters is taken
# possessively, and what a path must hold (a dot and an extension, or a slash inside) is
# checked after the match (:func:`_range_path`), never by backtracking over the run.
_RANGE = re.compile(
    r"^\s*+(?:[-*]\s++|\d++\.\s++)?(?:file:\s*+)?`?(?P<path>[^\s:`#()]++)`?"
    r"(?::|#L|\s++\(?lines?\s++)(?P<start>\d++)(?:\s*+[-–]\s*+L?(?P<end>\d++))?\)?"
    r"\s*+:?\s*+$", re.IGNORECASE)
_EXTENSION = re.compile(r"\w+")


def _range_path(path: str) -> bool:
    """A header's path names a file: a dot past its first character followed by word
    characters to the end (``a.py``), or a slash with something either side (``src/a``)."""
    dot = path.rfind(".")
    if dot >= 1 and _EXTENSION.fullmatch(path, dot + 1) is not None:
        return True
    return "/" in path[1:-1]


def parse_ranges(answer: ToolAnswer) -> list[Hit]:
    hits: list[Hit] = []
    current: dict[str, Any] | None = None
    body: list[str] = []

    def close() -> None:
        if current is not None:
            hits.append(Hit(file=current["file"], start_line=current["start"],
                            end_line=current["end"], text="\n".join(body).strip("\n") or None))

    for raw in _lines(answer):
        match = _RANGE.match(raw) if len(raw) <= _HEADER_CHARS else None
        if match and _range_path(match.group("path")):
            close()
            start = number(match.group("start"))
            end = number(match.group("end")) if match.group("end") else start
            current = {"file": match.group("path"), "start": start,
                       "end": max(start, end) if start is not None and end is not None else start}
            body = []
        elif current is not None:
            body.append(raw)
    close()
    return hits


# The heading's text is what follows its marker, trailing space and one closing ``**`` or
# ``__`` left out (:func:`_heading_text`); the path in it is found run by run
# (:func:`_heading_path`), each pattern anchored where it can only match once.
_HEADING = re.compile(r"\s*+(?:#{1,6}\s++|\*\*|__|(?:file|path):\s*+)(?P<rest>.+)",
                      re.IGNORECASE)
_PATH_RUN = re.compile(r"[\w./\\-]++")
_DOTTED = re.compile(r"[\w./\\-]*[\w-]\.[A-Za-z0-9]++")  # from a run's start: up to its last extension
_SLASHED = re.compile(r"[\w.-]/[\w./-]")
_SEGMENT = re.compile(r"[\w./-]++")
_HEAD_RANGE = re.compile(r"`?(?::|#L|\s*+\(?\s*+lines?\s++)(?P<start>\d++)"
                         r"(?:\s*+[-–]\s*+L?(?P<end>\d++))?", re.IGNORECASE)
_NUMBERED = re.compile(r"^\s*(?P<line>\d+)\s*(?:[:|]|\s{2,}|\t)")


def _heading_text(raw: str) -> str | None:
    match = _HEADING.match(raw.rstrip())
    if match is None:
        return None
    rest = match.group("rest")
    return rest[:-2] if len(rest) > 2 and rest.endswith(("**", "__")) else rest


def _heading_path(rest: str) -> tuple[str, int | None, int | None] | None:
    """The first path in a heading's text, with the range after it: in the first run of
    path characters that either holds a name with an extension (the path runs from the
    run's start through the last one) or a segment followed by a slash (the path runs
    from that segment through the slashes, dots and dashes after it)."""
    for run in _PATH_RUN.finditer(rest):
        dotted = _DOTTED.match(rest, run.start())
        if dotted is not None:
            begin, cut = run.start(), dotted.end()
        else:
            slashed = _SLASHED.search(rest, run.start(), run.end())
            if slashed is None:
                continue
            begin = slashed.start()
            while begin > run.start() and rest[begin - 1] not in "/\\":
                begin -= 1
            segment = _SEGMENT.match(rest, begin)
            cut = segment.end() if segment is not None else slashed.end()
        found = _HEAD_RANGE.match(rest, cut)
        start = number(found.group("start")) if found else None
        end = number(found.group("end")) if found and found.group("end") else start
        return rest[begin:cut], start, max(end, start) if start and end else end
    return None


def parse_markdown(answer: ToolAnswer) -> list[Hit]:
    hits: list[Hit] = []
    heading: tuple[str, int | None, int | None] | None = None
    lines = _lines(answer)
    index = 0
    while index < len(lines):
        raw = lines[index]
        if raw.lstrip().startswith(("```", "~~~")):
            fence = raw.lstrip()[:3]
            block: list[str] = []
            index += 1
            while index < len(lines) and not lines[index].lstrip().startswith(fence):
                block.append(lines[index])
                index += 1
            index += 1
            if heading is None:
                continue
            path, start, end = heading
            if start is None:
                numbers = [n for m in map(_NUMBERED.match, block)
                           if m and (n := number(m.group("line"))) is not None]
                if numbers and len(numbers) >= len([b for b in block if b.strip()]) // 2:
                    start, end = min(numbers), max(numbers)
            hits.append(Hit(file=path, start_line=start, end_line=end if end else start,
                            text="\n".join(block)))
            heading = None
            continue
        rest = _heading_text(raw) if len(raw) <= _HEADER_CHARS else None
        if rest is not None:
            heading = _heading_path(rest) or heading
        index += 1
    return hits


def parse_paths(answer: ToolAnswer) -> list[Hit]:
    hits = []
    for raw in _lines(answer):
        line = raw.strip().strip("`").removeprefix("- ").strip()
        if line and " " not in line and ("/" in line or "." in line):
            hits.append(Hit(file=line))
    return hits


def parse_resources(answer: ToolAnswer) -> list[Hit]:
    """Files a result names as content blocks of their own: ``resource_link`` blocks (a
    ``uri``) and embedded ``resource`` blocks (a ``uri`` and, for text, the text)."""
    hits = []
    for block in answer.content:
        kind = block.get("type")
        resource = block.get("resource") if kind == "resource" else block \
            if kind == "resource_link" else None
        uri = resource.get("uri") if isinstance(resource, dict) else None
        if isinstance(uri, str) and uri.strip():
            text = resource.get("text") if isinstance(resource, dict) else None
            hits.append(Hit(file=uri.strip(), text=text if isinstance(text, str) else None))
    return hits


def parse_auto(answer: ToolAnswer) -> list[Hit]:
    """Structured hits, resource blocks, the text as JSON, the line shapes, and only then
    a JSON value inside the text: a grep line or a code block holding a literal (``x =
    {"path": "/etc/app.yaml"}``) is code the tool found, not its answer."""
    found = parse_structured(answer) or parse_resources(answer)
    if found:
        return found
    text = answer.text.strip()
    found = _json_hits(text, whole=True, inside=False)
    if found:
        return found
    for parser in (parse_markdown, parse_grep, parse_ranges):
        found = parser(answer)
        if found:
            return found
    return _json_hits(text, whole=False, inside=True)


PARSERS: dict[str, Parser] = {
    "auto": parse_auto,
    "structured": parse_structured,
    "json": parse_json,
    "grep": parse_grep,
    "ranges": parse_ranges,
    "markdown": parse_markdown,
    "paths": parse_paths,
}


def get_parser(name: str) -> Parser:
    """The parser ``--mcp-parse`` names: a registered one, or ``module:function``."""
    if name in PARSERS:
        return PARSERS[name]
    module_name, sep, function_name = name.rpartition(":")
    if not sep or not module_name or not function_name:
        raise InputError(f"unknown {{mcp_parse}} {name!r}; expected one of "
                         f"{', '.join(PARSERS)} or module:function", settings=("mcp_parse",))
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise InputError(f"cannot import {{mcp_parse}} module {module_name!r}: {err}",
                         settings=("mcp_parse",)) from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise InputError(f"module {module_name!r} has no function {function_name!r}")
    return _custom(name, function)


def _custom(name: str, function: Callable[[dict[str, Any]], Any]) -> Parser:
    def parse(answer: ToolAnswer) -> list[Hit]:
        try:
            found = function({"text": answer.text, "structured": answer.structured,
                              "content": list(answer.content)})
        except Exception as err:
            raise RetrieverError(f"--mcp-parse {name} raised {type(err).__name__}: {err}") from None
        if not isinstance(found, list):
            raise RetrieverError(f"--mcp-parse {name} returned {type(found).__name__}, "
                                 "expected a list of dicts with 'file'")
        hits = []
        for item in found:
            hit = _hit_from_object(item) if isinstance(item, dict) else None
            if hit is None:
                raise RetrieverError(f"--mcp-parse {name} returned an item without a file: "
                                     f"{str(item)[:120]}")
            hits.append(hit)
        return hits

    return parse
