"""What ``codegold tune`` prints: warnings on stderr, then the default and the tuned
configuration side by side on the training and held-out cases (or each repository held
out), and where the configuration went."""

from __future__ import annotations

import click

from codegold.plumbing.text import terminal_safe
from codegold.workflows.tuning import Tuned, TuneRequest


def say_tuned(tuned: Tuned, request: TuneRequest, quiet: bool) -> None:
    output = request.output
    if tuned.folds is not None:
        for warning in tuned.folds.warnings:
            click.echo(f"warning: {warning}", err=True)
        if not quiet:
            click.echo(tuned.text.split("\nformat:", 1)[0].replace("# ", ""))
            click.echo(f"written to {output}")
        return
    result = tuned.result
    assert result is not None
    for warning in result.warnings:
        click.echo(f"warning: {terminal_safe(warning)}", err=True)
    if quiet:
        return
    click.echo(f"{request.metric} over {request.trials} trials (seed {request.seed}, split by "
               f"{result.split_source}):")
    click.echo(f"{'':<10}{'train':>10}{'held-out':>10}   pass@cutoff train/held-out, "
               "file hit train/held-out")
    for name, tr, ho in (("default", result.default_train, result.default_heldout),
                         ("tuned", result.tuned_train, result.tuned_heldout)):
        click.echo(f"{name:<10}{tr.metric:>10.3f}{ho.metric:>10.3f}   "
                   f"{tr.pass_rate:.3f}/{ho.pass_rate:.3f}, "
                   f"{tr.file_hit_rate:.3f}/{ho.file_hit_rate:.3f}")
    click.echo(f"({result.default_train.cases} training, {result.default_heldout.cases} "
               f"held-out cases) written to {output}")
