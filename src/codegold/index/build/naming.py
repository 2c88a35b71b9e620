"""Names a build writes: the repository's (from its origin remote or folder) and, for
paths git holds that cannot be indexed as they are, why not and how they are shown."""

from __future__ import annotations

import re
from pathlib import Path

from codegold.errors import CodeIndexError
from codegold.index.clones import GENERIC_FOLDERS, repository_of_folder
from codegold.index.gitsnap import GitSnapshot
from codegold.plumbing.git import git

_SCP_REMOTE = re.compile(r"^[\w.-]+@[\w.-]+:")


def repository_name(snapshot: GitSnapshot) -> str:
    """The manifest's repository name: ``host/owner/name`` style from a hosted origin
    remote (:meth:`GitSnapshot.identity`), else a folder name.

    A remote that is a local path (a clone of a clone, a bare mirror) names only its last
    folder, never the machine's directories above it; a bare repository or a ``.git``
    directory given as REPO names the project folder, ``.git`` stripped (``shop.git`` and
    ``shop/.git`` are both ``shop``).
    """
    try:
        done = git(["config", "--get", "remote.origin.url"], repo=snapshot.repo, timeout=60,
                   check=False)
        url = done.stdout.decode("utf-8", "replace").strip() if done.ok else ""
    except CodeIndexError:
        url = ""
    local = url and ("://" not in url or url.startswith("file://")) and not _SCP_REMOTE.match(url)
    if url and not local:
        name = snapshot.identity()
        if name:
            return name
    path = Path(url.removeprefix("file://")) if local else snapshot.repo.resolve()
    parts = [part for part in path.parts if part not in ("/", ".", "")]
    while parts and parts[-1] == ".git":
        parts.pop()
    if not parts:
        parts = [snapshot.repo.resolve().name or "repository"]
    name = parts[-1].removesuffix(".git") or "repository"
    if name.lower() in GENERIC_FOLDERS and len(parts) >= 2:
        # A mirror kept as ``owner+name/repo`` or ``owner__name/repo``: the folder above
        # names the project, and its owner/name spelling is the repository's own.
        parent = parts[-2].removesuffix(".git")
        return repository_of_folder(parent) or parent or name
    return name


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def name_problem(path: str) -> str | None:
    """Why a path from git cannot be indexed as is, or None.

    Names that are not UTF-8 (decoded with surrogateescape) cannot be stored or matched
    against case files; names with control characters (a newline, a tab) would break
    every line-based output that names a file.
    """
    if any("\udc80" <= char <= "\udcff" for char in path):
        return "is not valid UTF-8"
    if _CONTROL.search(path):
        return "contains a control character"
    return None


def display_name(path: str) -> str:
    """The inventory form of an unindexable name: undecodable bytes and control
    characters written as ``\\xNN`` (so ``caf\\xe9.py``, ``a\\x0ab.py``)."""
    raw = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", raw)
