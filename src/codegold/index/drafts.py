"""Chunk drafts and the size limits every chunker honours.

A draft is a chunk before its id, role and neighbours are fixed. ``windows`` is the one
place that cuts text by size, so no chunker can emit a chunk larger than
``MAX_CHUNK_CHARS`` (plus a bounded header), even for a file made of one 2 MB line.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

from codegold.index.structure import SymbolSpan

MAX_CHUNK_LINES = 200
MAX_CHUNK_CHARS = 8_000
WINDOW_LINES = 60
MAX_HEADER_CHARS = 600


@dataclass(frozen=True)
class Draft:
    """A chunk before finalisation; rows are 0-based and inclusive."""

    start: int
    end: int
    kind: str
    symbol: str | None
    symbols: tuple[str, ...]
    role: str                     # definition | declaration | module | docs | config | window
    text: str
    has_signature: bool
    group: int | None = None      # drafts of one region share a group (split parts)
    parent_group: int | None = None
    defines: tuple[SymbolSpan, ...] = ()


class Lines:
    """A file's lines with cumulative sizes, so range sizes cost O(1)."""

    def __init__(self, text: str) -> None:
        lines = text.split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()
        self.items = lines
        # characters before each row, newlines counted (each line's length plus one)
        self._cumulative = list(accumulate(map((1).__add__, map(len, lines)), initial=0))

    def __len__(self) -> int:
        return len(self.items)

    def chars(self, start: int, end: int) -> int:
        """Characters in rows ``start..end`` inclusive, newlines counted.

        Rows past the last line count as empty: tree-sitter can end an error node one
        row after the file's last line (a trailing line continuation does it).
        """
        end = min(end, len(self.items) - 1)
        if end < start:
            return 0
        return self._cumulative[end + 1] - self._cumulative[start]

    def text(self, start: int, end: int) -> str:
        return "\n".join(self.items[start:end + 1])

    def longest(self) -> int:
        return max(map(len, self.items), default=0)


def fits(lines: Lines, start: int, end: int) -> bool:
    return end - start + 1 <= MAX_CHUNK_LINES and lines.chars(start, end) <= MAX_CHUNK_CHARS


def clip_header(header: str) -> str:
    """A header repeated in front of a part, bounded so it cannot dominate the chunk."""
    if len(header) <= MAX_HEADER_CHARS:
        return header
    return header[:MAX_HEADER_CHARS] + " …"


def windows(lines: Lines, start: int, end: int, *, max_lines: int = MAX_CHUNK_LINES
            ) -> list[tuple[int, int, str]]:
    """Cut rows ``start..end`` into pieces within the line and character limits.

    A single line longer than the character limit becomes several pieces that all name
    that line, so a minified file still yields bounded chunks.
    """
    pieces: list[tuple[int, int, str]] = []
    row = start
    while row <= end:
        line = lines.items[row]
        if len(line) + 1 > MAX_CHUNK_CHARS:
            for offset in range(0, len(line), MAX_CHUNK_CHARS):
                pieces.append((row, row, line[offset:offset + MAX_CHUNK_CHARS]))
            row += 1
            continue
        last = row
        while (last + 1 <= end and last + 1 - row + 1 <= max_lines
               and lines.chars(row, last + 1) <= MAX_CHUNK_CHARS):
            last += 1
        pieces.append((row, last, lines.text(row, last)))
        row = last + 1
    return pieces


def line_drafts(lines: Lines, *, kind: str = "window", role: str = "window",
                first_group: int = 0) -> list[Draft]:
    """Plain line windows: the fallback for files no structural chunker handles."""
    if not len(lines):
        return []
    return [Draft(start=s, end=e, kind=kind, symbol=None, symbols=(), role=role, text=t,
                  has_signature=False, group=first_group + i)
            for i, (s, e, t) in enumerate(windows(lines, 0, len(lines) - 1,
                                                  max_lines=WINDOW_LINES))]
