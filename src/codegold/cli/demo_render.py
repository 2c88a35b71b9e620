"""What ``codegold demo`` prints: a line as each step starts, its mark, time, detail,
notes and outputs as it ends, and the closing summary (worked examples, what was skipped,
the gate, where the report is)."""

from __future__ import annotations

from codegold.cli._common import stdout_console
from codegold.plumbing.text import rich_safe
from codegold.workflows.demo import DemoOutcome, Step, examples_text

_MARK = {"done": "[green]✓[/]", "skipped": "[yellow]–[/]", "failed": "[red]✗[/]"}


class StepsShown:
    """Draws the demo's steps on stdout (``on_start`` and ``on_step`` of run_demo)."""

    def __init__(self) -> None:
        self.console = stdout_console()

    def started(self, name: str) -> None:
        self.console.print(f"[bold]…[/] {rich_safe(name)}", highlight=False)

    def finished(self, step: Step) -> None:
        console = self.console
        took = f" ({step.seconds:.1f}s)" if step.seconds else ""
        console.print(f"{_MARK[step.status]} {rich_safe(step.name)}{took}: "
                      f"{rich_safe(step.detail)}", highlight=False)
        for note in step.notes:
            console.print(f"    {rich_safe(note)}", highlight=False)
        for path in step.outputs:
            console.print(f"    → {rich_safe(str(path))}", highlight=False)

    def closing(self, outcome: DemoOutcome) -> None:
        console = self.console
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
