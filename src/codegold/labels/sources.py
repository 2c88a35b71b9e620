"""Where label facts come from: an index (the store's reader) and optionally git.

:class:`IndexView` is the part of ``codegold.index.store.IndexReader`` the label look-up
uses; tests pass a small in-memory double. :class:`RepoView` answers "does this path exist at
that revision, and what does it say" with ``git cat-file``/``git ls-tree``.

Revisions come from artifact and case files: each is checked to be a
full 40-hex sha before git sees it, so a planted ``--output=...`` can never become an
option.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from codegold.errors import InputError
from codegold.index.records import IndexedChunk, InventoryEntry, SymbolDef
from codegold.model import Manifest
from codegold.plumbing.git import END_OF_OPTIONS, GitResult, git, is_full_sha, looks_like_option

GIT_TIMEOUT = 60.0
RENAME_HISTORY = 5000
"""Commits of history searched for a renamed label file."""


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
        self._renames: dict[str, list[tuple[str, str]]] = {}

    @classmethod
    def checked(cls, path: str | Path) -> RepoView:
        """A view of ``path`` (the ``repo`` setting), refused (InputError) unless it is a
        git repository."""
        view = cls(path)
        if not Path(path).is_dir() or not view._git("rev-parse", "--git-dir").ok:
            raise InputError(f"{{repo}} {path} is not a git repository; expected a clone of "
                             "the repository the cases are about", path=str(path),
                             settings=("repo",))
        return view

    def _git(self, *args: str) -> GitResult:
        return git(args, repo=self.path, timeout=GIT_TIMEOUT, check=False)

    @staticmethod
    def _checked(revision: str) -> str:
        if not is_full_sha(revision):
            raise InputError(f"revision {revision!r} is not a full 40-character hex commit "
                             "sha; refusing to pass it to git")
        return revision

    def exists(self, revision: str, path: str) -> bool | None:
        """True/False, or None when the revision itself is unknown to the repository."""
        revision = self._checked(revision)
        if not self._git("cat-file", "-e", END_OF_OPTIONS, f"{revision}^{{commit}}").ok:
            return None
        return self._git("cat-file", "-e", END_OF_OPTIONS, f"{revision}:{path}").ok

    def text(self, revision: str, path: str) -> str | None:
        # cat-file, not show: the blob's bytes as stored, no textconv filters run.
        done = self._git("cat-file", "blob", END_OF_OPTIONS, f"{self._checked(revision)}:{path}")
        if not done.ok:
            return None
        return done.stdout.decode("utf-8", errors="replace")

    def paths(self, revision: str) -> list[str] | None:
        done = self._git("ls-tree", "-r", "--name-only", "-z", END_OF_OPTIONS,
                         self._checked(revision))
        if not done.ok:
            return None
        return [p for p in done.stdout.decode("utf-8", errors="replace").split("\0") if p]

    def has_commit(self, revision: str) -> bool:
        """Whether ``revision`` (a full sha) names a commit of this repository."""
        return self._git("cat-file", "-e", END_OF_OPTIONS, f"{self._checked(revision)}^{{commit}}").ok

    def commit_of(self, name: str) -> str | None:
        """The full sha of the commit a tag or branch ``name`` resolves to, or None."""
        if not name or looks_like_option(name) or any(ch in name for ch in "\0\n\r"):
            return None
        done = self._git("rev-parse", "--verify", "--quiet", END_OF_OPTIONS, f"{name}^{{commit}}")
        sha = done.text.strip()
        return sha if done.ok and is_full_sha(sha) else None

    def renamed_to(self, revision: str, path: str) -> str | None:
        """Where ``path`` went by ``revision``: git's rename detection over the history up
        to ``revision`` (newest rename of that path first, followed to its last name)."""
        renames = self._renames_up_to(revision)
        # git log lists the newest commit first: walk the renames oldest first.
        current, seen = path, {path}
        for old, new in reversed(renames):
            if old == current and new not in seen:
                current = new
                seen.add(new)
        return None if current == path else current

    def _renames_up_to(self, revision: str) -> list[tuple[str, str]]:
        """Every ``(old, new)`` rename in the history up to ``revision``, newest first
        (read once per revision: a case set may have many moved labels)."""
        if revision not in self._renames:
            done = self._git("log", f"-n{RENAME_HISTORY}", "-M", "--diff-filter=R",
                             "--name-status", "--format=", "-z", END_OF_OPTIONS,
                             self._checked(revision))
            fields = done.stdout.decode("utf-8", errors="replace").split("\0") if done.ok else []
            renames: list[tuple[str, str]] = []
            n = 0
            while n + 2 < len(fields):
                status = fields[n].lstrip("\n")
                if status[:1] == "R" and status[1:].isdigit():
                    renames.append((fields[n + 1], fields[n + 2]))
                    n += 3
                else:
                    n += 1
            self._renames[revision] = renames
        return self._renames[revision]
