"""The bounds every untrusted input is read under, and the nesting check.

A file read whole may hold at most :data:`MAX_JSON_BYTES` (JSON/JSONL) or
:data:`MAX_YAML_BYTES` (YAML), one streamed JSONL line at most :data:`MAX_LINE_BYTES`,
nesting at most :data:`MAX_DEPTH` levels, and YAML aliases may add at most
:data:`MAX_ALIAS_NODES` nodes to a document. Each limit breached is a SchemaError naming
the file, never a traceback.
"""

from __future__ import annotations

from typing import Any

from codegold.errors import SchemaError

MAX_DEPTH = 100
"""Deepest nesting of lists and mappings accepted in any input document."""
MAX_ALIAS_NODES = 100_000
"""Nodes YAML aliases may add to one document (each use counts its anchor's whole subtree)."""
MAX_YAML_BYTES = 16 * 1024**2
"""Largest YAML file read (YAML parsing is slow and memory-hungry; use JSON beyond this)."""
MAX_JSON_BYTES = 256 * 1024**2
"""Largest JSON or JSONL file read whole (attempts files are streamed and not bound by it)."""
MAX_LINE_BYTES = 64 * 1024**2
"""Longest single line of a streamed JSONL file (one attempt)."""


def check_depth(data: Any, path: str, line: int | None = None, *, start: int = 1) -> None:
    """Refuse lists/mappings nested deeper than :data:`MAX_DEPTH` (checked without
    recursion); ``start`` is the depth ``data`` itself sits at in its document."""
    stack: list[tuple[Any, int]] = [(data, start)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > MAX_DEPTH:
            raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=path, line=line)
        stack.extend((child, depth + 1) for child in children)
