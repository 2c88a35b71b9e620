"""What a trajectory reader hands on: the agent's tool calls in order, format-neutral.

Every format reader (``formats/``) turns its file into :class:`Trajectory` records; the
tool interpreters (:mod:`codegold.trajectories.tools`) turn each :class:`ToolCall` into
the spans it showed the model (:class:`Seen`) and the spans it changed (:class:`Change`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["read", "search_hit"]


@dataclass(frozen=True)
class ToolCall:
    """One tool call and what it returned.

    ``step`` is the model turn that issued it (0-based; calls of one turn share it),
    ``tool`` the name the agent used, ``handler`` how codegold interprets it (a key of
    :data:`codegold.trajectories.tools.HANDLERS`), ``output`` the text the model was shown
    (None when the trajectory does not record it), ``cwd`` the shell's directory when the
    call ran (when recorded), ``detail`` structured results some formats record beside the
    text (Claude Code's ``toolUseResult``), ``failed`` when the call reported an error.
    """

    step: int
    tool: str
    handler: str
    args: Mapping[str, Any] = field(default_factory=dict)
    output: str | None = None
    cwd: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    failed: bool = False
    clipped: bool = False  # the output was longer than codegold reads and was cut


@dataclass(frozen=True)
class Trajectory:
    """One agent run, as a format reader found it in ``source``."""

    source: str
    label: str                      # the file name (and trace id), used in chunk ids
    instance_id: str | None
    calls: tuple[ToolCall, ...]
    final: str | None = None
    roots: tuple[str, ...] = ()     # absolute directories the repository was checked out at
    notes: tuple[str, ...] = ()     # what the reader had to skip or repair, said plainly
    record: Any = None              # the decoded document, for --map field paths


@dataclass(frozen=True)
class Seen:
    """Lines (or, with no lines, a file) a tool call showed the model."""

    path: str                       # as the tool showed it: absolute, or relative to ``cwd``
    kind: Kind
    outside: bool = False           # a search named it, but the revision has no such file
    start: int | None = None
    lines: tuple[str, ...] = ()     # the text of lines start, start+1, ... as shown
    cwd: str | None = None
    # lines shown when more were shown than their text is known (a span placed by the
    # numbers a tool reported): counted, never materialised as empty strings
    count: int = 0
    # the same command changed the file before showing it (`sed -i … a.py && cat a.py`):
    # the lines are the changed file's
    edited: bool = False

    @property
    def size(self) -> int:
        """How many lines the span covers (at least one)."""
        return max(len(self.lines), self.count, 1)

    @property
    def end(self) -> int | None:
        return None if self.start is None else self.start + self.size - 1


@dataclass(frozen=True)
class Change:
    """A file (and, when known, the lines) a tool call changed."""

    path: str
    start: int | None = None
    end: int | None = None
    cwd: str | None = None
    created: bool = False           # the call created the file (or wrote it whole, new)


@dataclass
class Findings:
    """What interpreting one call produced, and why anything in it was passed over."""

    seen: list[Seen] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # why the call (or a part) was passed over
    notes: list[str] = field(default_factory=list)  # read, but in a way worth saying
    # (path, cwd, lines) of files shown whole: their length places a later `tail -n N`
    lengths: list[tuple[str, str | None, int]] = field(default_factory=list)
