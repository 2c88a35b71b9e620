"""What ``codegold run`` prints on stderr when it ends: warnings, the summary line, and
the first distinct errors of error attempts."""

from __future__ import annotations

import click

from codegold.adapters.runner import RunSummary
from codegold.plumbing.text import terminal_safe


def say_run(summary: RunSummary, errors: dict[str, str], output: str, quiet: bool) -> None:
    """``errors``: the first distinct error messages, each with the first case that got it."""
    for warning in summary.warnings:
        click.echo(f"warning: {terminal_safe(warning)}", err=True)
    if summary.dropped_bytes:
        click.echo(f"warning: dropped the last line of {terminal_safe(output)} ({summary.dropped_bytes} bytes): "
                   "it was cut off mid-write; its case runs again", err=True)
    if summary.unknown_fields:
        listed = ", ".join(summary.unknown_fields[:8])
        more = len(summary.unknown_fields) - 8
        click.echo(f"note: the retriever's answers carry fields codegold does not read "
                   f"({listed}{f', +{more} more' if more > 0 else ''}); they are kept under "
                   f"'extra' in {output} and never judged", err=True)
    if not quiet:
        click.echo(f"{summary.written} attempts written to {terminal_safe(output)} "
                   f"({summary.skipped} already there, {summary.errors} errors) "
                   f"in {summary.seconds:.1f}s, run {terminal_safe(summary.run_id)}", err=True)
        if summary.retriever_facts:
            click.echo(f"reference retriever: {summary.retriever_facts}", err=True)
    if summary.unreadable:
        answered = summary.written - summary.errors
        click.echo(f"{'error' if all_unreadable(summary) else 'note'}: {summary.unreadable} of "
                   f"{answered} answers held something no parser read (ranked nothing; each "
                   f"attempt's 'note' shows how it begins): check the retriever's answer "
                   f"format or --mcp-parse", err=True)
    if summary.errors:
        for message, case_id in errors.items():
            # ids, the retriever's stderr and the run id come from outside
            click.echo(f"  case {terminal_safe(case_id)}: {terminal_safe(_one_line(message))}",
                       err=True)
        if summary.errors > len(errors):
            click.echo(f"  ({summary.errors} error attempts in all)", err=True)


def all_unreadable(summary: RunSummary) -> bool:
    """Every answer of the run held something no parser read: nothing was measured."""
    return 0 < summary.unreadable == summary.written - summary.errors


def _one_line(message: str, limit: int = 300) -> str:
    flat = " ".join(message.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"
