"""What the workflows report while they work, typed: the CLI draws it, the demo ignores it.

Each is a plain callable over a frozen event record, or a small protocol where a workflow
reports more than one kind of event; ``None`` always means "nobody is watching"."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from codegold.index.build import BuildProgress
from codegold.index.many import ManyProgress
from codegold.model import Attempt
from codegold.retrieve.warm import WarmProgress

if TYPE_CHECKING:  # the dense pass's records: imported only where it runs
    from codegold.retrieve.embedpass import EmbedProgress, EmbedSummary

# one index build: listing, chunking, done
BuildProgressFn = Callable[[BuildProgress], None]
# many revisions (of one repository or of a folder of clones): one revision at a time
ManyProgressFn = Callable[[ManyProgress], None]
# the full dense pass: texts embedded, then indexes cached
EmbedProgressFn = Callable[["EmbedProgress"], None]


def __getattr__(name: str) -> Any:
    """``EmbedProgress`` and ``EmbedSummary``, imported on first use: an index build
    never loads the dense modules."""
    if name in ("EmbedProgress", "EmbedSummary"):
        from codegold.retrieve import embedpass

        return getattr(embedpass, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RunProgress(Protocol):
    """What :func:`codegold.workflows.run` tells its watcher."""

    def planned(self, total: int, done: int) -> None:
        """``total`` attempts make the run, ``done`` of them were already written."""

    def attempted(self, attempt: Attempt) -> None:
        """One attempt was written (an error attempt included)."""


class CacheProgress(Protocol):
    """What :func:`codegold.workflows.search` tells its watcher when the index lacks BM25
    caches the query needs and builds them before searching."""

    def building(self, caches: int) -> None:
        """``caches`` BM25 caches are missing and are built now, once."""

    def built_engine(self, event: WarmProgress) -> None:
        """One more engine is ready."""

    def built(self) -> None:
        """Every missing cache is built."""


class PrepareProgress(Protocol):
    """What :func:`codegold.workflows.prepare_caches` tells its watcher: the BM25 warm-up,
    then (when asked) the dense pass, each started, moving and finished."""

    def warming(self, total: int) -> None:
        """The warm-up starts: ``total`` BM25 engines over all the indexes, at most."""

    def warmed_engine(self, event: WarmProgress) -> None:
        """One engine is ready (``event`` counts the indexes' engines together)."""

    def warmed(self, indexes: int, seconds: float) -> None:
        """Every lexical cache of ``indexes`` indexes is ready after ``seconds``."""

    def embedding(self) -> None:
        """The dense pass starts."""

    def embedded_text(self, event: EmbedProgress) -> None:
        """The dense pass moved on."""

    def embedded(self, summary: EmbedSummary) -> None:
        """The dense pass is done."""


__all__ = ["BuildProgress", "BuildProgressFn", "CacheProgress", "EmbedProgress", "EmbedProgressFn",
           "ManyProgress", "ManyProgressFn", "PrepareProgress", "RunProgress", "WarmProgress"]
