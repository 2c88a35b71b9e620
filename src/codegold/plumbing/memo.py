"""A bounded memo for hot loops: a dict that fills a missing key by calling a function."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class MissCache(dict[K, V]):
    """``key → make(key)``, made on first lookup. Look it up through the dict's own
    ``__getitem__`` (``map(cache.__getitem__, keys)``): a hit never leaves C, which an
    ``lru_cache`` call does not match in a loop run once per word of a repository. It is
    cleared when it holds ``limit`` keys, so memory stays bounded on any input."""

    __slots__ = ("_limit", "_make")

    def __init__(self, make: Callable[[K], V], limit: int) -> None:
        super().__init__()
        self._make = make
        self._limit = limit

    def __missing__(self, key: K) -> V:
        if len(self) >= self._limit:
            self.clear()
        value = self[key] = self._make(key)
        return value


__all__ = ["MissCache"]
