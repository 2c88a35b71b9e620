"""``codegold flaky``: cases whose repeated attempts disagree, with the likely source."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import click
import msgspec

from codegold.cli._common import EXIT_FAIL, EXIT_OK, handle_errors
from codegold.errors import InputError
from codegold.evaluate.flaky import find_flaky
from codegold.model import Attempt, iter_attempts, load_cases
from codegold.plumbing.text import terminal_safe


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
    case_set = load_cases(cases)
    read = 0

    def counted() -> Iterator[Attempt]:
        nonlocal read
        for attempt in iter_attempts(attempts):
            read += 1
            yield attempt

    report = find_flaky(case_set, counted())
    if read == 0:
        raise InputError("the attempts file holds no attempt; expected the JSONL a "
                         "`codegold run --repeat N` wrote", path=attempts)
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
