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
@handle_errors
def command(cases: str, attempts: str, output: str | None, as_json: bool, quiet: bool) -> None:
    """Score ATTEMPTS (attempts.jsonl) against the gold CASES at each case's cutoff.

    Every attempt is kept; a case is scored on its final attempt (the one no other
    attempt names in retry_of). Cases without an attempt are `missing` and count as
    failures. The results file is byte-identical for identical inputs.

    \b
    Example:
      codegold eval cases.yaml attempts.jsonl -o results.json
      codegold eval cases.yaml attempts.jsonl --json | jq '.summary.hit_rate'
    """
    import gc

    from codegold.evaluate import evaluate_files
    from codegold.model import iter_results_bytes, write_results

    # Scoring allocates many small objects that all live to the end; generational GC
    # passes over them only cost time.
    guard(output, cases, attempts)
    gc.disable()
    result = evaluate_files(cases, attempts)
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
