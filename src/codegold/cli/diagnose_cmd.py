"""``codegold diagnose``: the first broken boundary of each failing case, and its owner."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import click

from codegold.cli._common import guard, handle_errors, index_option

if TYPE_CHECKING:
    from codegold.model import RunResult


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
    from codegold.diagnose import RepoView, diagnose_run, load_owners, write_diagnosis_dir
    from codegold.diagnose.bundle import render_summary_markdown, render_summary_text
    from codegold.model import load_results

    if out_dir is not None:
        from pathlib import Path

        inputs = (results, owners_path, attempts_path, repo_path)
        guard(out_dir, trees=(index_dir,), directory=True)
        for name in ("diagnoses.json", "summary.md"):
            guard(str(Path(out_dir) / name), *inputs)
        guard(str(Path(out_dir) / "bundles"), *inputs, directory=True)
    run = load_results(results)
    if attempts_path is not None:
        _check_same_run(run, attempts_path)
    owners = load_owners(owners_path) if owners_path else None
    repo = RepoView(repo_path) if repo_path else None
    with contextlib.ExitStack() as stack:
        indexes = {}
        if index_dir:
            from codegold.index.catalog import IndexSet
            from codegold.index.store import IndexReader

            for revision, path in IndexSet.from_path(index_dir).by_revision.items():
                indexes[revision] = stack.enter_context(IndexReader.open(path))
        summary, diagnosed = diagnose_run(run, indexes=indexes, repo=repo,
                                          attempts_path=attempts_path, owners=owners,
                                          results_name=results, index_name=index_dir)
    if out_dir:
        write_diagnosis_dir(summary, diagnosed, out_dir)
        click.echo(f"wrote {out_dir}/diagnoses.json and {len(diagnosed)} bundle(s)", err=True)
    # Markdown goes into files (a redirect, a pipe); a terminal gets aligned text.
    render = render_summary_text if _on_terminal() else render_summary_markdown
    click.echo(render(summary), nl=False)


def _on_terminal() -> bool:
    import sys

    stream = sys.stdout
    return bool(getattr(stream, "isatty", None) and stream.isatty())


def _check_same_run(run: RunResult, attempts_path: str) -> None:
    """Refuse an --attempts file that lacks an attempt the results scored.

    Diagnosis joins results to attempts by attempt id; another run's file would match
    none of them and quietly turn every candidate-based cause into "not recorded".
    """
    from codegold.errors import InputError
    from codegold.model import iter_attempts

    wanted = {c.attempt_id: c.case_id for c in run.cases if c.status != "pass" and c.attempt_id}
    found: set[str] = set()
    runs: set[str] = set()
    for attempt in iter_attempts(attempts_path):
        runs.add(attempt.run_id or "?")
        if attempt.attempt_id in wanted:
            found.add(attempt.attempt_id)
    missing = sorted(set(wanted) - found)
    if missing:
        first = missing[0]
        raise InputError(
            f"holds no attempt {first!r} (case {wanted[first]!r}), which the results scored, "
            f"nor {len(missing) - 1} other(s); it is from another run (run ids found: "
            f"{', '.join(sorted(runs)[:3]) or 'none'}): pass the attempts file `codegold eval` "
            "scored", path=attempts_path)
