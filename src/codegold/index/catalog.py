"""Choosing the index for a case: one index per revision, never another revision's.

``--index`` names either one index directory (it has ``manifest.json``) or a folder whose
sub-directories are indexes; each is keyed by its manifest's revision. Only complete
indexes count.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from codegold.errors import CodeIndexError, DuplicateIndexError, InputError
from codegold.index.store import MANIFEST_FILE, read_manifest
from codegold.model import Case, Manifest


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

    def repository_mismatches(self, cases: Iterable[Case]) -> list[tuple[str, str]]:
        """One line per case repository that differs from the repository its revision's
        index was built from (``xarray`` against ``pydata/xarray``): the same clone named
        two ways, or a case run against another project's index. Said once per pair, as
        (first case id, message)."""
        seen: dict[tuple[str, str], list[str]] = {}
        for case in cases:
            index_dir = self.for_revision(case.revision)
            manifest = None if index_dir is None else manifest_or_none(index_dir)
            named = manifest.repository if manifest is not None else None
            if not case.repository or not named or case.repository.lower() == named.lower():
                continue
            seen.setdefault((case.repository, named), []).append(case.id)
        return [(ids[0], f"case {ids[0]}{f' (and {len(ids) - 1} more)' if len(ids) > 1 else ''} "
                 f"names repository {ours!r}, its index was built from {theirs!r}: use one "
                 f"name (codegold names a repository from its origin remote, else its folder)")
                for (ours, theirs), ids in seen.items()]
