"""``codegold index gc``: chunk store entries no kept index uses, removed."""

from __future__ import annotations

from pathlib import Path

import click

from codegold import workflows
from codegold.cli._common import handle_errors
from codegold.plumbing.text import terminal_safe as _safe


@click.command("gc")
@click.argument("store", type=click.Path(file_okay=False, path_type=Path))
@click.option("--indexes", "index_folders", multiple=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Index directory or folder of them whose entries are kept (repeatable; "
                   "default: the folder that holds STORE).")
@click.option("--keep-revisions", "keep_spec", metavar="FILE|SHA,SHA,...",
              help="Keep only the indexes of these commits (full sha or unique prefix; a "
                   "file with one per line, or a comma-separated list).")
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
@handle_errors
def gc_command(store: Path, index_folders: tuple[Path, ...], keep_spec: str | None,
               dry_run: bool) -> None:
    """Remove chunk store entries that no kept index uses.

    \b
    Example:
      codegold index gc indexes/.chunkstore
      codegold index gc ~/.cache/shop-chunks --indexes indexes/ --keep-revisions 3f2a9c1,77b0e4d
    """
    result = workflows.collect_garbage(workflows.GarbageRequest(
        store=store, indexes=index_folders, keep_revisions=keep_spec, dry_run=dry_run))
    verb = "would remove" if dry_run else "removed"
    notes = f" and {result.notes_removed} notes of indexes not kept" if result.notes_removed else ""
    click.echo(_safe(f"{verb} {result.removed} entries{notes} ({result.freed_bytes / 1e6:.1f} MB) "
                     f"from {store}; kept what {len(result.kept)} indexes use"))
