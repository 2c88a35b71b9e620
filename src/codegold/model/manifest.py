"""The index manifest: what identifies one build of a code index.

Every field is optional when *reading* (a foreign retriever may record a partial
manifest); :func:`manifest_problem` says why a manifest cannot be trusted, and the
scorer turns that into an ``invalid`` case rather than borrowing metadata elsewhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

MANIFEST_FORMAT = 1
Count = Annotated[int, Meta(ge=0)]


class ChunkerInfo(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    version: str


class PathPolicyInfo(msgspec.Struct, frozen=True, kw_only=True):
    include: list[str] = msgspec.field(default_factory=list)
    exclude: list[str] = msgspec.field(default_factory=list)
    hash: str | None = None


class EmbedderInfo(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    version: str
    dimensions: Annotated[int, Meta(ge=1)] | None = None


class Manifest(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=False):
    """``manifest.json`` of an index; also embedded in every attempt."""

    format: Literal[1] = 1
    repository: str | None = None
    revision: str | None = None
    index_build_id: str | None = None
    chunker: ChunkerInfo | None = None
    path_policy: PathPolicyInfo | None = None
    embedder: EmbedderInfo | None = None
    files: Count | None = None
    chunks: Count | None = None
    created_at: str | None = None
    complete: bool = False
    codegold_version: str | None = None
    # The name the revision was given by (a tag or branch), when it was not the full sha
    # itself; ``revision`` is always the commit it resolved to (tags peeled).
    revision_given: str | None = None


def load_manifest(path: str | Path) -> Manifest:
    """Read a ``manifest.json``; any mistake is a SchemaError naming the file and field."""
    from codegold.model.io import load_versioned

    return load_versioned(path, Manifest, what="index manifest",
                          hint="see `codegold schema manifest`").value


def manifest_problem(manifest: Manifest | None, case_revision: str) -> str | None:
    """Why this manifest cannot vouch for a run on ``case_revision`` (None when it can)."""
    if manifest is None:
        return "attempt has no index manifest"
    if not manifest.complete:
        return "index manifest is incomplete (complete is not true)"
    missing = [name for name in ("revision", "index_build_id") if getattr(manifest, name) is None]
    if manifest.chunker is None:
        missing.append("chunker")
    if missing:
        return "index manifest lacks " + ", ".join(missing)
    if manifest.revision != case_revision:
        return (f"index built from revision {manifest.revision}, "
                f"case pinned to {case_revision}")
    return None
