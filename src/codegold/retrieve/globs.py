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
    return re.compile(glob_regex(pattern) + r"\Z")


def glob_regex(pattern: str) -> str:
    """The regular expression (unanchored at the end) a glob or path prefix stands for."""
    if not _GLOB_CHARS.intersection(pattern):
        return re.escape(pattern.rstrip("/")) + "(?:/.*)?"
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
    return "".join(out)


def path_matches(path: str, pattern: str) -> bool:
    """True when ``path`` matches the glob, or lies under the prefix, ``pattern``."""
    if not _GLOB_CHARS.intersection(pattern):
        prefix = pattern.rstrip("/")
        return path == prefix or path.startswith(prefix + "/")
    return _compile(pattern).match(path) is not None


def matches_any(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    return any(path_matches(path, p) for p in patterns)


class GlobSet:
    """Many globs compiled into one expression, with answers cached per path."""

    def __init__(self, patterns: tuple[str, ...] | list[str]) -> None:
        self.patterns = tuple(patterns)
        joined = "|".join(f"(?:{glob_regex(p)})" for p in self.patterns)
        self._regex = re.compile(f"(?:{joined})\\Z") if self.patterns else None
        self._cache: dict[str, bool] = {}

    def matches(self, path: str) -> bool:
        found = self._cache.get(path)
        if found is None:
            found = self._regex is not None and self._regex.match(path) is not None
            if len(self._cache) > 100_000:
                self._cache.clear()
            self._cache[path] = found
        return found
