"""Looking into indexes without building one: an index's manifest, inventory and chunks
(:func:`inspect`), one file chunked outside any index (:func:`parse_file`), and a chunk
store's unused entries removed (:func:`collect_garbage`). Each returns typed records; the
CLI renders them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codegold.index import IndexReader, chunk_file
from codegold.index.build.redaction import redact_blob
from codegold.index.chunkstore import ChunkStore
from codegold.index.chunkstore import collect_garbage as _collect_garbage
from codegold.index.many import read_revisions
from codegold.index.records import FileChunks, IndexedChunk, InventoryEntry, SymbolDef
from codegold.model import Manifest
from codegold.model.io import MAX_LINE_BYTES, read_bytes


@dataclass(frozen=True)
class InspectRequest:
    """What to show of ``index``: a summary, or the chunks of a file and/or a symbol."""

    index: Path
    file: str | None = None  # a repository path whose inventory entry and chunks to show
    symbol: str | None = None  # a short, qualified or suffix name whose definitions to show


@dataclass(frozen=True)
class FileView:
    """One repository path in an index: ``entry`` is ``None`` when the revision's tree
    lacks it."""

    path: str
    entry: InventoryEntry | None
    chunks: tuple[IndexedChunk, ...]


@dataclass(frozen=True)
class DefinitionView:
    """One definition of a symbol and the chunk that holds it, if the index has it."""

    definition: SymbolDef
    chunk: IndexedChunk | None


@dataclass(frozen=True)
class Inspection:
    """What :func:`inspect` found. ``summary`` counts inventory entries by (fate,
    category), sorted, and is filled only when neither a file nor a symbol was asked for."""

    manifest: Manifest
    summary: tuple[tuple[str, str, int], ...] = ()
    file: FileView | None = None
    symbol: str | None = None
    definitions: tuple[DefinitionView, ...] = ()


def inspect(request: InspectRequest) -> Inspection:
    """Read an index's manifest and the summary, file or symbol ``request`` asks for."""
    with IndexReader.open(request.index) as reader:
        manifest = reader.manifest
        if request.file is None and request.symbol is None:
            counts: dict[tuple[str, str], int] = {}
            for entry in reader.iter_inventory():
                key = (entry.fate, entry.category)
                counts[key] = counts.get(key, 0) + 1
            return Inspection(manifest=manifest, summary=tuple(
                (fate, category, count) for (fate, category), count in sorted(counts.items())))
        file = None
        if request.file is not None:
            found = reader.inventory(request.file)
            chunks = tuple(reader.chunks_in_file(request.file)) if found is not None else ()
            file = FileView(path=request.file, entry=found, chunks=chunks)
        definitions: tuple[DefinitionView, ...] = ()
        if request.symbol is not None:
            definitions = tuple(DefinitionView(definition=d, chunk=reader.get(d.chunk_id))
                                for d in reader.definitions(request.symbol))
        return Inspection(manifest=manifest, file=file, symbol=request.symbol,
                          definitions=definitions)


def parse_file(file: Path, repo_path: str | None = None) -> FileChunks:
    """Chunk one file as an index build would (secret values redacted first), as the
    repository path ``repo_path`` (default: ``file`` as given)."""
    # Bounded (a device such as /dev/zero, or a huge file, is refused, never read whole
    # into memory); larger than an index build's default max_bytes, since this is where
    # one looks at how an outsized file chunks.
    data = read_bytes(file, "source", limit=MAX_LINE_BYTES)
    path = repo_path or file.as_posix()
    return chunk_file(path, redact_blob(path, data)[0])


@dataclass(frozen=True)
class GarbageRequest:
    """Remove the entries of chunk store ``store`` that no kept index uses."""

    store: Path
    indexes: tuple[Path, ...] = ()  # index folders kept (default: the folder holding store)
    keep_revisions: str | None = None  # FILE|SHA,SHA,...: keep only these commits' indexes
    dry_run: bool = False


@dataclass(frozen=True)
class Garbage:
    """What :func:`collect_garbage` removed (or, dry, would remove)."""

    kept: tuple[str, ...]  # the indexes whose entries were kept
    removed: int
    freed_bytes: int  # entries and notes
    notes_removed: int = 0  # notes of indexes not kept (a later build may start from a noted one)


def collect_garbage(request: GarbageRequest) -> Garbage:
    """Remove (or with ``dry_run`` count) chunk store entries no kept index uses."""
    chunks = ChunkStore.open_existing(request.store)
    folders = list(request.indexes) or [request.store.resolve().parent]
    keep = read_revisions(request.keep_revisions) if request.keep_revisions is not None else None
    kept, removed, notes, freed = _collect_garbage(chunks, folders, keep, dry_run=request.dry_run)
    return Garbage(kept=tuple(kept), removed=removed, freed_bytes=freed, notes_removed=notes)
