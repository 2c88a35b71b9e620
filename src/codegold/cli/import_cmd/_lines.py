"""What ``codegold import trajectories`` prints on stderr: a line per trajectory (what it
gave, what was passed over and why) and the total."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from codegold.plumbing.text import terminal_safe

if TYPE_CHECKING:
    from codegold.trajectories import ImportReport


def say_imported(report: ImportReport, output: str) -> None:
    for item in report.trajectories:
        if item.status == "skipped":
            click.echo(terminal_safe(f"skipped {item.label}: {item.reason}"), err=True)
            continue
        click.echo(terminal_safe(
            f"{item.label} -> {item.case_id}: {item.steps} steps, {item.reads} reads, "
            f"{item.search_hits} search hits, {item.lines} lines, {item.tokens} tokens, "
            f"{item.edits} edits" + (f", {item.outside_repo} outside the repository"
                                     if item.outside_repo else "")), err=True)
        for why, count in item.skipped_calls.items():
            click.echo(terminal_safe(f"  passed over {count} call(s){_at(item.skipped_steps.get(why))}"
                                     f": {why}"), err=True)
        for note in item.notes:
            click.echo(terminal_safe(f"  note: {note}"), err=True)
    click.echo(f"wrote {report.imported} attempt(s) to {output}"
               + (f" ({report.skipped} skipped)" if report.skipped else ""), err=True)


def _at(steps: list[int] | None) -> str:
    """`` at step 4`` / `` at steps 4, 7, 9 and 12 more``: which steps, never a count that
    reads as one."""
    if not steps:
        return ""
    shown = ", ".join(str(step) for step in steps[:8])
    more = f" and {len(steps) - 8} more" if len(steps) > 8 else ""
    return f" at step{'s' if len(steps) > 1 else ''} {shown}{more}"
