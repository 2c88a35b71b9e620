"""``codegold demo``: the whole main job on the bundled acme-shop example, offline."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from codegold.cli._common import guard, handle_errors, stdout_console
from codegold.errors import InputError
from codegold.plumbing.text import rich_safe
from codegold.workflows.demo import (
    DemoOutcome,
    Step,
    default_example_dir,
    examples_text,
    run_demo,
)

if TYPE_CHECKING:
    from rich.console import Console

_MARK = {"done": "[green]✓[/]", "skipped": "[yellow]–[/]", "failed": "[red]✗[/]"}


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
    against examples/acme-shop/policy.yaml and writes OUT/report.html. Offline.
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
    if example is not None:
        _check_trusted(Path(example), default_example_dir(), trust_example)
    guard(out, example or str(default_example_dir()), directory=True, option="--out")
    console = stdout_console()

    def started(name: str) -> None:
        console.print(f"[bold]…[/] {rich_safe(name)}", highlight=False)

    def finished(step: Step) -> None:
        took = f" ({step.seconds:.1f}s)" if step.seconds else ""
        console.print(f"{_MARK[step.status]} {rich_safe(step.name)}{took}: "
                      f"{rich_safe(step.detail)}", highlight=False)
        for note in step.notes:
            console.print(f"    {rich_safe(note)}", highlight=False)
        for path in step.outputs:
            console.print(f"    → {rich_safe(str(path))}", highlight=False)

    outcome = run_demo(Path(out), example=Path(example) if example else None, workers=workers,
                       on_step=finished, on_start=started)
    _closing(console, outcome)
    if outcome.failed:
        raise SystemExit(1)


def _closing(console: Console, outcome: DemoOutcome) -> None:
    if outcome.examples:
        title, *lines = examples_text(outcome.examples)
        console.print(f"\n[bold]{title}[/]")
        for text in lines:
            console.print(rich_safe(text), highlight=False)
    if outcome.skipped:
        console.print("\n[yellow]Skipped because that part is not installed here:[/] "
                      + rich_safe(", ".join(s.name for s in outcome.skipped)), highlight=False)
    if outcome.gate_passed is not None:
        verdict = "passed" if outcome.gate_passed else "failed (see the reasons above)"
        console.print(f"\nGate {verdict}.", highlight=False)
    if outcome.report is not None:
        console.print(f"Report: {rich_safe(str(outcome.report))}", highlight=False)
    console.print(f"Everything is in {rich_safe(str(outcome.out))}/", highlight=False)


def _check_trusted(example: Path, bundled: Path, trusted: bool) -> None:
    """Refuse to execute another folder's build_example.py unless the user said to."""
    if trusted or os.path.realpath(example) == os.path.realpath(bundled):
        return
    raise InputError("--example runs the folder's build_example.py as Python code; codegold "
                     "only runs the bundled example's unless you pass --trust-example "
                     "(do so only for code you have read)", path=str(example))
