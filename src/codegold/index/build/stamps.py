"""What a build stamps on its output: the build id, the manifest's ``created_at`` (now, or
``SOURCE_DATE_EPOCH``), the index's meta rows and the manifest itself."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path

import msgspec

from codegold import __version__
from codegold.errors import InputError
from codegold.index.chunker import CHUNKER_NAME, CHUNKER_VERSION
from codegold.index.gitsnap import GitSnapshot
from codegold.index.policy import PathPolicy
from codegold.index.store import INDEX_FILE, STORE_FORMAT, IndexWriter
from codegold.model import ChunkerInfo, Manifest, PathPolicyInfo
from codegold.plumbing.outputs import sync_folder, sync_path


def build_id(repository: str, revision: str, policy: PathPolicy) -> str:
    """Identity of a build: same inputs and codegold version → same id."""
    key = msgspec.json.encode([repository, revision, policy.hash, CHUNKER_NAME,
                               CHUNKER_VERSION, STORE_FORMAT, __version__])
    return hashlib.sha256(key).hexdigest()[:20]


# The latest moment datetime can represent (9999-12-31T23:59:59Z).
_MAX_EPOCH = 253402300799


def created_at() -> str:
    """The manifest's ``created_at``: now, or ``SOURCE_DATE_EPOCH`` when it is set.

    Reproducible-build setups pin the one time-dependent field with it; a value that is
    set but is not a whole number of seconds in 0..9999-12-31 is an InputError, never a
    silently different timestamp.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None or epoch == "":
        moment = dt.datetime.now(dt.UTC)
    else:
        text = epoch.strip()
        if not text.isascii() or not text.isdigit() or int(text) > _MAX_EPOCH:
            raise InputError(f"SOURCE_DATE_EPOCH is {epoch[:40]!r}; expected a whole number of "
                             f"seconds since 1970 from 0 to {_MAX_EPOCH} (or unset it)")
        moment = dt.datetime.fromtimestamp(int(text), dt.UTC)
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def stamp(writer: IndexWriter, snapshot: GitSnapshot, identity: str, policy: PathPolicy,
          created_at: str, *, files: int, chunks: int) -> Manifest:
    """Write the index's meta rows for this build and return its manifest (``files``
    indexed and ``chunks`` written, copied rows included)."""
    build = build_id(identity, snapshot.revision, policy)
    writer.set_meta({
        "format": str(STORE_FORMAT), "repository": identity, "revision": snapshot.revision,
        "index_build_id": build, "chunker_name": CHUNKER_NAME,
        "chunker_version": CHUNKER_VERSION, "policy_hash": policy.hash,
        "codegold_version": __version__})
    if not policy.secrets:
        writer.set_meta({"secrets": "kept"})
    return Manifest(
        repository=identity, revision=snapshot.revision, index_build_id=build,
        chunker=ChunkerInfo(name=CHUNKER_NAME, version=CHUNKER_VERSION),
        path_policy=PathPolicyInfo(include=list(policy.include), exclude=list(policy.exclude),
                                   hash=policy.hash),
        embedder=None, files=files, chunks=chunks, created_at=created_at,
        complete=True, codegold_version=__version__,
        revision_given=snapshot.requested if snapshot.requested != snapshot.revision else None)


def write_manifest(path: Path, manifest: Manifest) -> None:
    """Write the manifest at ``path``, durably, once the ``index.sqlite`` beside it (closed)
    is on disk: the database is written with no journal and no syncs, so a manifest
    synced first could outlive it in a power loss and vouch for a database that never
    reached the disk."""
    folder = path.parent
    sync_path(folder / INDEX_FILE)
    sync_folder(folder)  # the database's entry in its folder
    payload = msgspec.json.format(msgspec.json.encode(manifest), indent=2) + b"\n"
    with path.open("wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())
    sync_folder(folder)  # the manifest's entry
