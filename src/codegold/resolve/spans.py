"""Resolve a returned chunk's file and line span against the index of the case's revision.

The rule (docs/concepts.md, "Span resolution"):

- the chunk's file must be indexed at that revision, else nothing is resolved
  (``not_indexed``) and the reported metadata is judged as it is;
- a definition is in the chunk when the chunk's span contains the definition's header
  line; a leaf definition (function, method, assignment, key, heading) also when its span
  covers at least half of the chunk's lines (:data:`HEADER_OVERLAP`); a container (class,
  module, namespace, table: any definition holding others) only when the chunk mostly
  lies in its head (the lines before its first member), never for lines inside one of
  its members; every definition of a name counts, so a name defined twice in one scope
  matches either; every kind the symbol table records counts (config keys, tables and
  headings included);
- the role is the file's category role (test, docs, config, generated, vendored,
  migration) when it has one, else ``definition`` (``declaration``, ``config`` or
  ``docs`` when every definition found has that role), else the role of the index chunk
  that overlaps the span most;
- the revision is the one the chunk reported; when it reported none, the index's
  revision when the chunk's excerpt agrees with the index's text there (``excerpt``), or
  when there is no excerpt to check (``assumed``); an excerpt that disagrees leaves the
  revision unknown, so the case is invalid rather than judged on the wrong text.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path

import msgspec

from codegold.index.catalog import IndexSet
from codegold.index.categories import CATEGORY_ROLES
from codegold.index.holding import HEADER_OVERLAP as HEADER_OVERLAP
from codegold.index.holding import Held, held_definitions, holding_rules
from codegold.index.holding import header_line as header_line
from codegold.index.holding import overlap as _overlap
from codegold.index.store import IndexedChunk, IndexReader, InventoryEntry, SymbolDef
from codegold.model import Attempt, Chunk, Resolution
from codegold.model.paths import normalize_path

_SHARED_ROLES = frozenset({"declaration", "config", "docs"})
_EXCERPT_LINES = 6
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class _FileFacts:
    entry: InventoryEntry
    definitions: tuple[SymbolDef, ...]
    chunks: tuple[IndexedChunk, ...]
    rules: tuple[Held, ...] = ()


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


class SpanResolver:
    """Resolves chunks against one index; safe to share between threads."""

    def __init__(self, reader: IndexReader) -> None:
        self.reader = reader
        self.revision = reader.manifest.revision or ""
        # path -> what the index holds for it, or why it holds nothing (read once per path)
        self._files: dict[str, _FileFacts | str] = {}
        self._lock = threading.Lock()

    def _facts(self, path: str) -> _FileFacts | str:
        """The file's facts, or the reason the index has none for it."""
        with self._lock:
            if path in self._files:
                return self._files[path]
            entry = self.reader.inventory(path)
            facts: _FileFacts | str
            if entry is None:
                facts = f"{path} is not in the index of {self.revision[:12]}"
            elif entry.fate not in ("indexed", "fallback"):
                facts = (f"{path} was {entry.fate} at {self.revision[:12]}"
                         + (f" ({entry.reason})" if entry.reason else ""))
            else:
                definitions = tuple(self.reader.definitions_in_file(path))
                facts = _FileFacts(entry=entry, definitions=definitions,
                                   chunks=tuple(self.reader.chunks_in_file(path)),
                                   rules=holding_rules(definitions))
            self._files[path] = facts
            return facts

    def resolve(self, chunk: Chunk) -> Chunk:
        """``chunk`` with :attr:`Chunk.resolved` filled in."""
        return msgspec.structs.replace(chunk, resolved=self.resolution(chunk))

    def resolution(self, chunk: Chunk) -> Resolution:
        path = normalize_path(chunk.file)
        facts = self._facts(path)
        if isinstance(facts, str):
            return Resolution(rule="not_indexed", note=facts)
        category_role = CATEGORY_ROLES.get(facts.entry.category)
        if chunk.start_line is None or chunk.end_line is None:
            revision, source, note = self._revision(chunk, None)
            return Resolution(rule="no_span", role=category_role or chunk.role, revision=revision,
                              revision_from=source, note=note)
        start = max(1, chunk.start_line)
        end = max(start, chunk.end_line)
        found = held_definitions(facts.rules, start, end)
        symbols = tuple(dict.fromkeys(d.qualified for d in found))
        roles = {d.role for d in found}
        if category_role is not None:
            role = category_role
        elif found:
            role = roles.pop() if len(roles) == 1 and roles <= _SHARED_ROLES else "definition"
        else:
            role = self._chunk_role(facts, start, end)
        revision, source, note = self._revision(chunk, (facts, start, end))
        return Resolution(rule="span" if found else "category", symbols=symbols, role=role,
                          revision=revision, revision_from=source, note=note)

    @staticmethod
    def _chunk_role(facts: _FileFacts, start: int, end: int) -> str:
        """The role of the index chunk sharing most lines with the span (the narrower on a tie)."""
        best: tuple[int, int] | None = None
        role = "reference"
        for indexed in facts.chunks:
            shared = _overlap(start, end, indexed.start_line, indexed.end_line)
            key = (shared, indexed.start_line - indexed.end_line)
            if shared and (best is None or key > best):
                best, role = key, indexed.role
        return role

    def _revision(self, chunk: Chunk, span: tuple[_FileFacts, int, int] | None
                  ) -> tuple[str | None, str, str | None]:
        if chunk.revision is not None:
            return None, "reported", None
        if not chunk.excerpt or span is None:
            return self.revision or None, "assumed", None
        facts, start, end = span
        text = _squash("\n".join(c.text for c in facts.chunks
                                 if _overlap(start - 3, end + 3, c.start_line, c.end_line)))
        lines = [_squash(line) for line in chunk.excerpt.splitlines()]
        lines = [line.rstrip("…").strip() for line in lines if len(line.strip()) >= 3]
        checked = lines[:_EXCERPT_LINES]
        if not checked:
            return self.revision or None, "assumed", None
        agree = sum(1 for line in checked if line in text)
        if agree * 5 >= len(checked) * 4:  # at least 80 % of the checked lines
            return self.revision or None, "excerpt", None
        return None, "excerpt", (f"the excerpt does not match lines {start}-{end} of "
                                 f"{chunk.file} at {self.revision[:12]}")


def resolve_attempt(attempt: Attempt, resolver: SpanResolver) -> Attempt:
    """``attempt`` with every ranked chunk and candidate resolved."""
    if attempt.error is not None:
        return attempt
    ranked = [resolver.resolve(chunk) for chunk in attempt.ranked]
    candidates = (None if attempt.candidates is None
                  else [resolver.resolve(chunk) for chunk in attempt.candidates])
    return msgspec.structs.replace(attempt, ranked=ranked, candidates=candidates)


class AttemptResolver:
    """Resolvers for every revision of an index folder, opened on first use.

    Use as a context manager (or call :meth:`close`): it holds open index readers.
    """

    def __init__(self, indexes: IndexSet) -> None:
        self.indexes = indexes
        self._resolvers: dict[str, SpanResolver | None] = {}
        self._lock = threading.Lock()
        self.unresolved: dict[str, int] = {}  # revision without an index -> attempts left as reported

    @classmethod
    def from_path(cls, path: str | Path) -> AttemptResolver:
        return cls(IndexSet.from_path(path))

    def for_revision(self, revision: str) -> SpanResolver | None:
        with self._lock:
            if revision not in self._resolvers:
                index_dir = self.indexes.for_revision(revision)
                self._resolvers[revision] = (None if index_dir is None
                                             else SpanResolver(IndexReader.open(index_dir)))
            return self._resolvers[revision]

    def resolve(self, attempt: Attempt, revision: str) -> Attempt:
        """Resolve against the index of ``revision``; unchanged when there is none."""
        resolver = self.for_revision(revision)
        if resolver is None:
            with self._lock:
                self.unresolved[revision] = self.unresolved.get(revision, 0) + 1
            return attempt
        return resolve_attempt(attempt, resolver)

    def close(self) -> None:
        with self._lock:
            for resolver in self._resolvers.values():
                if resolver is not None:
                    resolver.reader.close()
            self._resolvers.clear()

    def __enter__(self) -> AttemptResolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
