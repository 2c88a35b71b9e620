"""An in-memory stand-in for IndexReader (the part diagnosis uses)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from codegold.evaluate.match import symbol_matches
from codegold.index.records import IndexedChunk, InventoryEntry, SymbolDef
from codegold.model import ChunkerInfo, Manifest
from runfactory import REV


def ichunk(cid: str, file: str, start: int, end: int, *, symbol: str | None = None,
           role: str = "definition", text: str = "") -> IndexedChunk:
    return IndexedChunk(id=cid, file=file, start_line=start, end_line=end, symbol=symbol,
                        symbols=(symbol,) if symbol else (), kind="function", role=role,
                        language="python", revision=REV, blob_sha="b" * 40, parent_id=None,
                        prev_id=None, next_id=None, has_signature=True, text=text)


def entry(path: str, fate: str = "indexed", reason: str | None = None, chunks: int = 1) -> InventoryEntry:
    return InventoryEntry(path=path, blob_sha="b" * 40, size=100, language="python",
                          category="source", fate=fate, reason=reason,
                          chunker="tree-sitter:python" if fate == "indexed" else None, chunks=chunks)


def sdef(qualified: str, file: str, start: int, end: int, chunk_id: str) -> SymbolDef:
    return SymbolDef(name=qualified.rsplit(".", 1)[-1], qualified=qualified, kind="function",
                     role="definition", file=file, start_line=start, end_line=end, chunk_id=chunk_id)


class FakeIndex:
    def __init__(self, chunks: Sequence[IndexedChunk], inventory: Sequence[InventoryEntry],
                 defs: Sequence[SymbolDef], revision: str = REV) -> None:
        self._chunks = list(chunks)
        self._inventory = {e.path: e for e in inventory}
        self._defs = list(defs)
        self._manifest = Manifest(repository="acme/shop", revision=revision, index_build_id="build-1",
                                  chunker=ChunkerInfo(name="codegold", version="1"), complete=True)

    @property
    def manifest(self) -> Manifest:
        return self._manifest

    def get(self, chunk_id: str) -> IndexedChunk | None:
        return next((c for c in self._chunks if c.id == chunk_id), None)

    def chunks_in_file(self, path: str) -> list[IndexedChunk]:
        return sorted((c for c in self._chunks if c.file == path), key=lambda c: c.start_line)

    def inventory(self, path: str) -> InventoryEntry | None:
        return self._inventory.get(path)

    def iter_inventory(self) -> Iterator[InventoryEntry]:
        return iter(sorted(self._inventory.values(), key=lambda e: e.path))

    def definitions(self, name: str) -> list[SymbolDef]:
        return [d for d in self._defs if symbol_matches(name, (d.qualified,)) or d.name == name]
