"""Metadata filters: language, path prefix, roles, exclude globs.

``exclude`` entries are path filters (gitignore style, :class:`~codegold.retrieve.globs.GlobSet`):
``src/legacy`` leaves out that folder, never ``src/legacy_old.py``. ``path_prefix`` is a
literal string prefix of the path.

Filters come from the retriever config and from a case's reliable context (the user's
language or folder); :meth:`Filters.merged` combines them, and the attempt records the
result as ``query.filters``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import msgspec

from codegold.index.store import IndexedChunk
from codegold.model.paths import PathPattern, PatternMode
from codegold.retrieve.config import FiltersConfig
from codegold.retrieve.globs import GlobSet


@lru_cache(maxsize=256)
def _exclude_set(patterns: tuple[str, ...]) -> GlobSet:
    return GlobSet(patterns)


class Filters(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    language: str | None = None
    path_prefix: str | None = None
    roles: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _exclude_set(self.exclude)  # a malformed exclude pattern fails here, not mid-query

    @classmethod
    def from_config(cls, config: FiltersConfig) -> Filters:
        return cls(language=config.language, path_prefix=config.path_prefix,
                   roles=tuple(config.roles), exclude=tuple(config.exclude))

    def merged(self, other: Filters) -> Filters:
        """``other`` (the request's) wins for single values; lists are joined."""
        return Filters(
            language=other.language or self.language,
            path_prefix=other.path_prefix or self.path_prefix,
            roles=tuple(dict.fromkeys([*self.roles, *other.roles])),
            exclude=tuple(dict.fromkeys([*self.exclude, *other.exclude])),
        )

    def accepts(self, chunk: IndexedChunk) -> bool:
        if self.language and (chunk.language or "").lower() != self.language.lower():
            return False
        if self.path_prefix and not PathPattern.of(self.path_prefix, PatternMode.PREFIX).matches(chunk.file):
            return False
        if self.roles and chunk.role not in self.roles:
            return False
        return not (self.exclude and _exclude_set(self.exclude).matches(chunk.file))

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Filters:
        return msgspec.convert(data, cls)
