"""``codegold index inspect``: an index's manifest and inventory, or a file's or symbol's
chunks."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from codegold import workflows
from codegold.cli._common import handle_errors
from codegold.cli.index_cmd._lines import chunk_line, entry_line, indent
from codegold.index.records import IndexedChunk
from codegold.plumbing.text import terminal_safe as _safe


@click.command("inspect")
@click.argument("index", type=click.Path(file_okay=False, path_type=Path))
@click.option("--file", "file_path", help="Show the inventory entry and chunks of this path.")
@click.option("--symbol", help="Show definitions (short, qualified or suffix) and their chunks.")
@click.option("--text", is_flag=True, help="Also print each chunk's text.")
@handle_errors
def inspect_command(index: Path, file_path: str | None, symbol: str | None, text: bool) -> None:
    """Print an index's manifest and inventory summary, or chunks of a file or symbol.

    \b
    Example:
      codegold index inspect idx/
      codegold index inspect idx/ --file src/auth/session-service.ts
      codegold index inspect idx/ --symbol SessionService.createSession --text
    """
    found = workflows.inspect(workflows.InspectRequest(index=index, file=file_path,
                                                        symbol=symbol))
    manifest = found.manifest
    click.echo(_safe(f"{manifest.repository}@{manifest.revision} build "
                     f"{manifest.index_build_id} chunker "
                     f"{manifest.chunker.name if manifest.chunker else '-'}"
                     f"/{manifest.chunker.version if manifest.chunker else '-'}: "
                     f"{manifest.files} files, {manifest.chunks} chunks"))
    for fate, category, count in found.summary:
        click.echo(_safe(f"  {fate:<9} {category:<10} {count}"))
    if found.file is not None:
        if found.file.entry is None:
            click.echo(f"{_safe(found.file.path)}: not in the revision's tree")
        else:
            click.echo(entry_line(found.file.entry))
            _chunks(found.file.chunks, text)
    if found.symbol is not None:
        if not found.definitions:
            click.echo(f"{_safe(found.symbol)}: no definition in this index")
        for view in found.definitions:
            d = view.definition
            click.echo(_safe(f"{d.qualified} ({d.kind}, {d.role}) "
                             f"{d.file}:{d.start_line}-{d.end_line}"))
            _chunks((view.chunk,) if view.chunk is not None else (), text)


def _chunks(chunks: Iterable[IndexedChunk], text: bool) -> None:
    for chunk in chunks:
        click.echo(chunk_line(chunk))
        if text:
            click.echo(indent(chunk.text))
