"""What an ``mcp:`` retriever is told besides its spec: the tool, its arguments, the parser.

Nothing here imports the MCP SDK: the settings travel in
:class:`~codegold.adapters.registry.RetrieverOptions` (so into the run's config digest
and to executor workers) whether or not ``codegold[mcp]`` is installed.

Argument templates (``--mcp-args``) are JSON whose strings may name the case's fields in
braces: ``{query}``, ``{k}``, ``{revision}``, ``{repository}``, ``{open_file}``,
``{case_id}``, ``{checkout}``; ``{terms}`` is the query's words without common English
ones (space-separated) and ``{terms_regex}`` the same as a regular expression matching
any of them (``word1|word2``), for tools that search a literal pattern. A string that is exactly one placeholder takes that
value's type (``"{k}"`` is the number 10, not ``"10"``); a key whose whole value names
an absent field (``{open_file}`` of a case without one) is left out. ``{{`` and ``}}``
are literal braces.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import msgspec

from codegold.errors import InputError

PLACEHOLDERS = ("query", "k", "revision", "repository", "open_file", "case_id", "checkout",
                "terms", "terms_regex")
DEFAULT_ARGUMENTS = '{"query": "{query}"}'
_FIELD = re.compile(r"\{\{|\}\}|\{([a-z_]+)\}")


class McpSettings(msgspec.Struct, frozen=True, kw_only=True):
    """``--mcp-*`` options. ``arguments``/``setup`` are JSON text, checked by :func:`parse_template`."""

    tool: str | None = None          # None: the only search-like tool the server lists
    arguments: str | None = None     # None: {"query": "{query}"} (or the tool's one required string)
    parse: str = "auto"              # a text parser name, or module:function
    setup: str | None = None         # {"tool": NAME, "arguments": {...}}, called once per checkout
    checkout: str | None = None      # a directory the server already searches ({checkout})
    repo: str | None = None          # a git repository (or folder of clones) to materialise from


class SetupCall(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    tool: str
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)


MAX_TEMPLATE_DEPTH = 32
"""Deepest nesting of objects and arrays in ``--mcp-args`` and ``--mcp-setup``."""
_TOO_DEEP = object()


def _deeper_than(value: Any, limit: int) -> bool:
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth >= limit:
                return True
            pending.extend((child, depth + 1)
                           for child in (item.values() if isinstance(item, dict) else item))
    return False


def parse_template(text: str, *, setting: str) -> Any:
    """The JSON of an argument template given as ``setting`` (``mcp_args``); every
    placeholder must be a known one."""
    try:
        value = json.loads(text)
    except ValueError as err:
        raise InputError(f"{{{setting}}} is not JSON ({err}); expected e.g. "
                         '\'{"query": "{query}", "limit": "{k}"}\'', settings=(setting,)) from None
    except RecursionError:
        value = _TOO_DEEP
    if value is _TOO_DEEP or _deeper_than(value, MAX_TEMPLATE_DEPTH):
        # the template is walked (and rendered per case) by recursion: a bound first
        raise InputError(f"{{{setting}}} is nested deeper than {MAX_TEMPLATE_DEPTH} levels",
                         settings=(setting,))
    if not isinstance(value, dict):
        # a tool's arguments are an object: anything else failed every case the same way
        raise InputError(f"{{{setting}}} is {type(value).__name__} JSON; expected an object, "
                         'e.g. \'{"query": "{query}", "limit": "{k}"}\'', settings=(setting,))
    for name in sorted(_placeholders(value)):
        if name not in PLACEHOLDERS:
            raise InputError(f"{{{setting}}} names an unknown field {{{name}}}; expected one of "
                             + ", ".join("{" + p + "}" for p in PLACEHOLDERS),
                             settings=(setting,))
    return value


def parse_setup(text: str) -> SetupCall:
    data = parse_template(text, setting="mcp_setup")
    try:
        return msgspec.convert(data, SetupCall)
    except msgspec.ValidationError as err:
        raise InputError(f"{{mcp_setup}} must be {{\"tool\": NAME, \"arguments\": {{...}}}}: "
                         f"{err}", settings=("mcp_setup",)) from None


def uses_checkout(*templates: Any) -> bool:
    return any("checkout" in _placeholders(t) for t in templates)


def _placeholders(value: Any) -> set[str]:
    if isinstance(value, str):
        return {m.group(1) for m in _FIELD.finditer(value) if m.group(1)}
    if isinstance(value, dict):
        return set().union(*(_placeholders(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_placeholders(v) for v in value)) if value else set()
    return set()


_ABSENT = object()


def render(template: Any, fields: dict[str, Any]) -> Any:
    """``template`` with every placeholder replaced by its value in ``fields``."""
    value = _render(template, fields)
    return None if value is _ABSENT else value


def _render(value: Any, fields: dict[str, Any]) -> Any:
    if isinstance(value, str):
        whole = _FIELD.fullmatch(value)
        if whole and whole.group(1):
            found = fields.get(whole.group(1))
            return _ABSENT if found is None else found

        def one(match: re.Match[str]) -> str:
            if match.group(1) is None:
                return match.group(0)[0]
            found = fields.get(match.group(1))
            return "" if found is None else str(found)

        return _FIELD.sub(one, value)
    if isinstance(value, dict):
        out = {key: _render(item, fields) for key, item in value.items()}
        return {key: item for key, item in out.items() if item is not _ABSENT}
    if isinstance(value, list):
        return [item for item in (_render(v, fields) for v in value) if item is not _ABSENT]
    return value


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*[A-Za-z0-9_]|[A-Za-z_]")
STOPWORDS = frozenset(["a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how", "i", "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when", "where", "which", "who", "why", "will", "with", "via", "into", "are", "there", "their", "should", "would", "could", "used", "use", "using", "code", "file", "function", "method", "class"])


def query_terms(query: str) -> list[str]:
    """The query's distinct words, in order, without common English ones and short ones."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query):
        word = word.strip(".")
        if len(word) > 2 and word.lower() not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)


def terms_regex(terms: list[str]) -> str:
    return "|".join(re.escape(term) for term in terms)


def render_command(argv: list[str], fields: dict[str, Any]) -> list[str]:
    return [str(render(part, fields) or "") for part in argv]


def split_command(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise InputError(f"cannot parse MCP server command {command!r}: {err}") from None
    if not argv:
        raise InputError("mcp:stdio: needs a server command, e.g. 'mcp:stdio:my-mcp-server --stdio'")
    return argv
