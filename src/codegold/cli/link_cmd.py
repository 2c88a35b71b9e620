"""``codegold link``: tie answers to the retrieval they used, and explain failed answers."""

from __future__ import annotations

import sys

import click

from codegold.cli._common import EXIT_FAIL, EXIT_OK, guard, handle_errors
from codegold.plumbing.text import terminal_safe
from codegold.workflows.linking import LinkRequest, answer_results_json, link


@click.command("link")
@click.argument("cases", type=click.Path(dir_okay=False))
@click.argument("attempts", type=click.Path(dir_okay=False))
@click.argument("answers", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the answer results (JSON) here.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer results as JSON.")
@click.option("--allow-broken", is_flag=True, help="Exit 0 even when some linkage is broken.")
@handle_errors
def command(cases: str, attempts: str, answers: str, output: str | None, as_json: bool,
            allow_broken: bool) -> None:
    """Check that every answer in ANSWERS resolves to the context it actually received,
    then say why each failed answer failed.

    Linkage first: the answer's attempt exists, belongs to its case, is no error attempt
    and carries a complete manifest of the case's revision; its context ids are in that
    attempt's ranking (others are flagged as injected); a retry says whether it reused
    the retrieval (same attempt) or made a new one (another attempt). A broken link is
    never classified. A failed, linked answer is evidence_stale (forbidden or
    other-revision context), evidence_absent (required evidence not sent) or
    evidence_ignored (everything was sent: the answer stage's problem). Exit 0, or 1
    when any linkage is broken (unless --allow-broken), 2 bad input.

    \b
    Example:
      codegold link cases.yaml attempts.jsonl answers.jsonl -o answer-results.json
    """
    guard(output, cases, attempts, answers)
    result = link(LinkRequest(cases=cases, attempts=attempts, answers=answers, output=output))
    if as_json:
        sys.stdout.buffer.write(answer_results_json(result))
    else:
        summary = result.summary
        click.echo(f"answers {summary.answers}: linked {summary.linked}, broken {summary.broken}; "
                   f"pass {summary.passed}, fail {summary.failed}, unknown {summary.unknown}")
        click.echo("failed answers: " + ", ".join(f"{k} {v}" for k, v in summary.classes.items())
                   + f"; passed without evidence {summary.passed_without_evidence}")
        for finding in result.answers:
            if finding.linkage == "broken":
                click.echo(terminal_safe(f"broken {finding.answer_id}: "
                                         f"{'; '.join(finding.problems)}"))
            elif finding.answer_class:
                extra = (f" (missing {', '.join(finding.missing_groups)})"
                         if finding.missing_groups and finding.answer_class == "evidence_absent"
                         else "")
                click.echo(terminal_safe(f"{finding.answer_class} {finding.answer_id}{extra} "
                                         f"-> {finding.route}"))
    failed = result.summary.broken > 0 and not allow_broken
    sys.exit(EXIT_FAIL if failed else EXIT_OK)
