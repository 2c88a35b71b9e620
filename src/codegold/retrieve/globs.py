"""Path globs with ``**``: ``src/**`` matches everything under ``src/``; ``*`` stays in one folder.

A pattern without glob characters is a path prefix (``src/legacy/`` or ``src/legacy``
matches the folder and anything in it), the way forbidden paths are written in cases.
"""

from __future__ import annotations

import re
from functools import lru_cache

_GLOB_CHARS = frozenset("*?[")


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(char))
            i += 1
    return re.compile("".join(out) + r"\Z")


def path_matches(path: str, pattern: str) -> bool:
    """True when ``path`` matches the glob, or lies under the prefix, ``pattern``."""
    if not _GLOB_CHARS.intersection(pattern):
        prefix = pattern.rstrip("/")
        return path == prefix or path.startswith(prefix + "/")
    return _compile(pattern).match(path) is not None


def matches_any(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    return any(path_matches(path, p) for p in patterns)
