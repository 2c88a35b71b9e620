"""``codegold compare``: two or more results files, what changed and whether it is more than noise."""

from __future__ import annotations

import sys

import click

from codegold.cli._common import guard, handle_errors
from codegold.workflows.comparing import CompareRequest, compare


@click.command("compare")
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--baseline", default=None,
              help="With two or more files: the results file every other is tested against "
                   "(default: the first).")
@click.option("--md", "markdown_out", type=click.Path(dir_okay=False, writable=True),
              help="Write the Markdown summary (for a pull-request comment) to this file.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, writable=True),
              help="Write the full comparison as JSON (format 1) to this file.")
@click.option("--seed", default=20261, show_default=True, help="Seed of every random draw.")
@click.option("--resamples", default=9999, show_default=True,
              help="Sign flips for the randomization test (exact when 2^n is smaller).")
@click.option("--bootstrap", default=2000, show_default=True, help="Bootstrap resamples for the CI.")
@click.option("--alpha", default=0.05, show_default=True, help="Significance level after Holm.")
@click.option("--min-slice", default=10, show_default=True,
              help="Slices with fewer paired cases are reported but not tested.")
@handle_errors
def command(results: tuple[str, ...], baseline: str | None, markdown_out: str | None, json_out: str | None, seed: int,
            resamples: int, bootstrap: int, alpha: float, min_slice: int) -> None:
    """Compare results files of the same gold cases: BASE NEW, or several systems.

    With two files (BASE NEW) it lists cases newly failing, newly passing and whose first
    relevant rank moved, and for hit rate, MRR, mean group recall, nDCG and forbidden rate gives the paired difference
    with a sign-flip randomization test and a bootstrap interval, overall and per slice,
    Holm-corrected. Prints Markdown to stdout unless --md names a file. Always exits 0:
    a gate policy, not a comparison, fails a build.

    With three or more files it shows one table per metric (rows = systems, columns =
    overall and each slice, with n), tests each system against --baseline (paired tests,
    Holm-corrected across every system, metric and slice) and lists the cases whose
    status differs between systems.

    \b
    Example:
      codegold compare main/results.json pr/results.json --md comment.md
      codegold compare ref.json bm25.json windows.json --baseline ref.json
    """
    guard(json_out, *results, option="--json")
    guard(markdown_out, *results, json_out, option="--md")
    text = compare(CompareRequest(results=results, baseline=baseline, markdown=markdown_out,
                                  json=json_out, seed=seed, resamples=resamples,
                                  bootstrap=bootstrap, alpha=alpha, min_slice=min_slice))
    if markdown_out:
        return
    if sys.stdout.isatty():
        from codegold.plumbing.text import markdown_for_terminal

        # Markdown goes into files (a redirect, a pipe); a terminal gets aligned text.
        click.echo(markdown_for_terminal(text), nl=False)
    else:
        click.echo(text, nl=False)
