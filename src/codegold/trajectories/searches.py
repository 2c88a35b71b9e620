"""Reading what a grep-like search printed (``grep``, ``rg``, ``git grep``, ``ag``, Claude
Code's ``Grep``) and the path lists of ``find`` and ``Glob``, as the hits they showed.

A match line is ``path:12:text`` (``path:text`` without line numbers); with ``-A``/``-B``/
``-C`` a context line is ``path-12-text`` (``path-text``) and ``--`` separates groups,
one file's lines each. Both the path and the text may hold ``:`` and ``-``, so a group's
path is the part every one of its lines shares up to the separator where its match and
context lines differ; a line is never a file by itself unless it reads as a match line,
so a context line (``tests/a.py-    def f(self) -> None:``) never names a file.

When the files of the revision are known (the import was given its index), a path is
read as the first reading of the line that names one of them, and a path that names none
(a file the agent made, a directory, a misread line) is kept marked outside the revision.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice

from codegold.plumbing.numbers import as_int, number
from codegold.plumbing.text import json_loads
from codegold.trajectories.outputs import split_lines
from codegold.trajectories.records import Seen

AtRevision = Callable[[str, "str | None"], "bool | None"]
"""``(path, cwd)``: True when the file is at the revision (or lies outside the
repository), False when the revision's files are known and it is not among them, None
when they are not known."""

MAX_READINGS = 16
"""Most separators of one line tried as the end of its path (a bound on the work per
line, whatever the line holds)."""

_MATCH_NUMBERED = re.compile(r":(\d++):")
_CONTEXT_NUMBERED = re.compile(r"-(\d++)-")
_BARE = re.compile(r"([^\s:][^:]*+):(\d++)")  # "path:12", no text (rg --vimgrep-like tools)
_LINE_TEXT = re.compile(r"(\d++)[:-](.*)", re.S)
# what the search tool itself says on stderr ("grep: x: No such file or directory")
_COMPLAINT = re.compile(r"(?:grep|egrep|fgrep|rg|ag|git|find|xargs|fatal|usage): ")


def _unknown(path: str, cwd: str | None) -> bool | None:
    return None


class _Hits:
    """Hits in the order shown: consecutive lines of one file form one span; files named
    without lines come last, each once."""

    def __init__(self, cwd: str | None, at_revision: AtRevision) -> None:
        self.cwd = cwd
        self.at_revision = at_revision
        self.seen: list[Seen] = []
        self.pending: tuple[str, int, list[str]] | None = None
        self.names: dict[str, None] = {}
        self.verdicts: dict[str, bool | None] = {}

    def verdict(self, path: str) -> bool | None:
        if path not in self.verdicts:
            self.verdicts[path] = self.at_revision(path, self.cwd)
        return self.verdicts[path]

    def known(self, path: str) -> bool:
        """The path names a file at the revision (False too when the files are not known)."""
        return self.verdict(path) is True

    def outside(self, path: str) -> bool:
        return self.verdict(path) is False

    def _close(self) -> None:
        if self.pending is not None:
            path, start, texts = self.pending
            self.seen.append(Seen(path=path, kind="search_hit", start=start, lines=tuple(texts),
                                  cwd=self.cwd, outside=self.outside(path)))
            self.pending = None

    def line(self, path: str, at: int, text: str) -> None:
        if self.pending is not None and self.pending[0] == path:
            start, texts = self.pending[1], self.pending[2]
            if at == start + len(texts):
                texts.append(text)
                return
            if start <= at < start + len(texts):
                return
        self._close()
        self.pending = (path, at, [text])

    def name(self, path: str) -> None:
        self.names.setdefault(path, None)

    def done(self) -> list[Seen]:
        self._close()
        self.seen.extend(Seen(path=name, kind="search_hit", cwd=self.cwd,
                              outside=self.outside(name)) for name in self.names)
        return self.seen


def _numbered_readings(line: str, context: bool) -> list[tuple[str, int, str]]:
    """``(path, line number, text)`` readings of ``path:12:text`` (``path-12-text`` too
    with context), shortest path first."""
    found: list[tuple[str, int, str]] = []
    patterns = (_MATCH_NUMBERED, _CONTEXT_NUMBERED) if context else (_MATCH_NUMBERED,)
    for pattern in patterns:  # the first readings of each kind, so that neither hides
        for match in islice(pattern.finditer(line), MAX_READINGS):
            at = number(match.group(1))
            if match.start() > 0 and at is not None and at >= 1:
                found.append((line[:match.start()], at, line[match.end():]))
    found.sort(key=lambda reading: len(reading[0]))
    return found[:MAX_READINGS]


def _shared_prefix(lines: list[str]) -> str:
    """The longest prefix of every line: that of the least and greatest (one pass each)."""
    low, high = min(lines), max(lines)
    size = 0
    while size < len(low) and size < len(high) and low[size] == high[size]:
        size += 1
    return low[:size]


def _group_path(group: list[str]) -> str | None:
    """The path a group of one file's lines shares, where its match lines (``path:``) and
    context lines (``path-``) part; None when the group does not show both."""
    if len(group) < 2 or len({line.find(":") for line in group}) == 1:
        return None  # one line, or match lines only: each names its file where it says
    shared = _shared_prefix(group)
    parting = {line[len(shared)] if len(line) > len(shared) else "" for line in group}
    return shared if shared.strip() and parting == {":", "-"} else None


def _place_group(group: list[str], numbers: bool, context: bool, hits: _Hits) -> None:
    path = _group_path(group)
    if path is not None and numbers:
        # every line must then read path:N:text or path-N-text, else the parting was in
        # the text of match lines (all of one kind) and the lines are read one by one
        tail = [line[len(path):] for line in group]
        if not all((_MATCH_NUMBERED if rest[0] == ":" else _CONTEXT_NUMBERED).match(rest)
                   for rest in tail):
            path = None
    if path is None:
        for line in group:
            _place_line(line, numbers, context, hits)
        return
    for line in group:
        rest = line[len(path):]
        if not numbers:
            hits.name(path)
            continue
        match = (_MATCH_NUMBERED if rest[0] == ":" else _CONTEXT_NUMBERED).match(rest)
        at = number(match.group(1)) if match else None
        if match and at is not None and at >= 1:
            hits.line(path, at, rest[match.end():])


def _place_line(line: str, numbers: bool, context: bool, hits: _Hits) -> None:
    """A line read on its own. Without a list of the revision's files it is read only as
    a match line, and not at all when a context reading (``path-12-text``) of it would end
    its path sooner: a context line never names a file. With the list, the first reading
    whose path is at the revision wins."""
    if numbers:
        readings = _numbered_readings(line, context)
        if not readings:
            bare = _BARE.fullmatch(line)
            at = number(bare.group(2)) if bare else None
            if bare and at is not None and at >= 1:
                hits.line(bare.group(1), at, "")
            return
        chosen = next((r for r in readings if hits.known(r[0])), None)
        if chosen is None:
            first = readings[0]
            if line[len(first[0])] != ":":
                return
            chosen = first
        hits.line(*chosen)
        return
    ends = [i for i in _separators(line, ":-" if context else ":") if line[:i].strip()
            and not line[0].isspace()]
    known = next((i for i in ends if hits.known(line[:i])), None)
    if known is not None:
        hits.name(line[:known].strip())
    elif ends and line[ends[0]] == ":":
        hits.name(line[:ends[0]].strip())


def _separators(line: str, marks: str) -> list[int]:
    """Positions of the first ``MAX_READINGS`` of ``marks`` in ``line``."""
    found: list[int] = []
    for mark in marks:  # the first of each mark, so that neither hides the other
        position = line.find(mark)
        taken = 0
        while position >= 0 and taken < MAX_READINGS:
            found.append(position)
            taken += 1
            position = line.find(mark, position + 1)
    return sorted(found)[:MAX_READINGS]


def _groups(lines: list[str], context: bool) -> list[list[str]]:
    """Lines between ``--`` separators (each line alone without context)."""
    kept = [line for line in lines if line == "--" or (
        line.strip() and not line.startswith("Binary file ") and not _COMPLAINT.match(line))]
    if not context:
        return [[line] for line in kept if line != "--"]
    groups: list[list[str]] = [[]]
    for line in kept:
        if line == "--":
            groups.append([])
        else:
            groups[-1].append(line)
    return [group for group in groups if group]


def search_hits(output: str, *, with_names: bool, with_numbers: bool, only_names: bool,
                single_file: str | None, context: bool, cwd: str | None,
                at_revision: AtRevision | None = None) -> list[Seen]:
    """``grep``/``rg``/``git grep`` output as the hits it showed.

    With line numbers: ``path:12:text`` (``path-12-text`` for context lines), or
    ``12:text`` when one file was searched without file names; without: ``path:text``
    is a hit on the file; ``-l`` lists files. Consecutive lines of one file form one span.
    """
    hits = _Hits(cwd, at_revision or _unknown)
    lines = split_lines(output)
    if only_names:
        for line in lines:
            text = line.strip()
            if text and text != "--" and not text.startswith("Binary file "):
                hits.name(text)
        return hits.done()
    if not with_names:
        if single_file is None:
            return []
        for line in lines:
            if not line.strip() or line == "--" or line.startswith("Binary file "):
                continue
            if not with_numbers:
                hits.name(single_file)
                continue
            match = _LINE_TEXT.fullmatch(line)
            at = number(match.group(1)) if match else None
            if match and at is not None and at >= 1:
                hits.line(single_file, at, match.group(2))
        return hits.done()
    for group in _groups(lines, context):
        _place_group(group, with_numbers, context, hits)
    return hits.done()


def listed_paths(output: str, cwd: str | None, at_revision: AtRevision | None = None
                 ) -> list[Seen]:
    """One path a line (``find``, ``Glob``, ``git ls-files``): hits on files."""
    hits = _Hits(cwd, at_revision or _unknown)
    for line in split_lines(output):
        text = line.strip()
        if text and not text.startswith(("find: ", "Found ", "No files found")):
            hits.name(text)
    return hits.done()


MAX_LINE = 999_999_999
"""Largest line number an ``rg --json`` message is read with (as a printed one)."""
_HEADED_LINE = re.compile(r"(\d++)[:-](.*)", re.S)


def heading_hits(output: str, cwd: str | None, at_revision: AtRevision | None = None
                 ) -> list[Seen]:
    """``rg``/``ag`` output on a terminal (an agent's shell in tmux): each file's name on a
    line of its own, then its lines ``12:text`` (context ``13-text``), a blank line
    between files. Read only when every group is so: a name line, then numbered lines."""
    hits = _Hits(cwd, at_revision or _unknown)
    path: str | None = None
    for line in split_lines(output):
        if not line.strip():
            path = None
            continue
        numbered = _HEADED_LINE.fullmatch(line)
        at = number(numbered.group(1)) if numbered else None
        if path is None:
            if numbered is not None and at is not None:
                return []  # a numbered line with no name before it: not this shape
            path = line.strip()
        elif line == "--":
            continue
        elif numbered is not None and at is not None and at >= 1:
            hits.line(path, at, numbered.group(2))
        else:
            return []
    return hits.done()


def rg_json_hits(output: str, cwd: str | None, at_revision: AtRevision | None = None
                 ) -> list[Seen]:
    """``rg --json`` output, one message a line: each ``match`` and ``context`` message
    names its file (``data.path.text``), its first line's number and its lines. A line
    that is not a whole message (the output was cut inside one) shows nothing, and a
    file named only by its bytes (``data.path.bytes``: not UTF-8) is passed over."""
    hits = _Hits(cwd, at_revision or _unknown)
    for line in split_lines(output):
        if not line.startswith("{"):
            continue
        try:
            message = json_loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(message, dict) or message.get("type") not in ("match", "context"):
            continue
        data = message.get("data")
        if not isinstance(data, dict):
            continue
        path = data.get("path")
        name = path.get("text") if isinstance(path, dict) else None
        if not isinstance(name, str) or not name.strip():
            continue
        at = as_int(data.get("line_number"))
        shown = data.get("lines")
        text = shown.get("text") if isinstance(shown, dict) else None
        if at is None or not 1 <= at <= MAX_LINE or not isinstance(text, str):
            hits.name(name)
            continue
        for offset, part in enumerate(split_lines(text) or [""]):
            if at + offset > MAX_LINE:
                break
            hits.line(name, at + offset, part)
    return hits.done()


__all__ = ["MAX_READINGS", "AtRevision", "heading_hits", "listed_paths", "rg_json_hits",
           "search_hits"]
