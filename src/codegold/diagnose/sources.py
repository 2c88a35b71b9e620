"""Where diagnosis reads facts from: an index (the store's reader) and optionally git.

:class:`IndexView` is the part of ``codegold.index.store.IndexReader`` diagnosis uses;
tests pass a small in-memory double. :class:`RepoView` answers "does this path exist at
that revision, and what does it say" with ``git cat-file``/``git show``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from codegold.index.records import IndexedChunk, InventoryEntry, SymbolDef
from codegold.model import Manifest


class IndexView(Protocol):
    @property
    def manifest(self) -> Manifest: ...

    def get(self, chunk_id: str) -> IndexedChunk | None: ...

    def chunks_in_file(self, path: str) -> list[IndexedChunk]: ...

    def inventory(self, path: str) -> InventoryEntry | None: ...

    def iter_inventory(self) -> Iterator[InventoryEntry]: ...

    def definitions(self, name: str) -> list[SymbolDef]: ...


class RepoView:
    """Read-only questions to a git repository; every answer is at an explicit revision."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def _git(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["git", "-C", str(self.path), *args], capture_output=True,
                              check=False, timeout=60)

    def exists(self, revision: str, path: str) -> bool | None:
        """True/False, or None when the revision itself is unknown to the repository."""
        if self._git("cat-file", "-e", f"{revision}^{{commit}}").returncode != 0:
            return None
        return self._git("cat-file", "-e", f"{revision}:{path}").returncode == 0

    def text(self, revision: str, path: str) -> str | None:
        done = self._git("show", f"{revision}:{path}")
        if done.returncode != 0:
            return None
        return done.stdout.decode("utf-8", errors="replace")

    def paths(self, revision: str) -> list[str] | None:
        done = self._git("ls-tree", "-r", "--name-only", "-z", revision)
        if done.returncode != 0:
            return None
        return [p for p in done.stdout.decode("utf-8", errors="replace").split("\0") if p]
