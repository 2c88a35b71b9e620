"""What ``codegold demo`` prints: a line as each step starts, its mark, time, detail,
notes and outputs as it ends, and the closing summary (worked examples, the fix with its
gain and cost, what was skipped, both gates, where the reports are, what to run next)."""

from __future__ import annotations

from codegold.cli._common import stdout_console
from codegold.plumbing.text import rich_safe
from codegold.workflows.demo import (
    FIX_POLICY,
    DemoOutcome,
    Step,
    examples_text,
    fix_text,
    next_steps_text,
)

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
            self._section(examples_text(outcome.examples))
        if outcome.fix is not None:
            self._section(fix_text(outcome.fix))
        if outcome.skipped:
            console.print("\n[yellow]Skipped:[/] " + rich_safe("; ".join(
                f"{s.name} ({s.detail})" for s in outcome.skipped)), highlight=False)
        if outcome.gate_passed is not None:
            self._gate("default", "", outcome.gate_passed, outcome, "results.json")
        fix = outcome.fix
        if fix is not None and fix.gate_passed is not None:
            self._gate("fixed", f" ({FIX_POLICY.as_posix()}, same policy)", fix.gate_passed,
                       outcome, "fixed/results.json")
        reports = [str(p) for p in (outcome.report, outcome.fixed_report) if p is not None]
        if reports:
            console.print(f"Reports: {rich_safe(', '.join(reports))}", highlight=False)
        console.print(f"Everything is in {rich_safe(str(outcome.out))}/", highlight=False)
        self._section(next_steps_text())

    def _gate(self, label: str, note: str, passed: bool, outcome: DemoOutcome,
              results: str) -> None:
        """One gate's verdict with the command that gives it and that command's exit code."""
        verdict = "[green]passed[/]" if passed else "[red]failed[/]"
        command = f"codegold gate {outcome.out / results} --policy {outcome.policy}"
        self.console.print(f"{'' if label == 'fixed' else chr(10)}Gate on the {label} "
                           f"configuration{rich_safe(note)} {verdict}: `{rich_safe(command)}` "
                           f"exits {0 if passed else 1}.", highlight=False)

    def _section(self, lines: list[str]) -> None:
        title, *rest = lines
        self.console.print(f"\n[bold]{rich_safe(title)}[/]", highlight=False)
        for text in rest:
            self.console.print(rich_safe(text), highlight=False)
