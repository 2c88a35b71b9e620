"""``codegold tune``: tune the reference retriever on a training split, judge on held-out."""

from __future__ import annotations

import click

from codegold.cli._common import (
    ProgressLine,
    guard,
    handle_errors,
    index_option,
    output_option,
    quiet_option,
)
from codegold.cli.tune_render import say_tuned
from codegold.workflows.tuning import TuneRequest, tune


@click.command("tune")
@click.argument("cases", type=click.Path(dir_okay=False), nargs=-1, required=True)
@index_option("An index directory, or a folder of index directories (one per revision).")
@output_option("Tuned configuration (YAML) to write; `codegold run --config` reads it.",
               required=True)
@click.option("--space", "space_path", type=click.Path(dir_okay=False), default=None,
              help="Search space (YAML); default: the built-in space (see docs/tuning.md).")
@click.option("--split", "split_value", default="train", show_default=True,
              help="Value of the cases' `split` tag that marks training cases; every other "
                   "value is held out. Untagged case files are split 70/30 by hash.")
@click.option("--trials", type=click.IntRange(min=1, max=100_000), default=50,
              show_default=True, help="Configurations to try.")
@click.option("--metric", default="pass_rate", show_default=True,
              help="Figure to maximise on the training split: pass_rate, hit_rate, mrr, "
                   "mean_group_recall, ndcg (forbidden_rate is minimised).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Sampler seed: the same seed gives the same configuration.")
@click.option("--by-repository", is_flag=True,
              help="Leave one repository out: tune on the other repositories' cases, judge "
                   "on its own, for each; the configuration tuned on all of them is written "
                   "only when, held out, it raised the mean and cost no repository more "
                   "than 0.05 (else the default is).")
@quiet_option("No summary on the terminal.")
@handle_errors
def command(cases: tuple[str, ...], index: str | None, output: str, space_path: str | None,
            split_value: str, trials: int, metric: str, seed: int, by_repository: bool,
            quiet: bool) -> None:
    """Search the reference retriever's settings on the training cases of CASES (one or
    more case files) and write the best configuration found.

    Each trial runs the reference retriever over the training cases and scores it; the
    chosen and the default configuration are then scored on the training and the
    held-out cases side by side, with a warning when the training gain is more than
    twice the held-out gain. Needs the `tune` extra (pip install 'codegold[tune]').

    \b
    Example:
      codegold cases split cases.yaml --tag -o cases.split.yaml
      codegold tune cases.split.yaml --index indexes/ --trials 20 -o tuned.yaml
      codegold run cases.yaml --index indexes/ --config tuned.yaml -o attempts.jsonl
      codegold tune a.yaml b.yaml c.yaml --index indexes/ --by-repository -o tuned.yaml
    """
    guard(output, *cases, space_path, trees=(index,))
    request = TuneRequest(cases=cases, index=index, output=output, space=space_path,
                          split=split_value, trials=trials, metric=metric, seed=seed,
                          by_repository=by_repository)
    bar = ProgressLine("tuning (trials, then 4 final scorings)", trials + 4, quiet=quiet)
    try:
        tuned = tune(request, lambda done, total: bar.update(completed=done, total=total))
    finally:
        bar.stop()
    say_tuned(tuned, request, quiet)
