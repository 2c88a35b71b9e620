"""The lines ``codegold index`` subcommands print: chunks, inventory entries, chunk text,
the indexes a build wrote, and the progress of the caches paid after a build."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from codegold.cli._common import ProgressLine
from codegold.cli._progress import RevisionsBar, embed_line, warm_line
from codegold.index.records import IndexedChunk, InventoryEntry
from codegold.model import Manifest
from codegold.plumbing.text import terminal_safe as _safe

if TYPE_CHECKING:
    from codegold.retrieve.embedpass import EmbedProgress, EmbedSummary
    from codegold.retrieve.warm import WarmProgress
    from codegold.workflows.indexing import Built


def written(folder: Path, manifest: Manifest) -> str:
    return _safe(f"index written to {folder}: {manifest.repository}@{manifest.revision} "
                 f"build {manifest.index_build_id}, {manifest.files} files, "
                 f"{manifest.chunks} chunks")


def say_built(built: Built, output: Path) -> None:
    """A line per index written, and for many revisions the totals."""
    for folder, manifest in built.indexes:
        click.echo(written(folder, manifest))
    result = built.many
    if result is None:
        return
    store_note = f", chunk store {result.store}" if result.store else ""
    click.echo(_safe(f"{len(result.built)} indexes built, {len(result.skipped)} already there "
                     f"in {output}; parsed {result.parsed} files, reused {result.reused}"
                     f"{store_note}"))


def chunk_line(chunk: IndexedChunk) -> str:
    symbol = chunk.symbol or "-"
    extra = [s for s in chunk.symbols if s != chunk.symbol]
    more = f" (+{', '.join(extra)})" if extra else ""
    flags = "" if chunk.has_signature else " [no signature]"
    return _safe(f"  L{chunk.start_line}-{chunk.end_line}  {chunk.kind:<9} {chunk.role:<11} "
                 f"{symbol}{more}  id={chunk.id}{flags}")


def entry_line(entry: InventoryEntry) -> str:
    reason = f" ({entry.reason})" if entry.reason else ""
    return _safe(f"{entry.path}: {entry.fate}{reason}; category {entry.category}, language "
                 f"{entry.language or '-'}, chunker {entry.chunker or '-'}, {entry.chunks} chunks")


def indent(text: str) -> str:
    """Chunk text under its chunk line, controls and escape sequences made visible."""
    return "\n".join("      | " + line for line in _safe(text, multiline=True).split("\n"))


class CachesShown:
    """Draws :func:`codegold.workflows.prepare_caches`: one bar per phase and, unless
    quiet, a line on stderr when each is done. :meth:`close` stops an open bar, and
    ``builds``, the bar of the builds before, ends when the first phase starts."""

    def __init__(self, quiet: bool, builds: RevisionsBar | None = None) -> None:
        self.quiet = quiet
        self.builds = builds
        self._bar: ProgressLine | None = None
        self._derived = 0  # BM25 engines derived from an earlier revision's

    def _open(self, bar: ProgressLine) -> ProgressLine:
        self.close()
        self._bar = bar
        bar.start()
        return bar

    def close(self) -> None:
        if self.builds is not None:
            self.builds.stop()
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def warming(self, total: int) -> None:
        self._warm = warm_line(self._open(ProgressLine("lexical caches", total,
                                                       quiet=self.quiet)))

    def warmed_engine(self, event: WarmProgress) -> None:
        self._derived += event.derived
        self._warm(event)

    def warmed(self, indexes: int, seconds: float) -> None:
        self.close()
        note = (f"; {self._derived} engines derived from an earlier revision's"
                if self._derived else "")
        if not self.quiet:
            click.echo(f"lexical caches ready for {indexes} index(es) in {seconds:.1f}s"
                       f"{note}", err=True)

    def embedding(self) -> None:
        self._embed = embed_line(self._open(ProgressLine("embedding texts",
                                                         quiet=self.quiet)))

    def embedded_text(self, event: EmbedProgress) -> None:
        self._embed(event)

    def embedded(self, summary: EmbedSummary) -> None:
        self.close()
        if not self.quiet:
            click.echo(_safe(f"embedded {summary.embedded} texts for {summary.chunks} chunks "
                             f"({summary.reused} already in the store or repeated) with "
                             f"{summary.embedder}; vectors in {summary.store}"), err=True)
