"""How the terminal shows the workflows' progress (stderr; nothing when quiet)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import click

from codegold.cli._common import stderr_console
from codegold.model import Attempt
from codegold.workflows.progress import BuildProgress, EmbedProgress, ManyProgress

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

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


def embed_printer(quiet: bool) -> EmbedProgressPrinter | None:
    """One line per second of the full dense pass (None when quiet)."""
    return None if quiet else EmbedProgressPrinter()


class EmbedProgressPrinter:
    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self, event: EmbedProgress) -> None:
        now = time.perf_counter()
        if event.done < event.total and now - self.last < 1.0:
            return
        self.last = now
        what = "texts embedded" if event.stage == "embedding" else "indexes cached"
        click.echo(f"{event.done}/{event.total} {what}", err=True)


class _Bar:
    """A transient rich progress bar on stderr, started by the first event."""

    def __init__(self, quiet: bool, description: str, elapsed: bool) -> None:
        self.quiet = quiet
        self.description = description
        self.elapsed = elapsed
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def start(self, total: int | None, completed: int = 0) -> None:
        if self.quiet or self.bar is not None:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        clock = TimeElapsedColumn() if self.elapsed else TimeRemainingColumn()
        self.bar = Progress("[progress.description]{task.description}", BarColumn(),
                            MofNCompleteColumn(), clock, console=stderr_console(),
                            transient=True)
        self.task = self.bar.add_task(self.description, total=total, completed=completed)
        self.bar.start()

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


class RevisionsBar(_Bar):
    """One bar over the revisions of a many-revision build (a ManyProgressFn)."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(quiet, "indexing revisions", elapsed=True)

    def __call__(self, event: ManyProgress) -> None:
        self.start(None)
        if self.bar is None or self.task is None:
            return
        build = event.build
        detail = "already indexed" if event.skipped else (
            f"{build.files_done}/{build.files_total} files, parsed {build.parsed}, "
            f"reused {build.reused}" if build is not None else "")
        self.bar.update(self.task, total=event.total, completed=event.done,
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
        if self.bar is not None and self.task is not None:
            self.bar.advance(self.task)

    def stop(self) -> None:
        super().stop()
        if self.builds is not None:
            self.builds.stop()
