"""What a build takes over from a previous index: its rows for unchanged blobs (only those
that still digest, under this user's key, to what their build recorded) and the caches
readers added to its folder.

A build also *seals* what it wrote: a keyed digest of the whole ``index.sqlite`` and of
its per-file digests (``reuse/index.mac``). A later build, of the same folder or of
another revision with the same chunk store, starts from a copy of a sealed index that
still matches its seal (checked on the copy, in the one pass that makes it), so it pays
neither a re-insert of every unchanged row nor a read-back of every row's digest."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import sqlite3
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import msgspec

from codegold.errors import CodegoldError, CodeIndexError
from codegold.index.chunker import CHUNKER_VERSION
from codegold.index.chunkstore import ChunkStore
from codegold.index.store import (
    INDEX_FILE,
    MANIFEST_FILE,
    REUSE_MACS,
    STORE_FORMAT,
    IndexReader,
    read_manifest,
)
from codegold.plumbing.outputs import (
    cache_folder,
    move_cache_folder,
    read_cache_file,
    write_cache_file,
)

_KEY_BYTES = 32


def reuse_key() -> bytes | None:
    """This user's key for the digests that let a build reuse a previous index's rows
    (``$XDG_CACHE_HOME/codegold/reuse.key``, made on first use, readable by the user only).
    None when it cannot be read or made: nothing is reused then, everything is parsed."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "codegold" / "reuse.key"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(os.urandom(_KEY_BYTES))
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            key = handle.read(_KEY_BYTES + 1)
    except OSError:
        return None
    return key if len(key) == _KEY_BYTES else None


def record_macs(index_dir: Path, macs: dict[str, str]) -> None:
    folder, name = REUSE_MACS
    with contextlib.suppress(OSError, CodegoldError):  # a cache: its loss costs only reuse
        write_cache_file(cache_folder(index_dir, folder) / name,
                         msgspec.json.encode(dict(sorted(macs.items()))))


_MACS_LIMIT = 256 * 1024**2


def recorded_macs(index_dir: Path) -> dict[str, str]:
    folder, name = REUSE_MACS
    try:
        raw = read_cache_file(index_dir / folder / name, limit=_MACS_LIMIT)
        return msgspec.json.decode(raw, type=dict[str, str])
    except (OSError, CodegoldError, msgspec.DecodeError, msgspec.ValidationError):
        return {}


def _reusable(fate: str, reason: str | None) -> bool:
    """Whether an inventory row of this fate and reason follows from its path and blob
    alone (so a later build may copy it for the same path and blob): not a symlink's,
    a submodule's or an escaped name's row, which follow from the tree entry's kind or
    from other paths."""
    return fate in ("indexed", "fallback", "skipped") and not (reason or "").startswith(
        ("symlink:", "submodule (", "file name "))


def previous_blobs(source: Path, explicit: bool, redact: bool = True
                   ) -> dict[str, str] | None:
    """Path → blob sha of reusable files in a previous index, or None when it cannot be
    reused (missing, incomplete, another chunker version or store format, or secret
    values kept where this build redacts them, or the other way round)."""
    try:
        with IndexReader.open(source) as previous:
            version = previous.meta("chunker_version")
            if (previous.meta("secrets") == "kept") == redact:
                if explicit:
                    raise CodeIndexError(f"cannot reuse {source}: it was built with secret "
                                         f"redaction {'off' if redact else 'on'}, this "
                                         f"build has it {'on' if redact else 'off'}")
                return None
            if version != CHUNKER_VERSION:
                if explicit:
                    raise CodeIndexError(f"cannot reuse {source}: built by chunker version "
                                      f"{version}, this build uses {CHUNKER_VERSION}")
                return None
            key = reuse_key()
            # Only rows that still digest to what their build recorded, under this user's
            # key, are copied: an edited row (or an index built elsewhere) is parsed again.
            recorded = recorded_macs(source)
            verified = previous.verified_files(key, recorded) if key and recorded else set()
            return {entry.path: entry.blob_sha for entry in previous.iter_inventory()
                    if entry.blob_sha and _reusable(entry.fate, entry.reason)
                    and entry.path in verified}
    except CodeIndexError:
        if explicit:
            raise
        return None


# The caches readers add to an index folder (see outdir._INDEX_CACHES) and the vector
# store inside dense/, whose rows are keyed by embedder and text, so valid for any build.
_BUILD_CACHES = ("lexical", "dense")
_VECTOR_STORE = ("dense", "store")


def carry_caches(out: Path, built: Path, build: str | None) -> list[str]:
    """Move the caches of the index at ``out`` into ``built`` when they are still valid:
    all of them when ``out`` holds the same build (same repository, revision, policy and
    chunker: the same chunks), else only the content-addressed vector store. Only real
    folders holding nothing but real files and folders move (a planted link is removed
    with the old index, its target never touched); readers check every cache file again
    anyway. Returns what was carried."""
    try:
        old = read_manifest(out).index_build_id if (out / MANIFEST_FILE).is_file() else None
    except (CodegoldError, OSError):
        old = None
    if old is None:
        return []
    moves = [(name,) for name in _BUILD_CACHES] if old == build else [_VECTOR_STORE]
    # a cache that cannot move is only ever a copy: the next query rebuilds it
    return ["/".join(parts) for parts in moves if move_cache_folder(out, built, parts)]


# --- sealed indexes: a whole index.sqlite taken over at the cost of copying it ------------

SEAL = ("reuse", "index.mac")
_SEAL_CONTEXT = b"codegold index seal 1\n"
_SEAL_LIMIT = 1024
_COPY_BLOCK = 1 << 20


def _seal(key: bytes, database: bytes, macs: bytes) -> str:
    """The seal of an index whose ``index.sqlite`` has SHA-256 ``database`` and whose
    ``reuse/macs.json`` holds ``macs`` (empty when it has none)."""
    return hmac.new(key, _SEAL_CONTEXT + database + hashlib.sha256(macs).digest(),
                    digestmod="sha256").hexdigest()


def _macs_bytes(index_dir: Path) -> bytes:
    folder, name = REUSE_MACS
    try:
        return read_cache_file(index_dir / folder / name, limit=_MACS_LIMIT)
    except FileNotFoundError:
        return b""


def seal_index(index_dir: Path, key: bytes) -> None:
    """Seal the finished index in ``index_dir`` (``index.sqlite`` and the per-file digests
    already written) under ``key``. A seal that cannot be written costs only the reuse."""
    with contextlib.suppress(OSError, CodegoldError):
        digest = hashlib.sha256()
        fd = os.open(index_dir / INDEX_FILE, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            while block := handle.read(_COPY_BLOCK):
                digest.update(block)
        value = _seal(key, digest.digest(), _macs_bytes(index_dir))
        folder, name = SEAL
        write_cache_file(cache_folder(index_dir, folder) / name, value.encode("ascii"))


@dataclass(frozen=True)
class SealedCopy:
    """A private copy of a sealed index, checked: the blob of each path whose rows a
    build may keep (:func:`_reusable`), the per-file digests its build recorded, and
    whether it was built under the same path policy (then a path kept with the same blob
    needs none of the policy's checks again)."""

    source: Path
    blobs: dict[str, str]
    macs: dict[str, str]
    same_policy: bool


def copy_sealed(source: Path, dest: Path, key: bytes, *, policy_hash: str, redact: bool
                ) -> SealedCopy | None:
    """Copy ``source``'s ``index.sqlite`` to ``dest`` when the copy matches the seal its
    build recorded under ``key`` and was built by this chunker and store format with the
    same secret handling; None (and no ``dest``) otherwise: a missing, unsealed, edited
    or foreign index, or one built by someone else (another key)."""
    try:
        folder, name = SEAL
        sealed = read_cache_file(source / folder / name, limit=_SEAL_LIMIT)
        macs_raw = _macs_bytes(source)
        digest = _copy_hashing(source / INDEX_FILE, dest)
        if not hmac.compare_digest(sealed, _seal(key, digest, macs_raw).encode("ascii")):
            raise OSError("the index does not match its seal")
        macs = msgspec.json.decode(macs_raw, type=dict[str, str]) if macs_raw else {}
        with contextlib.closing(sqlite3.connect(dest)) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            rows = conn.execute("SELECT path, blob_sha, fate, reason FROM files").fetchall()
    except (OSError, CodegoldError, msgspec.DecodeError, msgspec.ValidationError,
            sqlite3.Error, ValueError):
        dest.unlink(missing_ok=True)
        return None
    if (meta.get("format") != str(STORE_FORMAT) or meta.get("chunker_version") !=
            CHUNKER_VERSION or (meta.get("secrets") == "kept") == redact):
        dest.unlink(missing_ok=True)
        return None
    blobs = {path: blob for path, blob, fate, reason in rows
             if blob and _reusable(fate, reason)}
    return SealedCopy(source, blobs, macs, meta.get("policy_hash") == policy_hash)


def _copy_hashing(source: Path, dest: Path) -> bytes:
    """Copy the regular file ``source`` (never through a link) to the new file ``dest``;
    the SHA-256 of the bytes copied."""
    digest = hashlib.sha256()
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as reader:
        if not stat.S_ISREG(os.fstat(reader.fileno()).st_mode):
            raise OSError(f"{source} is not a regular file")
        with open(dest, "xb") as writer:
            while block := reader.read(_COPY_BLOCK):
                digest.update(block)
                writer.write(block)
    return digest.digest()


# --- the nearest index built with the same chunk store ------------------------------------

# Candidates copied, nearest first, when one's copy fails its checks.
_NEAREST_TRIES = 3


def nearest_indexes(store: ChunkStore, blobs: Mapping[str, str], out: Path) -> list[Path]:
    """Index folders built with ``store`` to start a build of a tree holding ``blobs``
    (path → blob) from: the few whose files differ least from it (added, removed or
    changed; the most recent among equals), among those built with this store object
    (:attr:`ChunkStore.built`) and those the store noted (:meth:`ChunkStore.indexed`),
    never ``out`` itself."""
    here = str(out.resolve())
    found: dict[str, Mapping[str, str]] = {}
    for index, files in reversed(store.built):
        found.setdefault(index, files)
    for record in store.indexed():
        if record.chunker_version == CHUNKER_VERSION:
            found.setdefault(record.index, record.files)
    found.pop(here, None)
    if not found:
        return []
    mine = set(blobs.items())
    ranked = sorted((len(mine.symmetric_difference(files.items())), newest, index)
                    for newest, (index, files) in enumerate(found.items()))
    return [Path(index) for _, _, index in ranked[:_NEAREST_TRIES]]
