"""Frozen records an index holds: chunks, inventory entries, symbol definitions, references.

They live apart from :mod:`codegold.index.store` so that the chunker can produce them
without importing SQLite code; ``store`` re-exports them as the public contract.
"""

from __future__ import annotations

import msgspec

from codegold.model import Chunk

CATEGORIES: tuple[str, ...] = (
    "source", "test", "config", "docs", "generated", "vendored", "migration", "binary", "other",
)
FATES: tuple[str, ...] = ("indexed", "excluded", "fallback", "skipped")
CHUNK_KINDS: tuple[str, ...] = (
    "function", "method", "class", "interface", "type", "module", "section", "config",
    "window", "pack", "variable", "macro", "object", "impl", "constant",
)


class IndexedChunk(msgspec.Struct, frozen=True, kw_only=True):
    """One chunk as stored in an index.

    ``start_line``/``end_line`` are 1-based and inclusive and name the lines the chunk
    covers in ``file``. ``text`` is those lines, preceded by the enclosing declarations'
    header lines when the chunk is a member (a method keeps its class header) or a later
    part of a split definition (the signature is repeated).
    """

    id: str
    file: str
    start_line: int
    end_line: int
    symbol: str | None
    symbols: tuple[str, ...]
    kind: str
    role: str
    language: str | None
    revision: str
    blob_sha: str
    parent_id: str | None
    prev_id: str | None
    next_id: str | None
    has_signature: bool
    text: str

    def to_chunk(self, *, score: float | None = None, excerpt_chars: int = 400) -> Chunk:
        """The ranked-chunk record an attempt carries (documented in docs/formats.md)."""
        return Chunk(
            chunk_id=self.id,
            file=self.file,
            symbol=self.symbol,
            symbols=self.symbols,
            role=self.role,
            revision=self.revision or None,
            score=score,
            start_line=self.start_line,
            end_line=self.end_line,
            language=self.language,
            excerpt=self.excerpt(excerpt_chars) if excerpt_chars > 0 else None,
        )

    def excerpt(self, chars: int = 400) -> str:
        """The chunk's own lines, ``start_line..end_line``, first: a member's or a later
        part's text starts with its containers' header lines, which in ``chars`` would hide
        the lines that matched. Their first line stays as context, marked ``…``."""
        lines = self.text.split("\n")
        own = self.end_line - self.start_line + 1
        if 0 < own < len(lines):
            context = next((line for line in lines[:len(lines) - own] if line.strip()), "")
            body = "\n".join(lines[len(lines) - own:])
            text = f"{context.rstrip()} …\n{body}" if context else body
        else:
            text = self.text
        return text[:chars]


class InventoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    """The fate of one path at the indexed revision (indexed, or why not)."""

    path: str
    blob_sha: str | None
    size: int | None
    language: str | None
    category: str
    fate: str
    reason: str | None
    chunker: str | None
    chunks: int


class SymbolDef(msgspec.Struct, frozen=True, kw_only=True):
    """Where a symbol is defined (``role`` is ``definition``, ``declaration`` or ``test``;
    ``config`` for a configuration key or table, ``docs`` for a heading).

    ``start_line..end_line`` is its span, leading doc comments, decorators, annotations
    and attributes included; ``header_line`` is its declaration line (the line naming
    it), which span resolution looks for inside a chunk; 0 when unknown (an index built
    before it was recorded).
    """

    name: str
    qualified: str
    kind: str
    role: str
    file: str
    start_line: int
    end_line: int
    chunk_id: str
    header_line: int = 0


class Reference(msgspec.Struct, frozen=True, kw_only=True):
    """A call site: the short name called, where, and the chunk holding that line."""

    name: str
    file: str
    line: int
    chunk_id: str


class FileChunks(msgspec.Struct, frozen=True, kw_only=True):
    """Everything chunking one file produced, including its inventory entry."""

    entry: InventoryEntry
    chunks: tuple[IndexedChunk, ...] = ()
    definitions: tuple[SymbolDef, ...] = ()
    references: tuple[Reference, ...] = ()
