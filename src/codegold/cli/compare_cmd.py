"""``codegold compare``: two results files, what changed and whether it is more than noise."""

from __future__ import annotations

import click

from codegold.cli._common import guard, handle_errors


@click.command("compare")
@click.argument("base", type=click.Path(dir_okay=False))
@click.argument("new", type=click.Path(dir_okay=False))
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
def command(base: str, new: str, markdown_out: str | None, json_out: str | None, seed: int,
            resamples: int, bootstrap: int, alpha: float, min_slice: int) -> None:
    """Compare BASE and NEW results of the same gold cases.

    Lists cases newly failing, newly passing and whose first relevant rank moved, and for
    hit rate, MRR, mean group recall, nDCG and forbidden rate gives the paired difference
    with a sign-flip randomization test and a bootstrap interval, overall and per slice,
    Holm-corrected. Prints Markdown to stdout unless --md names a file. Always exits 0:
    a gate policy, not a comparison, fails a build.

    \b
    Example:
      codegold compare main/results.json pr/results.json --md comment.md
    """
    from codegold.compare import compare_runs, dump_comparison, render_comparison_markdown
    from codegold.model import load_results
    from codegold.plumbing.outputs import write_bytes_atomic, write_text_atomic

    guard(json_out, base, new, option="--json")
    guard(markdown_out, base, new, json_out, option="--md")
    comparison = compare_runs(
        load_results(base), load_results(new), base_name=base, new_name=new, seed=seed,
        n_resamples=resamples, n_bootstrap=bootstrap, alpha=alpha, min_slice_cases=min_slice,
    )
    text = render_comparison_markdown(comparison)
    if json_out:
        write_bytes_atomic(json_out, dump_comparison(comparison))
    if markdown_out:
        write_text_atomic(markdown_out, text)
    else:
        click.echo(text, nl=False)
