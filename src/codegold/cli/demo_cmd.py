"""``codegold demo``: the whole main job on the bundled acme-shop example, offline."""

from __future__ import annotations

from pathlib import Path

import click

from codegold.cli._common import guard, handle_errors
from codegold.cli.demo_render import StepsShown
from codegold.workflows.demo import default_example_dir, run_demo


@click.command("demo")
@click.option("--out", "out", type=click.Path(file_okay=False), default="demo-out",
              show_default=True, help="Folder for everything the demo writes.")
@click.option("--example", type=click.Path(file_okay=False), default=None,
              help="Example folder (default: examples/acme-shop of this checkout). Its "
                   "build_example.py is run as Python code: any other folder needs "
                   "--trust-example.")
@click.option("--trust-example", is_flag=True,
              help="Allow --example to name a folder other than the bundled example. "
                   "DANGER: its build_example.py runs with your permissions.")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Cases run in parallel.")
@handle_errors
def command(out: str, example: str | None, trust_example: bool, workers: int) -> None:
    """Run the main job end to end on the bundled example and write an HTML report.

    Builds the acme-shop example repository (two pinned revisions), indexes both,
    runs its gold cases through the reference retriever, evaluates, replays the
    recorded run of the three classic retrieval failures, diagnoses failures, gates
    against examples/acme-shop/policy.yaml and writes OUT/report.html. Then the fix
    a team would commit (examples/acme-shop/fix/index-policy.yaml, a searchable-path
    policy): both revisions indexed with it, the same cases run, diagnosed and gated
    with the same policy (OUT/fixed/), and what it gained and cost printed. Offline.
    A failing gate is part of the story, so the demo exits 0 once every step ran;
    it exits 1 when a step failed.

    The example's build_example.py is executed as Python code. Only the bundled example
    runs by default; --example with another folder is refused unless --trust-example is
    given: pass it only for a folder whose code you have read.

    \b
    Example:
      codegold demo --out demo-out
      open demo-out/report.html
    """
    guard(out, example or str(default_example_dir()), directory=True, option="--out")
    shown = StepsShown()
    outcome = run_demo(Path(out), example=Path(example) if example else None,
                       trust_example=trust_example, workers=workers,
                       on_step=shown.finished, on_start=shown.started)
    shown.closing(outcome)
    if outcome.failed:
        raise SystemExit(1)
