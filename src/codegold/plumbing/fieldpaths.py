"""Dotted field paths into decoded JSON (``attributes.gen_ai.prompt.0.content``).

``--map FIELD=PATH`` options name where a field sits in a record of some foreign JSON
shape: keys separated by dots, list indices as numbers (negative counts from the end).
A path that leads nowhere gives None, never an error: records of one log differ.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from codegold.errors import InputError
from codegold.plumbing.numbers import number


def dig(record: Any, path: str) -> Any:
    """The value at dotted ``path`` in ``record``, or None when the path leads nowhere."""
    node = record
    for part in path.split("."):
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and (index := number(part, signed=True)) is not None:
            node = node[index] if -len(node) <= index < len(node) else None
        else:
            return None
    return node


def parse_field_map(items: Iterable[str], fields: Iterable[str], *,
                    example: str = "query=attributes.prompt") -> dict[str, str]:
    """``FIELD=dotted.path`` options as a dict; a field not in ``fields`` is an InputError."""
    known = list(fields)
    mapping = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not path.strip():
            raise InputError(f"{{map}} expects FIELD=PATH (e.g. {example}), found {item!r}",
                             settings=("map",))
        if name not in known:
            raise InputError(f"{{map}}: unknown field {name!r}; expected one of "
                             f"{', '.join(known)}", settings=("map",))
        mapping[name] = path.strip()
    return mapping
