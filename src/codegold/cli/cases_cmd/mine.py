"""``codegold cases mine``: draft cases from a repository's git history."""

from __future__ import annotations

import click

from codegold.cli._common import handle_errors
from codegold.cli.cases_cmd._lines import say_skipped
from codegold.plumbing.outputs import guard_output
from codegold.workflows import curating


@click.command("mine")
@click.argument("repo", type=click.Path(file_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Draft case file (YAML) to write.")
@click.option("--since", default=None, help="Only commits after this date (git's --since).")
@click.option("--paths", "paths", multiple=True, help="Only commits touching these paths.")
@click.option("--max", "max_cases", type=click.IntRange(min=1), default=50, show_default=True,
              help="Stop after this many drafts.")
@click.option("--max-files", type=click.IntRange(min=1), default=8, show_default=True,
              help="Skip commits changing more files than this.")
@click.option("--repository", default=None, help="Repository name written into the drafts.")
@click.option("--cutoff", type=click.IntRange(min=1, max=1000), default=5, show_default=True)
@handle_errors
def mine(repo: str, output: str, since: str | None, paths: tuple[str, ...], max_cases: int,
         max_files: int, repository: str | None, cutoff: int) -> None:
    """Draft cases from the git history of REPO: fixes and issue-referencing commits.

    The query is the commit message (issue references kept), the revision its parent,
    and the gold the definitions it changed, read at the parent. Merges, version bumps,
    formatting, documentation-only and large commits are skipped, with the reason
    counted. Drafts carry the tag status=draft and the commit in the rationale.

    \b
    Example:
      codegold cases mine . --since 2024-01-01 --max 30 -o mined.yaml
    """
    guard_output(output, inputs=(repo,))
    report = curating.cases_from_history(curating.MineRequest(
        repo=repo, output=output, since=since, paths=paths, max_cases=max_cases,
        max_files=max_files, repository=repository, cutoff=cutoff))
    click.echo(f"{report.drafts} draft case(s) from {report.items} commit(s) written to "
               f"{output}", err=True)
    say_skipped(report.skipped)
