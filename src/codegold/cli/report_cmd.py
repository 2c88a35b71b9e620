"""``codegold report``: one self-contained HTML page, plus Markdown and JUnit on request."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from codegold.cli._common import handle_errors

if TYPE_CHECKING:
    from codegold.model import RunResult
    from codegold.report import DiagnosisView


@click.command("report")
@click.argument("results", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "html_out", type=click.Path(dir_okay=False, writable=True),
              help="Write the HTML report here.")
@click.option("--md", "md_out", type=click.Path(dir_okay=False, writable=True),
              help="Write a short Markdown summary here.")
@click.option("--junit", "junit_out", type=click.Path(dir_okay=False, writable=True),
              help="Write JUnit XML (one test case per gold case) here.")
@click.option("--compare", "base", type=click.Path(dir_okay=False),
              help="Baseline results.json to compare against.")
@click.option("--diagnosis", "diagnosis_dir", type=click.Path(file_okay=False),
              help="Directory written by `codegold diagnose -o`.")
@click.option("--gate-policy", "policy", type=click.Path(dir_okay=False),
              help="Gate policy file: show its verdict (the report never fails a build).")
@click.option("--title", default="codegold report", show_default=True)
@handle_errors
def command(results: str, html_out: str | None, md_out: str | None, junit_out: str | None,
            base: str | None, diagnosis_dir: str | None, policy: str | None, title: str) -> None:
    """Render RESULTS as an HTML page people read, Markdown, and JUnit XML.

    The page holds overview figures, slices with their n, the gate verdict, failure causes
    and owners, charts, and every case with its ranked evidence beside what was accepted
    and forbidden; filter by status, cause, slice or case id (the filter lives in the URL,
    e.g. report.html#status=fail). It loads nothing from the network.

    \b
    Example:
      codegold report results.json --diagnosis diag/ --compare base.json \\
          -o report.html --md summary.md --junit junit.xml
    """
    import msgspec

    from codegold.errors import InputError
    from codegold.model import load_results
    from codegold.report import RENDERERS, ComparisonView, GateView, ReportInput

    if not (html_out or md_out or junit_out):
        raise InputError("nothing to write: give -o report.html, --md FILE or --junit FILE")
    run = load_results(results)
    comparison = None
    if base:
        from codegold.compare import compare_runs

        found = compare_runs(load_results(base), run, base_name=base, new_name=results)
        comparison = msgspec.convert(msgspec.to_builtins(found), ComparisonView)
    gate = None
    if policy:
        from codegold.gate import decide, load_policy

        verdict = decide(run, load_policy(policy), load_results(base) if base else None)
        gate = msgspec.convert({**msgspec.to_builtins(verdict), "policy": policy}, GateView)
    diagnoses: dict[str, DiagnosisView] = {}
    if diagnosis_dir:
        diagnoses = _diagnosis_views(diagnosis_dir)
    report = ReportInput(results=run, title=title, results_name=results, comparison=comparison,
                         diagnoses=diagnoses, gate=gate, matches=_matches(run))
    for target, kind in ((html_out, "html"), (md_out, "markdown"), (junit_out, "junit")):
        if target:
            Path(target).write_text(RENDERERS[kind](report), encoding="utf-8")
            click.echo(f"wrote {target}", err=True)


def _diagnosis_views(directory: str) -> dict[str, DiagnosisView]:
    from codegold.diagnose import load_diagnoses
    from codegold.report import DiagnosisView

    views = {}
    for d in load_diagnoses(directory).diagnoses:
        bundle = None
        if d.bundle_markdown:
            path = Path(directory) / d.bundle_markdown
            bundle = path.read_text(encoding="utf-8") if path.is_file() else None
        views[d.case_id] = DiagnosisView(
            case_id=d.case_id, cause=d.cause, owner=d.owner, summary=d.summary,
            evidence=d.evidence, checks_not_run=d.checks_not_run, bundle_markdown=bundle)
    return views


def _matches(run: RunResult) -> dict[str, dict[str, tuple[str, ...]]]:
    """Which groups each shown chunk satisfies, by the scorer's own acceptance rule."""
    from codegold.evaluate import target_matches

    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for case in run.cases:
        per_chunk: dict[str, tuple[str, ...]] = {}
        for chunk in case.ranked:
            groups = tuple(g.id for g in case.case.groups
                           if any(target_matches(chunk, t) for t in g.any_of))
            if groups:
                per_chunk[chunk.chunk_id] = groups
        out[case.case_id] = per_chunk
    return out
