"""``codegold cases``: get gold cases and keep their labels true (every output is a case file)."""

from __future__ import annotations

import sys

import click

from codegold.cli._common import EXIT_FAIL, EXIT_OK, handle_errors


@click.group("cases")
def command() -> None:
    """Get gold cases and keep their labels true.

    \b
    Example:
      codegold cases check cases.yaml --index indexes/
    """


@command.command("check")
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

    For each target: the file exists and is indexed, the symbol is defined in it (with
    the closest qualified names when it is not), the labelled role is what the index
    gives; globs match a file; forbidden patterns match something, never a required
    target, and a literal prefix does not catch more than one folder; no two cases ask
    the same query or require the same evidence. Exit 0 no errors, 1 errors (or warnings
    with --strict), 2 bad input.

    \b
    Example:
      codegold cases check cases.yaml --index indexes/
      codegold cases check cases.yaml --repo . --index .codegold/indexes --json
    """
    from pathlib import Path

    from codegold.curate.check import check_cases
    from codegold.errors import InputError
    from codegold.index.catalog import IndexSet
    from codegold.model import load_cases

    case_set = load_cases(cases)
    if index is None:
        raise InputError("cases check needs --index (an index directory or a folder of them)")
    if repo is not None:
        from codegold.cli.run_cmd import _build_missing

        _build_missing(repo, Path(index), {c.revision for c in case_set.cases}, quiet=as_json)
    report = check_cases(case_set.cases, IndexSet.from_path(index))
    if as_json:
        import msgspec

        click.echo(msgspec.json.format(msgspec.json.encode(report), indent=2))
    else:
        for finding in report.findings:
            where = finding.case_id + (f" [{finding.group}]" if finding.group else "")
            click.echo(f"{finding.severity}: {where}: {finding.message}")
        click.echo(f"cases check: {report.cases} cases, {report.errors} errors, "
                   f"{report.warnings} warnings")
    failed = report.errors > 0 or (strict and report.warnings > 0)
    sys.exit(EXIT_FAIL if failed else EXIT_OK)
