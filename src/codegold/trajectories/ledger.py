"""The context an agent built, in the order it first entered the model's input.

Each span a call showed becomes chunks with the lines no earlier call had shown: a span
read twice counts once, at its first step, and a later read overlapping an earlier one
adds only its new lines, as new chunks. A search hit never hides a later read of the
same lines (reading is what the agent chose to do with a hit), but a hit on lines
already shown adds nothing. A hit on a whole file (a file name in a result list) adds a
chunk only for a file nothing has shown yet.

Sizes: ``tokens`` is the characters of the lines' text shown (numbers and decoration not
counted) divided by four, rounded up (no tokenizer is involved, so figures agree across
machines; see docs/agents.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codegold.model import Chunk, Edit
from codegold.trajectories.paths import PathPlacer
from codegold.trajectories.records import Change, Seen

MAX_CHUNKS = 5000
"""Most chunks kept of one trajectory; later context is dropped (and reported)."""
EXCERPT_CHARS = 800
"""Longest excerpt kept with a chunk (the text shown, from its first line)."""


def tokens_of(text: str) -> int:
    """Characters / 4, rounded up: codegold's tokenizer-free size of a text."""
    return (len(text) + 3) // 4


def _subtract(start: int, end: int, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``start..end`` outside every interval of ``taken`` (sorted, merged)."""
    parts: list[tuple[int, int]] = []
    cursor = start
    for low, high in taken:
        if high < cursor:
            continue
        if low > end:
            break
        if low > cursor:
            parts.append((cursor, min(end, low - 1)))
        cursor = max(cursor, high + 1)
        if cursor > end:
            break
    if cursor <= end:
        parts.append((cursor, end))
    return parts


def _add(taken: list[tuple[int, int]], start: int, end: int) -> None:
    taken.append((start, end))
    taken.sort()
    merged: list[tuple[int, int]] = []
    for low, high in taken:
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    taken[:] = merged


@dataclass
class Ledger:
    """Builds an attempt's ``ranked`` chunks and ``edits`` from what calls showed."""

    placer: PathPlacer
    revision: str
    label: str
    chunks: list[Chunk] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    dropped: int = 0
    _read: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    _shown: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    _files: set[str] = field(default_factory=set)
    _ids: set[str] = field(default_factory=set)
    _edited: set[Edit] = field(default_factory=set)

    def see(self, seen: Seen, step: int, tool: str) -> int:
        """Record what ``seen`` adds; returns the number of chunks added."""
        path, outside = self.placer.place(seen.path, seen.cwd)
        outside = outside or seen.outside
        if not path or path in (".", "/"):
            return 0
        if seen.start is None or not seen.lines:
            if path in self._files:
                return 0
            self._files.add(path)
            return self._chunk(path, outside, None, None, (seen.path,), seen, step, tool)
        start, end = seen.start, seen.start + len(seen.lines) - 1
        shadow = self._read if seen.kind == "read" else self._shown
        added = 0
        for low, high in _subtract(start, end, shadow.get(path, [])):
            texts = seen.lines[low - start: high - start + 1]
            added += self._chunk(path, outside, low, high, texts, seen, step, tool)
        if seen.kind == "read":
            _add(self._read.setdefault(path, []), start, end)
        _add(self._shown.setdefault(path, []), start, end)
        self._files.add(path)
        return added

    def _chunk(self, path: str, outside: bool, start: int | None, end: int | None,
               texts: tuple[str, ...], seen: Seen, step: int, tool: str) -> int:
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
        self.chunks.append(Chunk(
            chunk_id=chunk_id, file=path, start_line=start, end_line=end,
            revision=self.revision, excerpt=excerpt if start is not None and text else None,
            step=step, tool=tool, kind=seen.kind, tokens=tokens_of(text),
            outside_repo=outside))
        return 1

    def change(self, change: Change, step: int, tool: str) -> None:
        path, _ = self.placer.place(change.path, change.cwd)
        if not path or path in (".", "/"):
            return
        edit = Edit(file=path, start_line=change.start, end_line=change.end, step=step,
                    tool=tool)
        if edit not in self._edited and len(self.edits) < MAX_CHUNKS:
            self._edited.add(edit)
            self.edits.append(edit)
