"""A work tree of one pinned revision for a server that searches files on disk.

The files are the revision's blobs, read through git plumbing
(:class:`~codegold.index.gitsnap.GitSnapshot`: ``ls-tree`` + ``cat-file --batch``) and
written as plain files, never by ``git checkout`` or ``git archive``: those run the
repository's own filter drivers. Symbolic links and submodules are left out (a link could
point anywhere on this machine), and so is every path git itself refuses to write
(:func:`~codegold.plumbing.git.verify_path`: a ``.git`` folder at any depth, in any of its
spellings, would be read by any git command the server runs below it). Every tree lives
under one temporary folder that :meth:`Checkouts.close` removes.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path, PurePosixPath

from codegold.errors import CodeIndexError, InputError, RetrieverError
from codegold.index.clones import clone_for
from codegold.index.gitsnap import MODE_GITLINK, MODE_SYMLINK, GitSnapshot
from codegold.plumbing.git import verify_path


class Checkouts:
    """Work trees by revision, made on first use from ``repo`` (a clone, or a folder of
    clones named as ``run --repo`` expects them)."""

    def __init__(self, repo: str) -> None:
        self.repo = repo
        self._root: Path | None = None
        self._trees: dict[str, Path] = {}
        self._lock = threading.Lock()

    def path_for(self, revision: str, repository: str | None) -> Path:
        with self._lock:
            tree = self._trees.get(revision)
            if tree is None:
                tree = self._materialise(revision, repository)
                self._trees[revision] = tree
            return tree

    def _materialise(self, revision: str, repository: str | None) -> Path:
        clone = (clone_for(self.repo, repository) if repository else None) or Path(self.repo)
        try:
            snapshot = GitSnapshot.open(clone, revision)
        except (InputError, CodeIndexError) as err:
            raise RetrieverError(f"cannot make a work tree of {revision} for the MCP server: "
                                 f"{err}") from None
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="codegold-mcp-"))
        tree = self._root / snapshot.revision
        tree.mkdir()
        wanted: dict[str, list[Path]] = {}
        for entry in snapshot.entries():
            if entry.mode in (MODE_SYMLINK, MODE_GITLINK) or entry.object_type != "blob":
                continue
            target = _inside(tree, entry.path, entry.mode)
            if target is not None:
                wanted.setdefault(entry.sha, []).append(target)
        try:
            for sha, data in snapshot.blobs(list(wanted)):
                for target in wanted[sha]:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
        except (CodeIndexError, OSError) as err:
            raise RetrieverError(f"cannot write the work tree of {revision}: {err}") from None
        return tree

    def close(self) -> None:
        with self._lock:
            if self._root is not None:
                shutil.rmtree(self._root, ignore_errors=True)
            self._root = None
            self._trees.clear()


def _inside(tree: Path, path: str, mode: str) -> Path | None:
    """``tree/path`` when git would write ``path`` itself (see
    :func:`~codegold.plumbing.git.verify_path`)."""
    try:
        bits = int(mode, 8)
    except ValueError:
        return None
    if not verify_path(path, bits):
        return None
    return tree.joinpath(*PurePosixPath(path).parts)
