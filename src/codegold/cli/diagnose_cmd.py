"""``codegold diagnose``: the first broken boundary of each failing case, and its owner."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from codegold.cli._common import guard, handle_errors, index_option
from codegold.diagnose.bundle import render_summary_markdown, render_summary_text
from codegold.workflows import DiagnoseRequest, diagnose


@click.command("diagnose")
@click.argument("results", type=click.Path(dir_okay=False))
@index_option("Index directory, or a folder of them (one per revision): policy, chunk and "
              "metadata checks, each case against its own revision's index.", dest="index_dir",
              file_okay=False)
@click.option("--owners", "owners_path", type=click.Path(dir_okay=False),
              help="Owners file: format 1, owners {cause: team}, default team.")
@click.option("--attempts", "attempts_path", type=click.Path(dir_okay=False),
              help="Attempts file (default: the path recorded in RESULTS). It must hold the "
                   "attempts RESULTS scored: another run's file is refused.")
@click.option("--repo", "repo_path", type=click.Path(file_okay=False),
              help="Git repository, to check labels at the case revision when the index is from another.")
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False),
              help="Write diagnoses.json, summary.md and bundles/ here.")
@handle_errors
def command(results: str, index_dir: str | None, owners_path: str | None,
            attempts_path: str | None, repo_path: str | None, out_dir: str | None) -> None:
    """Name the cause and owner of every case in RESULTS that did not pass.

    Causes are checked in order (invalid run, revision mismatch, stale label, excluded by
    policy, not chunked, metadata mismatch, split context, query rewrite loss, retrieval
    miss, reranker demotion, below cutoff, forbidden source); the first broken one wins.
    Checks that lack data (no index, no candidates) are listed per case, not guessed.
    Prints the summary table; with -o also writes one evidence bundle per failure.

    \b
    Example:
      codegold diagnose results.json --index idx/ --owners owners.yaml -o diag/
      codegold diagnose results.json --index indexes/ --repo . -o diag/
    """
    if out_dir is not None:
        inputs = (results, owners_path, attempts_path, repo_path)
        guard(out_dir, trees=(index_dir,), directory=True)
        for name in ("diagnoses.json", "summary.md"):
            guard(str(Path(out_dir) / name), *inputs)
        guard(str(Path(out_dir) / "bundles"), *inputs, directory=True)
    found = diagnose(DiagnoseRequest(results=results, index=index_dir, owners=owners_path,
                                     attempts=attempts_path, repo=repo_path, output=out_dir,
                                     results_name=results))
    if out_dir:
        click.echo(f"wrote {out_dir}/diagnoses.json and {found.bundles} bundle(s)", err=True)
    # Markdown goes into files (a redirect, a pipe); a terminal gets aligned text.
    render = render_summary_text if _on_terminal() else render_summary_markdown
    click.echo(render(found.summary), nl=False)


def _on_terminal() -> bool:
    stream = sys.stdout
    return bool(getattr(stream, "isatty", None) and stream.isatty())
