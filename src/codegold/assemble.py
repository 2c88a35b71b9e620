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
            bundle = _read_bundle(directory, d.bundle_markdown)
            if bundle is not None:
                bundles[d.case_id] = bundle
    return diagnoses, bundles


MAX_BUNDLE_BYTES = 4 * 1024 * 1024


def _read_bundle(directory: str | Path, relative: str) -> str | None:
    """A bundle named in diagnoses.json, read only from inside the diagnosis folder.

    diagnoses.json is an artifact anyone could have written: an absolute path, ``..`` or a
    symbolic link out of the folder would put any file (``/proc/self/environ``) into the
    report, so they are refused. A missing bundle is no bundle; one that is not a regular
    file, too large or not UTF-8 text is refused with its name.
    """
    from codegold.errors import InputError
    from codegold.plumbing.outputs import resolve_inside

    where = str(Path(directory) / "diagnoses.json")
    try:
        path = resolve_inside(directory, relative)
    except InputError as err:
        raise InputError(f"bundle_markdown: {err.message}", path=where) from None
    if not path.exists():
        return None
    if not path.is_file():
        raise InputError(f"bundle_markdown {relative!r} is not a regular file", path=where)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BUNDLE_BYTES + 1)
    except OSError as err:
        raise InputError(f"cannot read bundle {relative!r}: {err.strerror}", path=where) from None
    if len(data) > MAX_BUNDLE_BYTES:
        raise InputError(f"bundle {relative!r} is larger than {MAX_BUNDLE_BYTES} bytes; "
                         "expected a Markdown evidence bundle", path=where)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"bundle {relative!r} is not UTF-8 text (byte {err.start}); expected "
                         "a Markdown evidence bundle", path=where) from None
    if "\x00" in text:
        raise InputError(f"bundle {relative!r} holds NUL bytes; expected a Markdown evidence "
                         "bundle", path=where)
    return text



def report_input(run: RunResult, *, results_name: str, title: str = "codegold report",
                 comparison: Comparison | None = None, verdict: Verdict | None = None,
                 policy_name: str = "", diagnosis_dir: str | Path | None = None) -> ReportInput:
    """One ReportInput from a run and whatever else is at hand."""
    diagnoses, bundles = load_diagnosis_dir(diagnosis_dir) if diagnosis_dir else ({}, {})
    return ReportInput(
        results=run, title=title, results_name=results_name, comparison=comparison,
        diagnoses=diagnoses, bundles=bundles, gate=verdict, gate_policy=policy_name,
        matches=chunk_matches(run))
