"""``codegold demo``: the whole main job on the bundled acme-shop example, offline."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from codegold.cli._common import handle_errors

if TYPE_CHECKING:
    from rich.console import Console

    from codegold.demo import DemoOutcome, Step

_MARK = {"done": "[green]✓[/]", "skipped": "[yellow]–[/]", "failed": "[red]✗[/]"}


@click.command("demo")
@click.option("--out", "out", type=click.Path(file_okay=False), default="demo-out",
              show_default=True, help="Folder for everything the demo writes.")
@click.option("--example", type=click.Path(file_okay=False), default=None,
              help="Example folder (default: examples/acme-shop of this checkout).")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Cases run in parallel.")
@handle_errors
def command(out: str, example: str | None, workers: int) -> None:
    """Run the main job end to end on the bundled example and write an HTML report.

    Builds the acme-shop example repository (two pinned revisions), indexes both,
    runs its gold cases through the reference retriever, evaluates, replays the
    recorded run of the spec's three worked examples, diagnoses failures, gates
    against examples/acme-shop/policy.yaml and writes OUT/report.html. Offline.
    A failing gate is part of the story, so the demo exits 0 once every step ran;
    it exits 1 when a step failed.

    \b
    Example:
      codegold demo --out demo-out
      open demo-out/report.html
    """
    from pathlib import Path

    from codegold.cli._common import stdout_console
    from codegold.demo import run_demo

    console = stdout_console()

    def started(name: str) -> None:
        console.print(f"[bold]…[/] {name}", highlight=False)

    def finished(step: Step) -> None:
        took = f" ({step.seconds:.1f}s)" if step.seconds else ""
        console.print(f"{_MARK[step.status]} {step.name}{took}: {step.detail}", highlight=False)
        for note in step.notes:
            console.print(f"    {note}", highlight=False)
        for path in step.outputs:
            console.print(f"    → {path}", highlight=False)

    outcome = run_demo(Path(out), example=Path(example) if example else None, workers=workers,
                       on_step=finished, on_start=started)
    _closing(console, outcome)
    if outcome.failed:
        raise SystemExit(1)


def _closing(console: Console, outcome: DemoOutcome) -> None:
    if outcome.examples:
        console.print("\n[bold]The spec's three worked examples[/]")
        for line in outcome.examples:
            rank = line.first_relevant_rank if line.first_relevant_rank is not None else "none"
            console.print(f"  {line.run:8} {line.case_id:26} {line.status:4}  first relevant rank "
                          f"{rank}", highlight=False)
            details = []
            if line.missing_groups:
                details.append("missing group " + ", ".join(line.missing_groups))
            if line.forbidden:
                details.extend("forbidden " + text for text in line.forbidden)
            if line.cause:
                details.append(f"cause {line.cause}, owner {line.owner or '?'}")
            for detail in details:
                console.print(f"  {'':8} {'':26} {detail}", highlight=False)
    if outcome.skipped:
        console.print("\n[yellow]Skipped because that part is not installed here:[/] "
                      + ", ".join(s.name for s in outcome.skipped), highlight=False)
    if outcome.gate_passed is not None:
        verdict = "passed" if outcome.gate_passed else "failed (see the reasons above)"
        console.print(f"\nGate {verdict}.", highlight=False)
    if outcome.report is not None:
        console.print(f"Report: {outcome.report}", highlight=False)
    console.print(f"Everything is in {outcome.out}/", highlight=False)
