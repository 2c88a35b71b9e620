"""Making the paths an agent saw relative to the repository root.

An agent sees the checkout under a container root (``/testbed``, ``/repo``,
``/workspace/<name>``, SWE-agent's older ``/<owner>__<repo>``) or the session's working
directory. A path is resolved against the shell's directory when it is relative, then
made relative to the first root it lies under. Anything else (``/usr/lib/...``, ``/tmp``,
``../other``, ``~/notes.py`` in the home directory) keeps its normalised path and is
flagged ``outside_repo``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

CONTAINER_ROOTS = ("/testbed", "/repo")
_WORKSPACE = re.compile(r"^/workspace/[^/]+")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def _windows(path: str) -> str:
    """A Windows path (``C:\\Users\\me\\shop\\a.py``, an agent run on Windows) spelled
    as a POSIX one (``/C:/Users/me/shop/a.py``), so that roots and paths compare; any other
    path as it is."""
    if not _DRIVE.match(path):
        return path
    return "/" + path[0].upper() + path[1:].replace("\\", "/")  # `c:` and `C:` alike


_WINDOWS_DIR = re.compile(r"^/[A-Z]:/")


class PathPlacer:
    """Places paths relative to the first of ``roots`` they lie under."""

    def __init__(self, roots: Iterable[str]) -> None:
        ordered: list[str] = []
        for root in [*roots, *CONTAINER_ROOTS]:
            root = _windows(root.strip()) if root else ""
            clean = posixpath.normpath(root) if root else ""
            if clean.startswith("/") and clean != "/" and clean not in ordered:
                ordered.append(clean)
        self.roots = tuple(ordered)

    def absolute(self, path: str, cwd: str | None) -> str:
        """``path`` resolved against ``cwd`` (or the first root) and normalised."""
        text = _windows(path.strip())
        if text.startswith("~"):  # the home directory the shell expands: not a known place
            return posixpath.normpath(text)
        cwd = _windows(cwd) if cwd else cwd
        if cwd and _WINDOWS_DIR.match(cwd) and "\\" in text:
            text = text.replace("\\", "/")  # a relative path beside a Windows directory
        if not text.startswith("/"):
            base = cwd if cwd and cwd.startswith("/") else (self.roots[0] if self.roots else "")
            text = posixpath.join(base, text) if base else text
        return posixpath.normpath(text)

    def place(self, path: str, cwd: str | None = None) -> tuple[str, bool]:
        """``(path relative to the repository root, outside the repository?)``."""
        full = self.absolute(path, cwd)
        if not full.startswith("/"):
            return full, full == ".." or full.startswith(("../", "~"))
        for root in self.roots:
            if full.startswith(root + "/"):
                return full[len(root) + 1:], False
        match = _WORKSPACE.match(full)
        if match and len(full) > match.end() + 1:
            return full[match.end() + 1:], False
        return full, True

    def relative_dir(self, path: str, cwd: str | None) -> str:
        """A directory as the shell would resolve it (for ``cd``)."""
        return self.absolute(path, cwd)
