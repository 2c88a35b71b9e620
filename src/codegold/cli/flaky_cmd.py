"""``codegold flaky``: cases whose repeated attempts disagree, with the likely source."""

from __future__ import annotations

import sys

import click
import msgspec

from codegold.cli._common import EXIT_FAIL, EXIT_OK, handle_errors
from codegold.plumbing.text import terminal_safe
from codegold.workflows.repeating import FlakyRequest, flaky_cases


@click.command("flaky")
@click.argument("cases", type=click.Path(dir_okay=False))
@click.argument("attempts", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@handle_errors
def command(cases: str, attempts: str, as_json: bool) -> None:
    """List cases of CASES whose repeated ATTEMPTS differ inside the cutoff.

    Attempts are compared per repeat group (`run --repeat N`) or, without one, per case:
    the chunk ids inside the cutoff, pass/fail and the first relevant rank. Each flaky
    case names the likely source from the records: different index builds, different
    rewritten queries, a tie at the cutoff boundary, a reranker that reordered the same
    candidates. Exit 0 none, 1 some flaky, 2 bad input.

    \b
    Example:
      codegold run cases.yaml --index idx/ -o repeated.jsonl --repeat 3
      codegold flaky cases.yaml repeated.jsonl
    """
    report = flaky_cases(FlakyRequest(cases=cases, attempts=attempts))
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(report), indent=2))
    else:
        for case in report.flaky:
            click.echo(terminal_safe(
                f"flaky {case.case_id}: {', '.join(case.differs_in)} differ across "
                f"{len(case.attempts)} attempts (statuses {'/'.join(case.statuses)}); "
                f"likely: {'; '.join(case.likely_sources)}"))
        click.echo(f"{len(report.flaky)} flaky of {report.groups_compared} repeated case(s)")
    sys.exit(EXIT_FAIL if report.flaky else EXIT_OK)
