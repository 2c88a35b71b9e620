"""What more than one ``codegold cases`` subcommand prints."""

from __future__ import annotations

import click

from codegold.plumbing.text import terminal_safe


def say_skipped(skipped: dict[str, int]) -> None:
    """One stderr line per reason records were skipped, the commonest first."""
    for why, n in sorted(skipped.items(), key=lambda item: -item[1]):
        click.echo(f"skipped {n}: {terminal_safe(why)}", err=True)
