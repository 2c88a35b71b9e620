"""Which definitions a change touched, read from the code at the revision before it.

A unified diff says which *lines* of the old file changed; the definitions that own those
lines come from parsing the old file with codegold's own chunker (the same symbol names an
index of that revision holds), never from the diff's hunk headers alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codegold.errors import CodeIndexError, InputError
from codegold.index.chunker import chunk_file
from codegold.index.store import SymbolDef
from codegold.plumbing.git import git, is_full_sha, unquote_git_path

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class FilePatch:
    """One file of a unified diff: its old and new paths and the old lines it changed."""

    old_path: str | None
    new_path: str | None
    old_lines: set[int] = field(default_factory=set)

    @property
    def is_new(self) -> bool:
        return self.old_path is None

    @property
    def is_deleted(self) -> bool:
        return self.new_path is None


def _strip(path: str) -> str | None:
    path = path.rstrip("\n")
    # git ends a name holding a space with a tab (for patch(1)); a quoted name has none
    path = path.split("\t", 1)[0] if not path.startswith('"') else path.rstrip("\t")
    path = unquote_git_path(path)
    if path == "/dev/null":
        return None
    return path[2:] if path[:2] in ("a/", "b/") else path


def parse_patch(text: str) -> list[FilePatch]:
    """Files and changed old lines of a unified (git) diff. A pure insertion marks the old
    line it follows, so the definition it was added to counts as changed.

    A hunk is read for as many lines as its header counts: a removed ``-- x`` followed by
    an added ``++ y`` is ``--- x`` and ``+++ y`` in the diff, and is no file header.
    """
    files: list[FilePatch] = []
    current: FilePatch | None = None
    old_line = 0
    in_hunk = False
    old_left = new_left = -1  # lines the hunk's header still owes (-1: not counted)
    lines = text.split("\n")
    for index, line in enumerate(lines):
        line = line.removesuffix("\r")
        counted = in_hunk and (old_left > 0 or new_left > 0)
        if line.startswith("diff --git ") or (
                not counted and line.startswith("--- ") and index + 1 < len(lines)
                and lines[index + 1].startswith("+++ ")):
            in_hunk = False
            if line.startswith("diff --git "):
                current = None
            else:
                current = FilePatch(old_path=_strip(line[4:]),
                                    new_path=_strip(lines[index + 1][4:]))
                files.append(current)
            continue
        if current is None:
            continue
        match = None if counted else _HUNK.match(line)
        if match:
            old_line = int(match.group(1))
            old_left = int(match.group(2)) if match.group(2) is not None else 1
            new_left = int(match.group(4)) if match.group(4) is not None else 1
            in_hunk = True
            continue
        if not in_hunk or (not counted and line.startswith("+++ ")):
            continue
        if line.startswith("-"):
            current.old_lines.add(old_line)
            old_line += 1
            old_left -= 1
        elif line.startswith("+"):
            current.old_lines.add(max(1, old_line - 1))
            new_left -= 1
        elif line.startswith(" ") or line == "":
            old_line += 1
            old_left -= 1
            new_left -= 1
        elif line.startswith("\\"):
            continue
        else:
            in_hunk = False
        if old_left <= 0 and new_left <= 0:
            in_hunk = False  # the hunk is whole: what follows is a header or another hunk
    return files


def changed_definitions(path: str, data: bytes, lines: set[int]) -> list[SymbolDef]:
    """The innermost definitions of ``path`` (old content ``data``) owning ``lines``."""
    definitions = chunk_file(path, data).definitions
    touched = [d for d in definitions
               if any(d.start_line <= line <= d.end_line for line in lines)]
    innermost = [d for d in touched
                 if not any(o is not d and d.start_line <= o.start_line and o.end_line <= d.end_line
                            and (o.start_line, o.end_line) != (d.start_line, d.end_line)
                            for o in touched)]
    return sorted(innermost, key=lambda d: (d.start_line, d.qualified))


def git_output(repo: str, *args: str, timeout: float = 60) -> bytes:
    """Run git in ``repo`` through the one git helper; an InputError (one sentence) when it
    fails, since the repository is the user's input here."""
    try:
        return git(args, repo=repo, timeout=timeout).stdout
    except CodeIndexError as err:
        raise InputError(str(err)) from None


def commit_at(repo: str, stamp: str) -> str | None:
    """The commit of ``repo``'s HEAD history current at time ``stamp`` (any date git's
    ``--before`` reads), or None when there is none or the stamp is not a date."""
    if not stamp or stamp.startswith("-") or "\0" in stamp:
        return None
    try:
        done = git(["rev-list", "-1", f"--before={stamp}", "HEAD"], repo=repo, timeout=30,
                   check=False)
    except CodeIndexError as err:
        raise InputError(str(err)) from None
    sha = done.text.strip()
    return sha if done.ok and is_full_sha(sha) else None


def file_at(repo: str, revision: str, path: str) -> bytes | None:
    """The bytes of ``path`` at ``revision`` (a full sha), or None when it does not exist."""
    if not is_full_sha(revision):
        return None
    try:
        return git_output(repo, "cat-file", "blob", f"{revision}:{path}")
    except InputError:
        return None
