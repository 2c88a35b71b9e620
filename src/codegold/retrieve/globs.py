"""Many path filters compiled into one expression, with answers cached per path.

Patterns follow the path-filter rule (:meth:`codegold.model.paths.PathPattern.path_filter`,
gitignore style): ``src/legacy`` or ``src/legacy/`` matches the folder and anything in
it, never ``src/legacy_old.py``; ``*.min.js`` matches at any depth; ``docs/**/*.md``
matches from the repository root.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from codegold.model.paths import PathPattern, normalize_path


class GlobSet:
    """A union of path filters; strings are read with :meth:`PathPattern.path_filter`.
    ``smart_case``: a pattern written all in lower case matches any case (``examples/**``
    also matches ``Examples/``), one with a capital matches exactly (``NEWS*`` is not
    ``news_feed.py``). For path categories, which guess what a folder holds; a case's
    own patterns stay exact.

    Raises :class:`~codegold.errors.InputError` for a malformed pattern when built.
    """

    def __init__(self, patterns: Iterable[str | PathPattern], *, smart_case: bool = False) -> None:
        self.patterns = tuple(p if isinstance(p, PathPattern) else PathPattern.path_filter(p)
                              for p in patterns)
        joined = "|".join(f"(?i:{p.regex})" if smart_case and p.text == p.text.lower()
                          else f"(?:{p.regex})" for p in self.patterns)
        self._regex = re.compile(joined, re.DOTALL) if self.patterns else None
        self._cache: dict[str, bool] = {}

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, path: str) -> bool:
        found = self._cache.get(path)
        if found is None:
            found = self._regex is not None and self._regex.match(normalize_path(path)) is not None
            if len(self._cache) > 100_000:
                self._cache.clear()
            self._cache[path] = found
        return found
