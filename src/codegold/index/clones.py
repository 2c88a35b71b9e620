"""How a clone of ``owner/name`` is named inside a folder of clones, both ways: which
folder holds a repository's clone (:func:`clone_for`), and which repository a clone's
folder names (:func:`repository_of_folder`). Indexing a suite of many repositories,
drafting cases from SWE-bench instances and naming a manifest all read this one table."""

from __future__ import annotations

import re
from pathlib import Path

# ``owner+name`` first (no separator a repository name may hold), then ``owner__name``
# (SWE-bench's instance ids), a nested ``owner/name``, and the bare ``name``.
MARKS = ("+", "__")
_NAME_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
# Folder names that say nothing about the project (``mirrors/acme+shop/repo``).
GENERIC_FOLDERS = frozenset({"repo", "repository", "mirror", "clone", "checkout", "git", "source"})


def clone_names(repository: str) -> list[str] | None:
    """The folder names a clone of ``repository`` (``owner/name``, or ``host/owner/name``)
    may have, most specific first; None when the name is not a plain ``owner/name`` (so
    it can never name a path outside the folder)."""
    parts = repository.strip("/").split("/")
    if not parts or any(not _NAME_PART.fullmatch(part) or part.strip(".") == ""
                        for part in parts):
        return None
    name = parts[-1]
    owner = parts[-2] if len(parts) > 1 else None
    spelled = [f"{owner}{mark}{name}" for mark in MARKS] + [f"{owner}/{name}"] if owner else []
    return [*spelled, name]


def clone_for(folder: str | Path, repository: str) -> Path | None:
    """The clone of ``repository`` inside ``folder``, by the names such folders get
    (:func:`clone_names`), each also with ``.git`` (a bare clone) or holding a bare
    ``repo/``; None when there is none or the name is not a plain ``owner/name``."""
    names = clone_names(repository)
    if names is None:
        return None
    root = Path(folder)
    for candidate in names:
        for place in (root / candidate, root / f"{candidate}.git"):
            for clone in (place / "repo", place):
                if clone.is_dir() and ((clone / ".git").exists() or (clone / "HEAD").is_file()):
                    return clone
    return None


def repository_of_folder(folder_name: str) -> str | None:
    """``owner/name`` when ``folder_name`` is spelled ``owner+name`` or ``owner__name``
    (``.git`` stripped), else None."""
    name = folder_name.removesuffix(".git")
    for mark in MARKS:
        owner, sep, rest = name.partition(mark)
        if sep and owner and rest:
            return f"{owner}/{rest}"
    return None
