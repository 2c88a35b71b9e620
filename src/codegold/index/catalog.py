"""Choosing the index for a case: one index per revision, never another revision's.

``--index`` names either one index directory (it has ``manifest.json``) or a folder whose
sub-directories are indexes; each is keyed by its manifest's revision. Only complete
indexes count.
"""

from __future__ import annotations

from pathlib import Path

from codegold.errors import CodeIndexError, DuplicateIndexError, InputError
from codegold.index.store import MANIFEST_FILE, read_manifest
from codegold.model import Manifest


def manifest_or_none(index_dir: Path) -> Manifest | None:
    """The manifest of ``index_dir``, or None when it has none or it cannot be read."""
    try:
        return read_manifest(index_dir)
    except CodeIndexError:
        return None


class IndexSet:
    """Complete indexes by revision."""

    def __init__(self, by_revision: dict[str, Path]) -> None:
        self.by_revision = dict(by_revision)

    @classmethod
    def empty(cls) -> IndexSet:
        return cls({})

    @classmethod
    def from_path(cls, path: str | Path) -> IndexSet:
        root = Path(path)
        if not root.is_dir():
            raise InputError("index not found: expected an index directory or a folder of them",
                             path=str(root))
        if (root / MANIFEST_FILE).is_file():
            dirs = [root]
        else:
            dirs = sorted(p for p in root.iterdir() if (p / MANIFEST_FILE).is_file())
        found: dict[str, Path] = {}
        for index_dir in dirs:
            manifest = manifest_or_none(index_dir)
            if manifest is None or not manifest.complete or not manifest.revision:
                continue
            other = found.get(manifest.revision)
            if other is not None:
                raise DuplicateIndexError(f"two indexes for revision {manifest.revision}: {other} and "
                                 f"{index_dir}; keep one", path=str(root))
            found[manifest.revision] = index_dir
        if not found:
            raise InputError("no complete index here (a manifest.json with complete: true); "
                             "build one with `codegold index`", path=str(root))
        return cls(found)

    def for_revision(self, revision: str) -> Path | None:
        return self.by_revision.get(revision)

    def describe(self) -> str:
        return ", ".join(rev[:12] for rev in sorted(self.by_revision)) or "none"
