"""``codegold eval``: score recorded attempts against gold cases (never runs a retriever)."""

from __future__ import annotations

import gc
import sys

import click

from codegold.cli._common import (
    guard,
    handle_errors,
    hold_until_exit,
    json_option,
    output_option,
    quiet_option,
    stdout_console,
)
from codegold.cli._summary import render_summary
from codegold.model import iter_results_bytes
from codegold.model.cases import parse_budget
from codegold.plumbing.text import terminal_safe
from codegold.workflows import EvaluateRequest, evaluate


@click.command("eval")
@click.argument("cases", type=click.Path(dir_okay=False))
@click.argument("attempts", type=click.Path(dir_okay=False))
@output_option("Write results.json here.")
@json_option("Print results.json to stdout (for jq).")
@quiet_option("No terminal summary.")
@click.option("--resolve", "resolve", type=click.Path(), default=None,
              help="Judge each chunk by what its file and line span hold in this index (an "
                   "index directory or a folder of them, one per revision), not by the "
                   "symbols and roles the retriever reported.")
@click.option("--budget", "budget", metavar="UNIT=N", default=None,
              help="Judge every case at this budget instead of its own cutoff or budget: "
                   "lines=N, tokens=N or steps=N of context (see docs/concepts.md, Budgets).")
@click.option("--gold-lines", "gold_lines", type=click.Path(), default=None,
              help="Read each symbol target's gold lines (its definition span) from this "
                   "index (an index directory or a folder of them), for the line-level "
                   "figures; explicit `lines:` on a target win.")
@handle_errors
def command(cases: str, attempts: str, output: str | None, as_json: bool, quiet: bool,
            resolve: str | None, budget: str | None, gold_lines: str | None) -> None:
    """Score ATTEMPTS (attempts.jsonl) against the gold CASES at each case's cutoff.

    Every attempt is kept; a case is scored on its final attempt (the one no other
    attempt names in retry_of). Cases without an attempt are `missing` and count as
    failures. The results file is byte-identical for identical inputs.

    \b
    Example:
      codegold eval cases.yaml attempts.jsonl -o results.json
      codegold eval cases.yaml attempts.jsonl --json | jq '.summary.hit_rate'
      codegold eval cases.yaml windows.jsonl --resolve indexes/ -o results.json
      codegold eval cases.yaml agent.jsonl --budget tokens=8000 --gold-lines idx/
    """
    chosen = parse_budget(budget) if budget is not None else None
    guard(output, cases, attempts, trees=tuple(t for t in (resolve, gold_lines) if t))
    gc.disable()  # scoring's many small objects all live to the end: GC passes only cost
    evaluation = evaluate(EvaluateRequest(cases=cases, attempts=attempts, resolve=resolve,
                                          output=output, budget=chosen,
                                          gold_lines=gold_lines))
    hold_until_exit(evaluation)  # freed by the exit, not object by object
    for revision, count in evaluation.unresolved:
        click.echo(terminal_safe(f"warning: no index for revision {revision} under {resolve}: "
                                 f"{count} attempt(s) judged on their reported metadata"),
                   err=True)
    result = evaluation.result
    if as_json:
        for piece in iter_results_bytes(result):
            sys.stdout.buffer.write(piece)
        sys.stdout.flush()
        return
    if not quiet:
        render_summary(stdout_console(), result)
        if output:
            click.echo(f"wrote {output}")
