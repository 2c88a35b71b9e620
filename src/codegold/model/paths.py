"""Repository paths and path globs, one translation for every part.

Glob syntax: ``*`` and ``?`` stay inside one path segment, ``**`` spans segments
(``a/**/b`` also matches ``a/b``), ``[abc]`` and ``[!abc]`` are character classes.
Each part wraps the translated expression in its own anchoring: the scorer and the
retriever match whole paths, the index's path policy follows gitignore habits.
"""

from __future__ import annotations

import re

_GLOB_CHARS = frozenset("*?[")


def is_glob(pattern: str) -> bool:
    return not _GLOB_CHARS.isdisjoint(pattern)


def normalize_path(path: str) -> str:
    """Repository paths use ``/`` and never start with ``./``."""
    if path.startswith("./"):
        while path.startswith("./"):
            path = path[2:]
    if "\\" in path:
        path = path.replace("\\", "/")
    return path


def glob_regex(pattern: str) -> str:
    """The unanchored regular expression of a path glob."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            if pattern.startswith("**", i):
                i += 2
                if i < n and pattern[i] == "/":
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)
