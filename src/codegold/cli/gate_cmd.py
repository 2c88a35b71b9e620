"""``codegold gate``: CI verdict from results.json and a policy; every reason printed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click
import msgspec

from codegold.cli._common import EXIT_FAIL, EXIT_OK, handle_errors, json_option, stdout_console
from codegold.gate import Verdict
from codegold.plumbing.text import rich_safe
from codegold.workflows import GateRequest, decide

if TYPE_CHECKING:
    from rich.console import Console


@click.command("gate")
@click.argument("results", type=click.Path(dir_okay=False))
@click.option("--policy", "policy_path", required=True, type=click.Path(dir_okay=False),
              help="Gate policy YAML (format: 1).")
@click.option("--baseline", type=click.Path(dir_okay=False),
              help="Baseline results.json (overrides the policy's baseline).")
@click.option("--max-new-failures", type=int,
              help="Cases allowed to go from pass to fail against the baseline.")
@click.option("--report-only", is_flag=True, help="Print the verdict but always exit 0.")
@json_option("Print the verdict as JSON.")
@handle_errors
def command(results: str, policy_path: str, baseline: str | None, max_new_failures: int | None,
            report_only: bool, as_json: bool) -> None:
    """Gate RESULTS against a policy: exit 0 pass, 1 fail, 2 bad input.

    Floors and ceilings on any metric (hit_rate, pass_rate, mrr, ...) apply overall or
    per slice; max_failed_cases caps failing cases; zero-tolerance options cover forbidden
    sources, revision mismatches and invalid cases; a baseline limits cases that passed
    before and fail now, and cases dropped since. A rank change between two acceptable
    chunks never fails a gate.

    \b
    Example:
      codegold gate results.json --policy policy.yaml
      codegold gate results.json --policy policy.yaml --baseline main-results.json --report-only
    """
    verdict = decide(GateRequest(results=results, policy=policy_path, baseline=baseline,
                                 max_new_failures=max_new_failures))
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(verdict), indent=2))
    else:
        render_verdict(stdout_console(), verdict)
    if report_only:
        sys.exit(EXIT_OK)
    sys.exit(EXIT_OK if verdict.passed else EXIT_FAIL)


def render_verdict(console: Console, verdict: Verdict) -> None:
    # Rules, slices and case ids come from user files: escape them so a "[/]" in a case id
    # prints as text instead of breaking rich's markup.
    for check in verdict.checks:
        mark = "[green]PASS[/]" if check.passed else "[red]FAIL[/]"
        console.print(f"{mark} {rich_safe(check.rule)}: {rich_safe(check.figure)} "
                      f"(threshold {rich_safe(check.threshold)})", highlight=False)
        if check.note and not check.passed:
            console.print(f"     {rich_safe(check.note)}", highlight=False)
        if check.cases:
            shown = ", ".join(rich_safe(case) for case in check.cases[:10])
            more = f" … +{len(check.cases) - 10} more" if len(check.cases) > 10 else ""
            console.print(f"     cases: {shown}{more}", highlight=False)
    if verdict.passed:
        console.print("[bold green]gate: PASS[/]")
    else:
        console.print(f"[bold red]gate: FAIL[/] ({len(verdict.failures)} of "
                      f"{len(verdict.checks)} checks failed)")
