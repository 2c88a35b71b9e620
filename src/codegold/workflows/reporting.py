"""The report workflow: one report model rendered as HTML, Markdown and JUnit files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codegold.assemble import report_input
from codegold.compare import compare_runs
from codegold.gate import Verdict
from codegold.model import RunResult, load_results
from codegold.plumbing.outputs import write_text_atomic
from codegold.report import RENDERERS
from codegold.workflows.gating import GateRequest, decide


@dataclass(frozen=True)
class ReportRequest:
    results: str | RunResult  # a results.json path, or a run scored in this process
    html: str | Path | None = None  # files to write; at least one
    markdown: str | Path | None = None
    junit: str | Path | None = None
    title: str = "codegold report"
    results_name: str | None = None  # how the report names the results (default: the path)
    baseline: str | None = None  # compare against these results (shown apart from the verdict)
    diagnosis: str | Path | None = None  # a folder `codegold diagnose -o` wrote
    policy: str | None = None  # show this gate policy's verdict
    verdict: Verdict | None = None  # or: a verdict already reached
    policy_name: str | None = None  # how the report names the policy (default: the path)


def render(request: ReportRequest) -> tuple[str, ...]:
    """Write every file the request names (html, markdown, junit, in that order); return
    their paths. The report never fails a build: a verdict is only shown."""
    if isinstance(request.results, str):
        run = load_results(request.results)
        name = request.results_name or request.results
    else:
        run = request.results
        name = request.results_name or "results.json"
    comparison = None
    if request.baseline:
        comparison = compare_runs(load_results(request.baseline), run,
                                  base_name=request.baseline, new_name=name)
    verdict = request.verdict
    if request.policy:
        # The same call `codegold gate RESULTS --policy P` makes: one verdict, the policy's
        # own (its baseline, if it names one). A baseline given to the report is shown
        # apart as a comparison, never added as a check.
        verdict = decide(GateRequest(results=run, policy=request.policy))
    report = report_input(run, results_name=name, title=request.title, comparison=comparison,
                          verdict=verdict,
                          policy_name=request.policy_name or request.policy or "",
                          diagnosis_dir=request.diagnosis)
    written = []
    for target, kind in ((request.html, "html"), (request.markdown, "markdown"),
                         (request.junit, "junit")):
        if target:
            write_text_atomic(target, RENDERERS[kind](report))
            written.append(str(target))
    return tuple(written)
