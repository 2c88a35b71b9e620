"""A content-addressed store of chunking results, shared by every revision of a repository.

Chunking one file depends only on its bytes (named by the git blob sha), its path (which
decides language and category) and the chunker (:data:`CHUNKER_VERSION`, a fingerprint of
every module and grammar that shapes chunks). A store entry is keyed by those three, so
building revision B after revision A parses only the blobs that changed between them.

Layout (``format`` 1, documented in docs/scale.md)::

    STORE/chunkstore.json           {"format": 1, "kind": "codegold-chunkstore"}
    STORE/ab/abcdef....entry        one entry: a digest line, then msgpack(StoredFile)
    STORE/ab/abcdef....NAME         a side file of that entry: what a later stage derived
                                    from it (``lexical-…``: its BM25 documents)
    STORE/indexed/<name>.json       an index built with the store (:class:`IndexedRevision`):
                                    a later revision derives its BM25 caches from the
                                    nearest one's

The first line of an entry (and of a side file) is the sha256 of the rest; one whose
digest does not match (a damaged or edited file) is reported as missing and rewritten by
the next build.
Entries are written through a temporary sibling and a rename, so concurrent builds that
share a store at worst write the same entry twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from codegold.errors import InputError
from codegold.index.chunker import CHUNKER_VERSION
from codegold.index.records import FileChunks
from codegold.plumbing.outputs import (
    cache_folder,
    read_cache_file,
    write_bytes_atomic,
    write_cache_file,
)

# An entry larger than this is not one the chunker wrote (files above the path policy's
# size limit are never chunked); reading it would only cost memory.
MAX_ENTRY_BYTES = 256 * 1024 * 1024

CHUNKSTORE_FORMAT = 1
MARKER_FILE = "chunkstore.json"
DEFAULT_STORE_NAME = ".chunkstore"
_KIND = "codegold-chunkstore"
_SUFFIX = ".entry"
_SIDE_NAME = re.compile(r"[a-z][a-z0-9-]{0,63}")
_MARKER = (json.dumps({"format": CHUNKSTORE_FORMAT, "kind": _KIND}) + "\n").encode()



class StoredFile(msgspec.Struct, frozen=True, array_like=True):
    """One store entry: a file's chunking result, each chunk's lexical token fields
    (symbols, path, body), which cost about as much to compute again as the parse, and
    the SHA-256 of the index rows they make (``store.rows_digest``: what a build keys
    into each file's reuse digest; empty in entries written before it was kept, and
    then made again by the build)."""

    result: FileChunks
    tokens: tuple[tuple[str, str, str], ...]
    digest: bytes = b""


class IndexedRevision(msgspec.Struct, frozen=True, kw_only=True):
    """``STORE/indexed/<name>.json``: an index built with this store whose lexical caches
    a later revision may start from: its folder (absolute), commit, build id, chunker
    version, and the blob of each file that has chunks (to find the nearest one)."""

    format: int = 1
    index: str
    revision: str
    build: str
    chunker_version: str
    files: dict[str, str]


# Indexes a new revision compares itself with (the most recently noted): enough for a
# history built in order or a handful of branches, and a bounded cost per revision.
MAX_INDEXED_CANDIDATES = 32
# Indexes built with one ChunkStore object that it remembers (each with its files).
_MAX_BUILT = 4
MAX_RECORD_BYTES = 64 * 1024 * 1024
INDEXED_FOLDER = "indexed"
_record_encoder = msgspec.json.Encoder()
_record_decoder = msgspec.json.Decoder(IndexedRevision)
_decoder = msgspec.msgpack.Decoder(StoredFile)
_encoder = msgspec.msgpack.Encoder()


def encode_stored(stored: StoredFile) -> bytes:
    """The msgpack form of ``stored``: a store entry's payload (and how build workers
    hand results to the parent, which then stores them without encoding again)."""
    return _encoder.encode(stored)


def decode_stored(payload: bytes) -> StoredFile:
    """The inverse of :func:`encode_stored` for payloads this codegold encoded."""
    return _decoder.decode(payload)


def entry_key(path: str, blob_sha: str, chunker_version: str = CHUNKER_VERSION) -> str:
    """The store key of chunking ``path`` with blob ``blob_sha`` by ``chunker_version``."""
    raw = "\0".join((chunker_version, path, blob_sha)).encode("utf-8", "surrogateescape")
    return hashlib.sha256(raw).hexdigest()


def default_store(folder: Path) -> Path:
    """The store used for indexes built into ``folder`` when none is named."""
    return folder / DEFAULT_STORE_NAME


class ChunkStore:
    """Read and write chunking results under one store folder (see the module doc).

    Counters ``hits``, ``misses``, ``corrupt`` and ``unwritten`` say what this object
    found since it was opened; ``built`` lists the indexes built with it, newest last
    (:meth:`note_built`). Entries are only ever regular files in real shard folders:
    a symbolic link or other file planted in the store is treated as a damaged entry,
    never followed, and replaced (the link itself, not what it points to).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hits = 0
        self.misses = 0
        self.corrupt = 0
        self.unwritten = 0
        self.built: list[tuple[str, dict[str, str]]] = []

    def note_built(self, index: Path, blobs: dict[str, str]) -> None:
        """Note that ``index`` (path → blob of its files in ``blobs``) was just built with
        this object, so the next build with it may start from that index: its note in
        the store (:meth:`record_index`) comes only once its caches do, after every
        revision of a many-revision build."""
        here = str(index.resolve())
        self.built = [item for item in self.built if item[0] != here][-(_MAX_BUILT - 1):]
        self.built.append((here, blobs))

    @classmethod
    def open(cls, root: str | Path) -> ChunkStore:
        """Open (creating when absent or empty) the store at ``root``.

        A folder that holds other files and no ``chunkstore.json`` is refused: the store
        never writes into (and ``gc`` never deletes from) a folder that is not one.
        """
        path = Path(root)
        marker = path / MARKER_FILE
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            raise InputError("{store} is not a folder: expected a chunk store folder "
                             "(absent, empty, or made by codegold)", path=str(path),
                             settings=("store",))
        if path.is_dir():
            if marker.is_file() and not marker.is_symlink():
                try:
                    found = json.loads(marker.read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError, ValueError) as err:
                    raise InputError(f"cannot read {MARKER_FILE}: {err}; expected "
                                     f"{_MARKER.decode().strip()}", path=str(marker)) from err
                if not isinstance(found, dict) or found.get("kind") != _KIND:
                    raise InputError(f"{MARKER_FILE} is not a codegold chunk store marker; "
                                     f"expected {_MARKER.decode().strip()}", path=str(marker))
                if found.get("format") != CHUNKSTORE_FORMAT:
                    raise InputError(f"chunk store format {found.get('format')!r}; this "
                                     f"codegold uses format {CHUNKSTORE_FORMAT}: remove the "
                                     "store folder or name another with {store}",
                                     path=str(path), settings=("store",))
                return cls(path)
            try:
                if any(path.iterdir()):
                    raise InputError(f"{{store}} names a folder that is not a chunk store (it "
                                     f"has files and no {MARKER_FILE}); name an absent or "
                                     "empty folder", path=str(path), settings=("store",))
            except OSError as err:
                raise InputError(f"cannot read the store folder: {err.strerror}",
                                 path=str(path)) from err
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(f"cannot create the store folder: {err.strerror}",
                             path=str(path)) from err
        write_bytes_atomic(marker, _MARKER)
        return cls(path)

    @classmethod
    def open_existing(cls, root: str | Path) -> ChunkStore:
        """Open the store at ``root``; InputError unless it exists with its marker."""
        path = Path(root)
        marker = path / MARKER_FILE
        if not path.is_dir() or path.is_symlink() or not marker.is_file():
            raise InputError(f"no chunk store here: expected a folder with {MARKER_FILE} "
                             "(made by `codegold index --store` or {revisions})",
                             path=str(path), settings=("revisions",))
        return cls.open(path)

    def _file(self, key: str) -> tuple[str, str]:
        """The shard folder and the entry file of ``key`` (strings: a build asks for
        every file of a revision, and Path objects would cost more than the lookup)."""
        shard = os.path.join(self.root, key[:2])
        return shard, os.path.join(shard, key + _SUFFIX)

    def has(self, path: str, blob_sha: str) -> bool:
        """Whether an entry file exists (its content is checked only by :meth:`get`)."""
        return _is_entry(*self._file(entry_key(path, blob_sha)))

    def get(self, path: str, blob_sha: str) -> StoredFile | None:
        """The stored result for ``path`` at ``blob_sha``, or None when absent or damaged."""
        shard, file = self._file(entry_key(path, blob_sha))
        if not _is_entry(shard, file):
            self.misses += 1
            return None
        raw = _read_entry(file)
        if raw is None:
            self.corrupt += 1
            return None
        result = _decode(raw)
        if result is None or not _belongs(result, path, blob_sha):
            self.corrupt += 1
            return None
        self.hits += 1
        return result

    def put(self, result: FileChunks, tokens: Iterable[tuple[str, str, str]]) -> None:
        """Store ``result`` (its entry names path and blob sha) and its chunks' token
        fields atomically (see :meth:`put_encoded`)."""
        if result.entry.blob_sha:
            self.put_encoded(result.entry.path, result.entry.blob_sha,
                             encode_stored(StoredFile(result, tuple(tokens))))

    def put_encoded(self, path: str, blob_sha: str, payload: bytes) -> None:
        """Store an entry already encoded with :func:`encode_stored`, atomically.

        A store that cannot be written (no space, no permission, a planted folder where
        the entry goes) costs only the reuse: the entry is counted in ``unwritten`` and
        the build goes on.
        """
        if not blob_sha:
            return
        self._write(*self._file(entry_key(path, blob_sha)), payload)

    def get_side(self, path: str, blob_sha: str, name: str,
                 chunker_version: str = CHUNKER_VERSION) -> bytes | None:
        """The side file ``name`` of the entry of ``path`` at ``blob_sha`` (what a later
        stage derived from that file's chunks, say its BM25 documents), or None when it
        is absent or damaged. The entry itself need not exist."""
        shard, file = self._side(path, blob_sha, name, chunker_version)
        if not _is_entry(shard, file):
            return None
        raw = _read_entry(file)
        if raw is None:
            return None
        head, sep, payload = raw.partition(b"\n")
        if not sep or hashlib.sha256(payload).hexdigest().encode() != head:
            return None
        return payload

    def put_side(self, path: str, blob_sha: str, name: str, payload: bytes,
                 chunker_version: str = CHUNKER_VERSION) -> None:
        """Write the side file ``name`` of the entry of ``path`` at ``blob_sha``
        atomically; a store that cannot be written only loses it (``unwritten``)."""
        shard, file = self._side(path, blob_sha, name, chunker_version)
        self._write(shard, file, payload)

    def _side(self, path: str, blob_sha: str, name: str,
              chunker_version: str) -> tuple[str, str]:
        if not _SIDE_NAME.fullmatch(name) or name == _SUFFIX[1:]:
            raise ValueError(f"side file name {name!r}: expected lower-case letters, digits "
                             "and dashes, not 'entry'")
        shard, file = self._file(entry_key(path, blob_sha, chunker_version))
        return shard, file[:-len(_SUFFIX)] + "." + name

    def _write(self, shard: str, file: str, payload: bytes) -> None:
        digest = hashlib.sha256(payload).hexdigest().encode()
        try:
            if not os.path.isdir(shard) or os.path.islink(shard):
                cache_folder(self.root, os.path.basename(shard))
            # replaces a planted link itself, never its target
            write_cache_file(file, (digest, b"\n", payload))
        except OSError:
            self.unwritten += 1

    def entries(self) -> Iterator[tuple[str, Path]]:
        """Every entry file in the store, as (key, file)."""
        for key, file, side in self._files():
            if not side:
                yield key, file

    def _files(self) -> Iterator[tuple[str, Path, bool]]:
        """Every entry and side file in the store, as (key, file, whether a side file)."""
        for shard in sorted(self.root.iterdir()):
            if len(shard.name) != 2 or not shard.is_dir() or shard.is_symlink():
                continue
            for file in sorted(shard.iterdir()):
                if file.name.endswith(_SUFFIX):
                    yield file.name[:-len(_SUFFIX)], file, False
                else:
                    key, dot, name = file.name.partition(".")
                    if dot and len(key) == 64 and _SIDE_NAME.fullmatch(name):
                        yield key, file, True

    def gc(self, keep: Iterable[str], *, dry_run: bool = False) -> tuple[int, int]:
        """Remove every entry whose key is not in ``keep``, with its side files (and
        stray temporary files).

        Returns (entries removed, bytes freed, side files included); with ``dry_run``
        nothing is removed.
        """
        kept = set(keep)
        removed = freed = 0
        for key, file, side in list(self._files()):
            if key in kept:
                continue
            size = _remove(file, dry_run)
            if size is None:
                continue
            removed += 0 if side else 1
            freed += size
        if not dry_run:
            for shard in self.root.iterdir():
                if len(shard.name) == 2 and shard.is_dir() and not shard.is_symlink():
                    for stray in shard.glob(".codegold-*.tmp"):
                        stray.unlink(missing_ok=True)
                    with contextlib.suppress(OSError):
                        shard.rmdir()  # only when empty
        return removed, freed

    def size_bytes(self) -> int:
        """Bytes the entries and their side files take (file sizes, not blocks)."""
        total = 0
        for _, file, _ in self._files():
            try:
                total += file.stat().st_size
            except OSError:
                continue
        return total


    # --- the indexes built with this store, for deriving a later revision's caches ------

    def record_index(self, record: IndexedRevision) -> None:
        """Note that the index at ``record.index`` (its caches complete) was built with this
        store, so a later revision can derive its lexical caches from the nearest one
        (:meth:`indexed`). A store that cannot be written only loses the note."""
        try:
            folder = cache_folder(self.root, INDEXED_FOLDER)
            write_cache_file(folder / _note_name(record.index), _record_encoder.encode(record))
        except OSError:
            self.unwritten += 1

    def prune_indexed(self, keep: Iterable[Path], *, dry_run: bool = False) -> tuple[int, int]:
        """Remove the notes (:meth:`record_index`) of every index but ``keep``'s: the
        index a note names was left out of a ``gc`` (its entries go) or is gone. A note
        holds each file's blob, so one per build of a large repository adds up.

        Returns (notes removed, bytes freed); with ``dry_run`` nothing is removed."""
        kept = {_note_name(str(index.resolve())) for index in keep}
        folder = self.root / INDEXED_FOLDER
        if folder.is_symlink() or not folder.is_dir():
            return 0, 0
        removed = freed = 0
        for file in sorted(folder.iterdir()):
            size = None if file.name in kept else _remove(file, dry_run)
            if size is not None:
                removed += 1
                freed += size
        return removed, freed

    def indexed(self, limit: int = MAX_INDEXED_CANDIDATES) -> list[IndexedRevision]:
        """The ``limit`` most recently noted indexes (:meth:`record_index`), newest first;
        a note that does not decode is left out (the index it named is only not reused)."""
        folder = self.root / INDEXED_FOLDER
        try:
            if folder.is_symlink() or not folder.is_dir():
                return []
            found = []
            for file in folder.iterdir():
                if file.suffix == ".json" and not file.is_symlink():
                    with contextlib.suppress(OSError):
                        found.append((file.stat().st_mtime_ns, file.name, file))
        except OSError:
            return []
        records = []
        for _, _, file in sorted(found, reverse=True)[:limit]:
            with contextlib.suppress(OSError, msgspec.DecodeError, msgspec.ValidationError):
                records.append(_record_decoder.decode(read_cache_file(
                    file, limit=MAX_RECORD_BYTES)))
        return records


def _remove(file: Path, dry_run: bool) -> int | None:
    """Remove ``file`` (a link itself, never what it points to), or only measure it when
    ``dry_run``: the bytes it took, None when it could not be."""
    try:
        size = file.lstat().st_size
        if not dry_run:
            file.unlink()
    except OSError:
        return None
    return size


def _note_name(index: str) -> str:
    """The file name of the note of the index at absolute folder ``index``."""
    return hashlib.sha256(index.encode("utf-8", "surrogateescape")).hexdigest()[:24] + ".json"


def _is_entry(shard: str, file: str) -> bool:
    """A regular file in a real shard folder (a planted link is never an entry)."""
    try:
        return stat.S_ISDIR(os.lstat(shard).st_mode) and stat.S_ISREG(os.lstat(file).st_mode)
    except OSError:
        return False


def _read_entry(file: str) -> bytes | None:
    """The bytes of an entry or side file, or None when it cannot be read or is larger
    than any the store writes."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            # sized to the file: a read of the cap allocates (and frees) the whole cap
            size = min(os.fstat(handle.fileno()).st_size, MAX_ENTRY_BYTES)
            raw = handle.read(size + 1)
    except OSError:
        return None
    return raw if len(raw) <= MAX_ENTRY_BYTES else None


def _belongs(stored: StoredFile, path: str, blob_sha: str) -> bool:
    result = stored.result
    return (result.entry.path == path and result.entry.blob_sha == blob_sha
            and len(stored.tokens) == len(result.chunks)
            and all(chunk.file == path for chunk in result.chunks))


def _decode(raw: bytes) -> StoredFile | None:
    head, sep, payload = raw.partition(b"\n")
    if not sep or len(head) != 64:
        return None
    if hashlib.sha256(payload).hexdigest().encode() != head:
        return None
    try:
        return _decoder.decode(payload)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def used_keys(index_dir: Path) -> set[str]:
    """Store keys of every file an index holds (its inventory, under its chunker version)."""
    from codegold.index.store import IndexReader

    with IndexReader.open(index_dir) as reader:
        version = reader.meta("chunker_version") or ""
        return {entry_key(entry.path, entry.blob_sha, version)
                for entry in reader.iter_inventory() if entry.blob_sha}


def collect_garbage(store: ChunkStore, index_folders: Iterable[Path],
                    keep_revisions: Iterable[str] | None = None, *,
                    dry_run: bool = False) -> tuple[list[str], int, int, int]:
    """Remove store entries that no kept index uses, and the notes of indexes not kept.

    Kept indexes are the complete ones in ``index_folders`` (an index directory or a
    folder of them), only those whose commit starts with one of ``keep_revisions`` when
    that is given. Returns (kept commits, entries removed, notes removed, bytes freed,
    notes included). A kept revision
    that matches no index, or no index kept at all, is an InputError: gc never empties a
    store by mistake.
    """
    from codegold.index.catalog import IndexSet

    found: dict[str, Path] = {}
    for folder in index_folders:
        found.update(IndexSet.from_path(folder).by_revision)
    if keep_revisions is not None:
        wanted = list(keep_revisions)
        chosen: dict[str, Path] = {}
        for revision in wanted:
            matches = [commit for commit in found if commit.startswith(revision.lower())]
            if len(matches) != 1:
                raise InputError(f"{{keep_revisions}} {revision}: expected a commit sha (or "
                                 f"unique prefix) of one index found, matched {len(matches)}; "
                                 f"indexes found: {', '.join(c[:12] for c in sorted(found))}",
                                 settings=("keep_revisions",))
            chosen[matches[0]] = found[matches[0]]
        found = chosen
    if not found:
        raise InputError("gc keeps no index, so it would empty the store; name the indexes "
                         "to keep with {indexes}, or remove the store folder yourself",
                         path=str(store.root), settings=("indexes",))
    keep: set[str] = set()
    for index_dir in found.values():
        keep |= used_keys(index_dir)
    removed, freed = store.gc(keep, dry_run=dry_run)
    notes, note_bytes = store.prune_indexed(found.values(), dry_run=dry_run)
    return sorted(found), removed, notes, freed + note_bytes


__all__ = ["CHUNKSTORE_FORMAT", "DEFAULT_STORE_NAME", "ChunkStore", "IndexedRevision", "StoredFile",
           "collect_garbage", "decode_stored", "default_store", "encode_stored", "entry_key",
           "used_keys"]
