"""``codegold eval``: score recorded attempts against gold cases (never runs a retriever)."""

from __future__ import annotations

import sys

import click

from codegold.cli._common import (
    guard,
    handle_errors,
    json_option,
    output_option,
    quiet_option,
    stdout_console,
)


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
    import gc

    from codegold.evaluate import evaluate_files
    from codegold.model import CaseSet, iter_results_bytes, write_results

    # Scoring allocates many small objects that all live to the end; generational GC
    # passes over them only cost time.
    from codegold.model.cases import parse_budget, with_budget

    chosen = parse_budget(budget) if budget is not None else None
    guard(output, cases, attempts,
          trees=tuple(t for t in (resolve, gold_lines) if t))
    gc.disable()
    adjust = None
    if chosen is not None or gold_lines is not None:
        def adjust(case_set: CaseSet) -> CaseSet:
            if chosen is not None:
                case_set = with_budget(case_set, chosen)
            if gold_lines is not None:
                from codegold.labels.goldlines import fill_gold_lines

                case_set = fill_gold_lines(case_set, gold_lines)
            return case_set
    if resolve is None:
        result = evaluate_files(cases, attempts, adjust=adjust)
    else:
        from codegold.resolve import AttemptResolver

        with AttemptResolver.from_path(resolve) as resolver:
            result = evaluate_files(cases, attempts, adjust=adjust,
                                    prepare=lambda attempt, case: resolver.resolve(
                                        attempt, case.revision))
        for revision, count in sorted(resolver.unresolved.items()):
            click.echo(f"warning: no index for revision {revision} under {resolve}: "
                       f"{count} attempt(s) judged on their reported metadata", err=True)
    from codegold.plumbing.secrets import redact_struct

    result = redact_struct(result)  # excerpts and errors came from outside
    if output:
        write_results(result, output)
    if as_json:
        for piece in iter_results_bytes(result):
            sys.stdout.buffer.write(piece)
        sys.stdout.flush()
        return
    if not quiet:
        from codegold.cli._summary import render_summary

        render_summary(stdout_console(), result)
        if output:
            click.echo(f"wrote {output}")
