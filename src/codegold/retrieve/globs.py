"""Path globs with ``**``: ``src/**`` matches everything under ``src/``; ``*`` stays in one folder.

A pattern without glob characters names a folder or file (``src/legacy/`` or
``src/legacy`` matches the folder and anything in it, not ``src/legacy_old.py``): filters
and category patterns speak of folders. Glob syntax is :mod:`codegold.model.paths`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from codegold.model.paths import glob_regex as path_glob_regex
from codegold.model.paths import is_glob


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(glob_regex(pattern) + r"\Z")


def glob_regex(pattern: str) -> str:
    """The regular expression (unanchored at the end) a glob or path prefix stands for."""
    if not is_glob(pattern):
        return re.escape(pattern.rstrip("/")) + "(?:/.*)?"
    return path_glob_regex(pattern)


def path_matches(path: str, pattern: str) -> bool:
    """True when ``path`` matches the glob, or lies under the prefix, ``pattern``."""
    if not is_glob(pattern):
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
