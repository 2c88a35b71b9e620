"""Decoding untrusted JSON: nesting bounded, msgspec's errors located by line, and a
key given twice in one object refused."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from codegold.errors import SchemaError
from codegold.model.io.limits import MAX_DEPTH, check_depth
from codegold.model.io.messages import split_validation_error

_BYTE_OFFSET = re.compile(r"\(byte (\d+)\)")


def decode_json(raw: bytes, type_: Any = Any, *, path: str, line: int | None = None,
                untyped: Callable[[Any], Iterable[tuple[Any, int]]] | None = None) -> Any:
    """``raw`` decoded (into ``type_``) with nesting bounded by :data:`MAX_DEPTH`: the one
    way untrusted JSON enters (files, retriever answers, lines of a stream).

    A typed decode is bounded by its type, except where the type says ``Any``:
    ``untyped(value)`` names those parts as ``(part, depth at which it sits)`` and each is
    checked; an untyped decode is checked whole. Invalid JSON, a value that does not fit
    ``type_`` and nesting too deep are each a SchemaError naming ``path`` (and ``line``).
    """
    try:
        value = msgspec.json.decode(raw, type=type_)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as err:
        raise json_error(err, raw, path, line) from None
    if type_ is Any:
        # No value nests deeper than the brackets its text opens (those in strings count
        # too): a short line, a case or a chunk, needs no walk.
        if raw.count(b"{") + raw.count(b"[") > MAX_DEPTH:
            check_depth(value, path, line)
    elif untyped is not None:
        for part, depth in untyped(value):
            check_depth(part, path, line, start=depth)
    return value


def json_error(err: Exception, raw: bytes, path: str, line: int | None = None) -> SchemaError:
    if isinstance(err, RecursionError):
        return SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=path, line=line)
    message = str(err)
    if line is None:
        offset = _BYTE_OFFSET.search(message)
        if offset:
            line = raw.count(b"\n", 0, int(offset.group(1))) + 1
    if isinstance(err, msgspec.ValidationError):  # "Number out of range" and the like
        text, _ = split_validation_error(message)
        return SchemaError(f"invalid JSON value: {text}", path=path, line=line)
    return SchemaError(f"invalid JSON: {message}", path=path, line=line)


_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _duplicate_line(raw: bytes) -> int | None:
    """The line of the first key repeated within one JSON object (only on error: slow)."""
    stack: list[set[bytes] | None] = []
    expect_key = False
    for match in _JSON_TOKEN.finditer(raw):
        token = match.group()
        if token == b"{":
            stack.append(set())
            expect_key = True
        elif token == b"[":
            stack.append(None)
        elif token in (b"}", b"]"):
            if stack:
                stack.pop()
        elif token == b",":
            expect_key = bool(stack) and stack[-1] is not None
        elif token == b":":
            expect_key = False
        elif expect_key and stack and (keys := stack[-1]) is not None:
            if token in keys:
                return raw.count(b"\n", 0, match.start()) + 1
            keys.add(token)
            expect_key = False
    return None


def _key_count(data: Any) -> int:
    """How many mapping keys ``data`` (decoded JSON) holds, nested ones included. Only
    mappings and lists are visited (decoded JSON holds no subclasses of them, so a type
    check by identity will do); the depth is bounded where JSON is decoded."""
    values: Iterable[Any]
    if type(data) is dict:
        count = len(data)
        values = data.values()
    elif type(data) is list:
        count, values = 0, data
    else:
        return 0
    for value in values:
        kind = type(value)
        if kind is dict or kind is list:
            count += _key_count(value)
    return count


_NOT_GIVEN: Any = object()


def refuse_duplicate_keys(raw: bytes, path: str, line: int | None = None, *,
                          decoded: Any = _NOT_GIVEN) -> None:
    """A key given twice in one JSON object is a SchemaError naming it: JSON parsers keep
    the last value silently, so a second ``"forbidden": []`` would empty the first (YAML
    is refused the same way while loading). ``raw`` must already decode.

    ``decoded``, when given, is ``raw`` decoded: when ``raw`` holds no more colons than
    ``decoded`` holds keys, no key repeats and ``raw`` is not parsed again. (Every key of
    ``raw`` is followed by a colon, and a repeated key is one key fewer once decoded; a
    colon inside a string only sends the line to the full check.)"""
    if decoded is not _NOT_GIVEN and raw.count(b":") <= _key_count(decoded):
        return
    import json

    try:
        json.loads(raw, object_pairs_hook=_no_duplicates)
    except _DuplicateKey as err:
        where = _duplicate_line(raw)
        at = where if line is None else line + (where or 1) - 1
        raise SchemaError(f"duplicate key {err.key!r} in one mapping", path=path,
                          line=at) from None
    except (ValueError, RecursionError):
        return  # msgspec decoded it already; its rules decide
