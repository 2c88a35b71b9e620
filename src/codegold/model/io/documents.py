"""A parsed document and the way back from a value (or an error path) to its line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


@dataclass
class LoadedDocument:
    """A parsed file plus what is needed to point back into it."""

    path: str
    data: Any
    lines: dict[int, int] = field(default_factory=dict)  # id(obj) -> 1-based line
    sha256: str = ""

    def line_of(self, obj: Any) -> int | None:
        if not isinstance(obj, (dict, list)):
            return None  # ids of small ints, None and interned strings are shared
        return self.lines.get(id(obj))


def walk_error_path(doc: LoadedDocument, root: Any, error_path: str) -> tuple[int | None, list[Any]]:
    """Follow ``$.a[1].b`` from ``root``; return the deepest known line and the objects met."""
    node = root
    met: list[Any] = [node]
    line = doc.line_of(node)
    for name, index in PATH_PART.findall(error_path):
        try:
            node = node[name] if name else node[int(index)]
        except (KeyError, IndexError, TypeError):
            break
        met.append(node)
        line = doc.line_of(node) or line
    return line, met


def kind_name(value: Any) -> str:
    names = {dict: "mapping", list: "list", str: "string", bool: "boolean", int: "integer",
             float: "number", type(None): "null"}
    return names.get(type(value), type(value).__name__)
