"""Assemble what the report renders from the engines' outputs.

The report package renders model records and imports no engine; the CLI's ``report``
command and the demo both need the same glue (the scorer's acceptance marks, the gate
verdict, the diagnoses and their bundles), so it lives here, once.
"""

from __future__ import annotations

from pathlib import Path

from codegold.diagnose import load_diagnoses
from codegold.evaluate import target_matches
from codegold.model import RunResult, Verdict
from codegold.model.comparison import Comparison
from codegold.model.diagnoses import Diagnosis
from codegold.report import ReportInput


def chunk_matches(run: RunResult) -> dict[str, dict[str, tuple[str, ...]]]:
    """case id → chunk id → ids of the evidence groups that chunk satisfies."""
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


def load_diagnosis_dir(directory: str | Path) -> tuple[dict[str, Diagnosis], dict[str, str]]:
    """The diagnoses written by ``codegold diagnose -o DIR`` by case id, and each one's
    evidence bundle as Markdown text (when its file is there)."""
    diagnoses: dict[str, Diagnosis] = {}
    bundles: dict[str, str] = {}
    for d in load_diagnoses(directory).diagnoses:
        diagnoses[d.case_id] = d
        if d.bundle_markdown:
            root = Path(directory).resolve()
            path = (root / d.bundle_markdown).resolve()
            # The file names a path; only one inside the diagnosis directory is read.
            if path.is_relative_to(root) and path.is_file():
                bundles[d.case_id] = path.read_text(encoding="utf-8")
    return diagnoses, bundles


def report_input(run: RunResult, *, results_name: str, title: str = "codegold report",
                 comparison: Comparison | None = None, verdict: Verdict | None = None,
                 policy_name: str = "", diagnosis_dir: str | Path | None = None) -> ReportInput:
    """One ReportInput from a run and whatever else is at hand."""
    diagnoses, bundles = load_diagnosis_dir(diagnosis_dir) if diagnosis_dir else ({}, {})
    return ReportInput(
        results=run, title=title, results_name=results_name, comparison=comparison,
        diagnoses=diagnoses, bundles=bundles, gate=verdict, gate_policy=policy_name,
        matches=chunk_matches(run))
