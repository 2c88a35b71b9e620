"""How the terminal shows the workflows' progress (stderr; nothing when quiet)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from codegold.cli._common import ProgressLine
from codegold.model import Attempt
from codegold.workflows.progress import BuildProgress, ManyProgress

if TYPE_CHECKING:
    from codegold.retrieve.embedpass import EmbedProgress
    from codegold.retrieve.warm import WarmProgress

SHOW_ERRORS = 5  # distinct error messages a run lists at its end


def build_printer(quiet: bool) -> BuildProgressPrinter | None:
    """One line per second while one index builds (None when quiet)."""
    return None if quiet else BuildProgressPrinter()


class BuildProgressPrinter:
    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self, event: BuildProgress) -> None:
        now = time.perf_counter()
        if event.stage == "chunking" and now - self.last < 1.0:
            return
        self.last = now
        rate = event.files_done / event.elapsed_s if event.elapsed_s > 0 else 0.0
        click.echo(f"{event.stage}: {event.files_done}/{event.files_total} files, "
                   f"{event.chunks} chunks, {rate:.0f} files/s "
                   f"(parsed {event.parsed}, reused {event.reused})", err=True)


class _Bar:
    """A :class:`ProgressLine` (a bar on a terminal, a line every few seconds in a log)
    started by the first event."""

    def __init__(self, quiet: bool, description: str, elapsed: bool) -> None:
        self.quiet = quiet
        self.description = description
        self.line: ProgressLine | None = None

    def start(self, total: int | None, completed: int = 0) -> None:
        if self.quiet or self.line is not None:
            return
        self.line = ProgressLine(self.description, total, completed=completed)
        self.line.start()

    def stop(self) -> None:
        if self.line is not None:
            self.line.stop()
            self.line = None


class RevisionsBar(_Bar):
    """One bar over the revisions of a many-revision build (a ManyProgressFn)."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(quiet, "indexing revisions", elapsed=True)

    def __call__(self, event: ManyProgress) -> None:
        self.start(None)
        if self.line is None:
            return
        build = event.build
        detail = "already indexed" if event.skipped else (
            f"{build.files_done}/{build.files_total} files, parsed {build.parsed}, "
            f"reused {build.reused}" if build is not None else "")
        self.line.update(total=event.total, completed=event.done,
                         description=f"{event.revision[:12]} {detail}")


class AttemptsBar(_Bar):
    """A run's bar (a RunProgress); it also keeps the first distinct error messages
    (message -> first case id, in arrival order). The revisions bar of the builds a run
    made first ends when the run starts."""

    def __init__(self, quiet: bool, builds: RevisionsBar | None = None) -> None:
        super().__init__(quiet, "running cases", elapsed=False)
        self.builds = builds
        self.errors: dict[str, str] = {}

    def planned(self, total: int, done: int) -> None:
        if self.builds is not None:
            self.builds.stop()
        self.start(total, done)

    def attempted(self, attempt: Attempt) -> None:
        if attempt.error is not None and len(self.errors) < SHOW_ERRORS:
            self.errors.setdefault(attempt.error, attempt.case_id)
        if self.line is not None:
            self.line.advance()

    def stop(self) -> None:
        super().stop()
        if self.builds is not None:
            self.builds.stop()


def warm_line(bar: ProgressLine) -> Callable[[WarmProgress], None]:
    """A warm-up progress function that moves ``bar``: engines ready of all the indexes."""
    def show(event: WarmProgress) -> None:
        what = event.engine.label if event.engine is not None else "starting"
        bar.update(completed=event.done, total=event.total,
                   description=f"lexical caches, {what}")

    return show


def embed_line(bar: ProgressLine) -> Callable[[EmbedProgress], None]:
    """An embedding progress function that moves ``bar``."""
    def show(event: EmbedProgress) -> None:
        what = "embedding texts" if event.stage == "embedding" else "caching indexes"
        bar.update(completed=event.done, total=event.total, description=what)

    return show


class MissingCachesBar:
    """Draws the BM25 caches a search builds first (a CacheProgress): a line on stderr that
    says so, then a bar, instead of a silent wait."""

    def __init__(self) -> None:
        self.line: ProgressLine | None = None

    def building(self, caches: int) -> None:
        click.echo(f"building {caches} BM25 cache(s) of this index, once (`codegold index` "
                   "builds them ahead)", err=True)
        self.line = ProgressLine("BM25 caches")
        self.line.start()

    def built_engine(self, event: WarmProgress) -> None:
        if self.line is not None:
            self.line.update(completed=event.done, total=event.total)

    def built(self) -> None:
        self.stop()

    def stop(self) -> None:
        if self.line is not None:
            self.line.stop()
            self.line = None


class RunBars:
    """Everything a run draws while it works: the revisions it indexes first, the cases
    (with their first distinct errors) and the lexical caches it warms. :meth:`stop` ends
    every bar."""

    def __init__(self, quiet: bool) -> None:
        self.builds = RevisionsBar(quiet)
        self.attempts = AttemptsBar(quiet, self.builds)
        self.caches = ProgressLine("lexical caches", quiet=quiet)
        self.warm = warm_line(self.caches)

    def stop(self) -> None:
        self.attempts.stop()
        self.caches.stop()
