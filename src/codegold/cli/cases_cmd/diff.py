"""``codegold cases diff``: cases added, removed and relabelled between two files."""

from __future__ import annotations

import click
import msgspec

from codegold.cli._common import handle_errors
from codegold.curate.split import describe_prior
from codegold.plumbing.text import terminal_safe
from codegold.workflows import curating


@click.command("diff")
@click.argument("old", type=click.Path(dir_okay=False))
@click.argument("new", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@handle_errors
def diff(old: str, new: str, as_json: bool) -> None:
    """List cases added, removed and relabelled between OLD and NEW, with each rationale.

    A relabelled case changed its evidence, forbidden list, revision or cutoff; the
    previous rationale is shown beside the new one, for review in a pull request, with
    the label versions the new file added to the case's `supersedes` history (and a note
    when a relabelled case keeps no record of the label it replaced).

    \b
    Example:
      git show main:evals/cases.yaml > /tmp/old.yaml
      codegold cases diff /tmp/old.yaml evals/cases.yaml
    """
    changes = curating.case_changes(old, new)
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(changes), indent=2))
        return
    for change in changes:
        fields = f" ({', '.join(change.fields)})" if change.fields else ""
        click.echo(terminal_safe(f"{change.change} {change.case_id}{fields}"))
        if change.rationale:
            click.echo(f"    rationale: {terminal_safe(change.rationale)}")
        if change.supersedes and change.supersedes != change.rationale:
            click.echo(f"    was: {terminal_safe(change.supersedes)}")
        for prior in change.prior_labels:
            click.echo(f"    supersedes {terminal_safe(describe_prior(prior))}")
        if change.history_missing:
            click.echo("    (the replaced label is not kept in supersedes)")
    counts = {k: sum(c.change == k for c in changes)
              for k in ("added", "removed", "relabelled", "changed")}
    click.echo(", ".join(f"{n} {k}" for k, n in counts.items()))
