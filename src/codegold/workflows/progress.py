"""What the workflows report while they work, typed: the CLI draws it, the demo ignores it.

Each is a plain callable over a frozen event record, or a small protocol where a workflow
reports more than one kind of event; ``None`` always means "nobody is watching"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from codegold.index.build import BuildProgress
from codegold.index.many import ManyProgress
from codegold.model import Attempt
from codegold.retrieve.embedpass import EmbedProgress

# one index build: listing, chunking, done
BuildProgressFn = Callable[[BuildProgress], None]
# many revisions (of one repository or of a folder of clones): one revision at a time
ManyProgressFn = Callable[[ManyProgress], None]
# the full dense pass: texts embedded, then indexes cached
EmbedProgressFn = Callable[[EmbedProgress], None]


class RunProgress(Protocol):
    """What :func:`codegold.workflows.run` tells its watcher."""

    def planned(self, total: int, done: int) -> None:
        """``total`` attempts make the run, ``done`` of them were already written."""

    def attempted(self, attempt: Attempt) -> None:
        """One attempt was written (an error attempt included)."""


__all__ = ["BuildProgress", "BuildProgressFn", "EmbedProgress", "EmbedProgressFn",
           "ManyProgress", "ManyProgressFn", "RunProgress"]
