"""The context an agent built, in the order it first entered the model's input.

Each span a call showed becomes chunks with the lines no earlier call had shown: a span
read twice counts once, at its first step, and a later read overlapping an earlier one
adds only its new lines, as new chunks. A search hit never hides a later read of the
same lines (reading is what the agent chose to do with a hit), but a hit on lines
already shown adds nothing. A hit on a whole file (a file name in a result list) adds a
chunk only for a file nothing has shown yet.

What a call showed is redacted whole before it is split into chunks (a private key
shown after its first lines were shown by an earlier call must still be seen as one),
and a key whose end no call has shown yet keeps the lines after its start redacted in
every later span of that file. Every line shown of a secret-bearing file (``server.key``,
``id_rsa``, ``.env``: its name says so) is redacted, whatever lines were read.

A file the agent created (written whole before anything showed it: a reproduction
script, a backup, a patch file) is marked ``created`` on every chunk of it; a span shown
after the agent changed its file is marked ``after_edit`` (its line numbers are the
changed file's).

Sizes: ``tokens`` is the characters of the lines' text shown (numbers and decoration not
counted) divided by four, rounded up (no tokenizer is involved, so figures agree across
machines; see docs/agents.md).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

import msgspec

from codegold.model import Chunk, Edit
from codegold.plumbing.secrets import (
    find_secrets,
    is_program_text,
    redact_whole,
    replace_spans,
    secret_file_kind,
)
from codegold.trajectories.paths import PathPlacer
from codegold.trajectories.records import Change, Seen

MAX_CHUNKS = 5000
"""Most chunks kept of one trajectory; later context is dropped (and reported)."""
EXCERPT_CHARS = 800
"""Longest excerpt kept with a chunk (the text shown, from its first line)."""
_KEY_START = "-----BEGIN PRIVATE KEY-----\n"
_KEY_END = re.compile(r"-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----")
_PATCH_OLD = re.compile(r"^--- (?:a/)?([^\t\n]+)", re.M)


def tokens_of(text: str) -> int:
    """Characters / 4, rounded up: codegold's tokenizer-free size of a text."""
    return (len(text) + 3) // 4


class LineSet:
    """Disjoint, non-adjacent line intervals of one file, kept sorted: what is missing
    from a span and adding one cost a bisection and the intervals they touch."""

    __slots__ = ("highs", "lows")

    def __init__(self) -> None:
        self.lows: list[int] = []
        self.highs: list[int] = []

    def __len__(self) -> int:
        return len(self.lows)

    def missing(self, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of ``start..end`` outside every interval."""
        parts: list[tuple[int, int]] = []
        cursor = start
        index = bisect_left(self.highs, start)  # the first interval ending at or after it
        while index < len(self.lows) and self.lows[index] <= end:
            if self.lows[index] > cursor:
                parts.append((cursor, self.lows[index] - 1))
            cursor = max(cursor, self.highs[index] + 1)
            if cursor > end:
                break
            index += 1
        if cursor <= end:
            parts.append((cursor, end))
        return parts

    def add(self, start: int, end: int) -> None:
        first = bisect_left(self.highs, start - 1)  # touching or overlapping ones merge
        last = bisect_right(self.lows, end + 1)
        if first < last:
            start = min(start, self.lows[first])
            end = max(end, self.highs[last - 1])
        self.lows[first:last] = [start]
        self.highs[first:last] = [end]


def patch_existing(final: str | None) -> set[str]:
    """Files a patch changes that existed before it (``--- a/PATH``, not ``/dev/null``)."""
    if not final or "\n--- " not in f"\n{final}":
        return set()
    return {m.group(1).strip() for m in _PATCH_OLD.finditer(final)
            if m.group(1).strip() != "/dev/null"}


@dataclass
class Ledger:
    """Builds an attempt's ``ranked`` chunks and ``edits`` from what calls showed."""

    placer: PathPlacer
    revision: str
    label: str
    chunks: list[Chunk] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    dropped: int = 0
    _read: dict[str, LineSet] = field(default_factory=dict)
    _shown: dict[str, LineSet] = field(default_factory=dict)
    _files: set[str] = field(default_factory=set)
    _ids: set[str] = field(default_factory=set)
    _edited: set[Edit] = field(default_factory=set)
    _changed: set[str] = field(default_factory=set)
    _created: set[str] = field(default_factory=set)
    # per file, private keys seen: (first line, last line or None while no END was shown)
    _keys: dict[str, list[tuple[int, int | None]]] = field(default_factory=dict)

    def see(self, seen: Seen, step: int, tool: str) -> int:
        """Record what ``seen`` adds; returns the number of chunks added."""
        path, outside = self.placer.place(seen.path, seen.cwd)
        outside = outside or seen.outside
        if not path or path in (".", "/"):
            return 0
        if seen.start is None or (not seen.lines and not seen.count):
            if path in self._files:
                return 0
            self._files.add(path)
            return self._chunk(path, outside, None, None, (seen.path,), (seen.path,), seen,
                               step, tool)
        start = seen.start
        end = start + seen.size - 1
        shadow = self._read if seen.kind == "read" else self._shown
        taken = shadow.get(path)
        parts = taken.missing(start, end) if taken is not None else [(start, end)]
        if len(self.chunks) >= MAX_CHUNKS:
            # nothing more is kept, so nothing more need be remembered
            self.dropped += len(parts)
            return 0
        clean = self._redacted(path, start, seen.lines)
        added = 0
        for low, high in parts:
            shown = seen.lines[low - start: high - start + 1]
            texts = clean[low - start: high - start + 1]
            added += self._chunk(path, outside, low, high, shown, texts, seen, step, tool)
        if seen.kind == "read":
            self._read.setdefault(path, LineSet()).add(start, end)
        self._shown.setdefault(path, LineSet()).add(start, end)
        self._files.add(path)
        return added

    def _redacted(self, path: str, start: int, lines: tuple[str, ...]) -> tuple[str, ...]:
        """``lines`` (of ``path`` from line ``start``) redacted as one text; lines inside a
        private key an earlier span began and none has ended yet are redacted too."""
        if not lines:
            return lines
        whole = secret_file_kind(path)
        if whole is not None:  # a key read from its middle shows no BEGIN line: the name decides
            return tuple(redact_whole(line, whole) for line in lines)
        text = "\n".join(lines)
        keys = self._keys.get(path, [])
        inside = any(first < start and (last is None or start <= last) for first, last in keys)
        prefix = _KEY_START if inside else ""
        full = prefix + text
        found = find_secrets(full, code=is_program_text(path))
        spans = [(max(0, s - len(prefix)), e - len(prefix), kind) for s, e, kind in found
                 if e > len(prefix)]
        line, at = start - (1 if prefix else 0), 0  # the line number of position ``at``
        for s, e, kind in found:
            if kind != "private_key":
                continue
            line, at = line + full.count("\n", at, s), s
            first = line
            closed = _KEY_END.search(full, s, e)
            last = None
            if closed:
                line, at = line + full.count("\n", at, closed.start()), closed.start()
                last = line
            if prefix and s == 0:  # the key an earlier span began: ended here?
                keys = [(low, last if high is None and low < start and last is not None
                         else high) for low, high in keys]
            else:
                keys.append((first, last))
        if keys:
            self._keys[path] = keys[-64:]  # a file holds few keys; a flood keeps the last
        if not spans:
            return lines
        clean = replace_spans(text, spans)[0].split("\n")
        if len(clean) != len(lines):  # a placeholder keeps line breaks; never misplace
            return tuple("<SECRET:redacted>" for _ in lines)
        return tuple(clean)

    def _chunk(self, path: str, outside: bool, start: int | None, end: int | None,
               shown: tuple[str, ...], texts: tuple[str, ...], seen: Seen, step: int,
               tool: str) -> int:
        if len(self.chunks) >= MAX_CHUNKS:
            self.dropped += 1
            return 0
        span = f"#L{start}-{end}" if start is not None else ""
        chunk_id = f"traj:{path}{span}@{step}"
        serial = 2
        while chunk_id in self._ids:  # one step showing one span twice (two kinds)
            chunk_id = f"traj:{path}{span}@{step}.{serial}"
            serial += 1
        self._ids.add(chunk_id)
        text = "\n".join(texts)
        excerpt = text[:EXCERPT_CHARS] + ("…" if len(text) > EXCERPT_CHARS else "")
        if start is not None and end is not None and len(shown) < end - start + 1:
            # lines placed by numbers, their text unknown: sized as the blank lines they
            # would be (a line break each), without building them
            size = len("\n".join(shown)) + (end - start + 1 - max(len(shown), 1))
        else:
            size = len("\n".join(shown))
        self.chunks.append(Chunk(
            chunk_id=chunk_id, file=path, start_line=start, end_line=end,
            revision=self.revision, excerpt=excerpt if start is not None and text else None,
            step=step, tool=tool, kind=seen.kind, tokens=(size + 3) // 4,
            outside_repo=outside, created=path in self._created,
            after_edit=path in self._changed or path in self._created or seen.edited))
        return 1

    def creating(self, change: Change) -> None:
        """A call's ``change`` made its file: known before what the call showed is seen
        (``cmd > patch.txt && cat patch.txt``)."""
        path, _ = self.placer.place(change.path, change.cwd)
        if change.created and path not in self._files and path not in self._changed:
            self._created.add(path)

    def change(self, change: Change, step: int, tool: str) -> None:
        path, _ = self.placer.place(change.path, change.cwd)
        if not path or path in (".", "/"):
            return
        self.creating(change)
        self._changed.add(path)
        edit = Edit(file=path, start_line=change.start, end_line=change.end, step=step,
                    tool=tool)
        if edit not in self._edited and len(self.edits) < MAX_CHUNKS:
            self._edited.add(edit)
            self.edits.append(edit)

    def settle(self, final: str | None) -> None:
        """A file the final patch shows as changed, not added, existed before the agent
        wrote it whole: its chunks are not of a created file."""
        existing = patch_existing(final) & self._created
        if not existing:
            return
        self._created -= existing
        self.chunks = [msgspec.structs.replace(c, created=False) if c.file in existing else c
                       for c in self.chunks]

    @property
    def created(self) -> set[str]:
        return set(self._created)
