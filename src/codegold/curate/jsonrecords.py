"""Reading the JSON record files curation takes in (logs, benchmark instances): bounded.

One reader for JSONL and JSON lists: a file that is not a regular file (a directory, a
device) is refused, the size is capped, nesting is capped and checked without recursion,
and an error names the line, never its content (a log line may hold a secret).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from codegold.errors import InputError
from codegold.model.io import MAX_DEPTH, MAX_JSON_BYTES, check_depth, read_bytes


def _decode(data: bytes, path: str, line: int | None, what: str) -> Any:
    try:
        value = msgspec.json.decode(data)
    except RecursionError:
        raise InputError(f"{what} is nested deeper than {MAX_DEPTH} levels", path=path,
                         line=line) from None
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _BAD
    check_depth(value, path, line)
    return value


_BAD = object()


def read_json_records(path: str | Path, what: str, *, item: str = "record",
                      limit: int = MAX_JSON_BYTES) -> list[tuple[int, Any]]:
    """``(line, value)`` of every record of a JSONL file or a JSON list (line 1 for a list)."""
    where = str(path)
    raw = read_bytes(path, what, limit=limit)
    text = raw.lstrip()
    if text[:1] == b"[":
        items = _decode(text, where, None, f"{what} file")
        if items is _BAD or not isinstance(items, list):
            raise InputError(f"{what} file starts like a JSON list but is not valid JSON",
                             path=where)
        return [(1, value) for value in items]
    records = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        value = _decode(line, where, number, f"{what} line")
        if value is _BAD:
            raise InputError(f"not a JSON object (expected one JSON {item} per line)",
                             path=where, line=number)
        records.append((number, value))
    return records
