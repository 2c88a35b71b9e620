"""``codegold cases split``: train and held-out sets, deterministic by case id."""

from __future__ import annotations

import click

from codegold.cli._common import handle_errors
from codegold.plumbing.outputs import guard_output
from codegold.workflows import curating


@click.command("split")
@click.argument("cases", type=click.Path(dir_okay=False))
@click.option("--train", type=float, default=0.7, show_default=True,
              help="Share of cases in the training split.")
@click.option("--by", type=click.Choice(["repository", "query_class"]), default=None,
              help="Stratify: split each repository or query class in the same proportion.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", required=True, type=click.Path(),
              help="With --tag: the case file to write. Else a prefix: PREFIX.train.yaml and "
                   "PREFIX.heldout.yaml.")
@click.option("--tag", is_flag=True, help="Write one file with a `split` tag on every case.")
@handle_errors
def split(cases: str, train: float, by: str | None, seed: int, output: str, tag: bool) -> None:
    """Split CASES into train and held-out sets, deterministically by a hash of each case id.

    The same seed always gives the same split, and adding cases never moves an existing
    one (with --by, at most one per stratum). Tune on train; judge on held-out.

    \b
    Example:
      codegold cases split cases.yaml --train 0.7 -o cases      # cases.train.yaml, cases.heldout.yaml
      codegold cases split cases.yaml --by query_class --tag -o cases.split.yaml
    """
    request = curating.SplitRequest(cases=cases, output=output, train=train, by=by, seed=seed,
                                    tag=tag)
    for path in request.outputs:
        guard_output(path, inputs=(cases,))
    done = curating.split_cases(request)
    click.echo(f"{done.train} train, {done.heldout} held-out: {', '.join(done.written)}",
               err=True)
