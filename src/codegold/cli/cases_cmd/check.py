"""``codegold cases check``: every label checked against its revision's index."""

from __future__ import annotations

import sys

import click
import msgspec

from codegold import workflows
from codegold.cli._common import EXIT_FAIL, EXIT_OK, handle_errors
from codegold.cli._progress import RevisionsBar
from codegold.plumbing.text import terminal_safe


@click.command("check")
@click.argument("cases", type=click.Path(dir_okay=False))
@click.option("--index", "index", type=click.Path(), default=None,
              help="An index directory, or a folder of them (one per revision).")
@click.option("--repo", type=click.Path(file_okay=False), default=None,
              help="Git repository: build each case revision's missing index into --index first.")
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@handle_errors
def check(cases: str, index: str | None, repo: str | None, strict: bool, as_json: bool) -> None:
    """Check every label of CASES against the index of its pinned revision, before any run.

    For each target: the file exists and is indexed (a missing one is followed through
    git's renames with --repo), the symbol is defined in it, not only imported, re-exported
    or used there (with the closest names and where it is defined when it is not), the
    labelled role is what the index gives; globs match a file; forbidden patterns match
    something, never a required target, and a literal prefix does not catch more than one
    folder; no two cases ask the same query or require the same evidence. With --repo,
    every revision must be a commit of it, and a tag or branch name where a sha belongs
    is named with its commit. Diagnosis reports the same label verdicts as stale_label.
    Exit 0 no errors, 1 errors (or warnings with --strict), 2 bad input.

    \b
    Example:
      codegold cases check cases.yaml --index indexes/
      codegold cases check cases.yaml --repo . --index .codegold/indexes --json
    """
    bar = RevisionsBar(quiet=as_json)
    try:
        report = workflows.check_cases(workflows.CheckRequest(cases=cases, index=index, repo=repo),
                                       index_progress=bar)
    finally:
        bar.stop()
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(report), indent=2))
    else:
        for finding in report.findings:
            where = finding.case_id + (f" [{finding.group}]" if finding.group else "")
            # case ids, paths and symbols come from the case file and the repository
            click.echo(terminal_safe(f"{finding.severity}: {where}: {finding.message}"))
        click.echo(f"cases check: {report.cases} cases, {report.errors} errors, "
                   f"{report.warnings} warnings")
    failed = report.errors > 0 or (strict and report.warnings > 0)
    sys.exit(EXIT_FAIL if failed else EXIT_OK)
