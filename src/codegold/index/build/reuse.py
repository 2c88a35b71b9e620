"""What a build takes over from a previous index: its rows for unchanged blobs (only those
that still digest, under this user's key, to what their build recorded) and the caches
readers added to its folder."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import msgspec

from codegold.errors import CodegoldError, CodeIndexError
from codegold.index.chunker import CHUNKER_VERSION
from codegold.index.store import MANIFEST_FILE, REUSE_MACS, IndexReader, read_manifest
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


def recorded_macs(index_dir: Path) -> dict[str, str]:
    folder, name = REUSE_MACS
    try:
        raw = read_cache_file(index_dir / folder / name, limit=256 * 1024**2)
        return msgspec.json.decode(raw, type=dict[str, str])
    except (OSError, CodegoldError, msgspec.DecodeError, msgspec.ValidationError):
        return {}


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
                    if entry.blob_sha and entry.fate in ("indexed", "fallback", "skipped")
                    and entry.reason not in ("symlink: never followed",)
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
