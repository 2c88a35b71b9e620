"""``codegold index parse``: one file chunked outside any index."""

from __future__ import annotations

from pathlib import Path

import click
import msgspec

from codegold import workflows
from codegold.cli._common import handle_errors, json_option
from codegold.cli.index_cmd._lines import chunk_line, entry_line, indent
from codegold.plumbing.text import terminal_safe as _safe


@click.command("parse")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--path", "repo_path", help="Repository path to chunk it as (default: FILE as "
                                          "given); decides language and category.")
@click.option("--text", is_flag=True, help="Also print each chunk's text.")
@json_option("Print FileChunks as JSON.")
@handle_errors
def parse_command(file: Path, repo_path: str | None, text: bool, as_json: bool) -> None:
    """Chunk one file outside any index and print its chunks, symbols and references.

    \b
    Example:
      codegold index parse src/auth/session-service.ts
      codegold index parse fixture.py --path tests/test_auth.py --json
    """
    result = workflows.parse_file(file, repo_path)
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(result), indent=2))
        return
    click.echo(entry_line(result.entry))
    for chunk in result.chunks:
        click.echo(chunk_line(chunk))
        if text:
            click.echo(indent(chunk.text))
    for definition in result.definitions:
        click.echo(_safe(f"  def {definition.qualified} ({definition.kind}, {definition.role}) "
                         f"L{definition.start_line}-{definition.end_line}"))
    for reference in result.references:
        click.echo(_safe(f"  call {reference.name} L{reference.line}"))
