"""Diagnose every non-passing case of a run: cause, owner, evidence, bundle."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from codegold.diagnose.bundle import build_bundle, render_bundle_markdown, render_summary_markdown
from codegold.diagnose.causes import CAUSE_ORDER
from codegold.diagnose.checks import (
    CaseFacts,
    Finding,
    check_ranking,
    check_rewrite,
    check_target,
    earliest,
    furthest,
)
from codegold.diagnose.owners import Owners
from codegold.diagnose.records import (
    DIAGNOSIS_FORMAT,
    Diagnosis,
    DiagnosisSet,
    EvidenceBundle,
    dump_json,
)
from codegold.diagnose.sources import IndexView, RepoView
from codegold.errors import InputError, SchemaError
from codegold.model import Attempt, CaseResult, RunResult, iter_attempts


def diagnose_case(facts: CaseFacts) -> Finding:
    """The first broken boundary of one non-passing case."""
    result = facts.result
    if result.status == "invalid":
        return Finding("invalid_run", result.invalid_reason or "the run cannot be scored",
                       (f"invalid: {result.invalid_reason}",))
    if result.revision_mismatches:
        return Finding("revision_mismatch",
                       f"{len(result.revision_mismatches)} visible chunk(s) carry another revision",
                       tuple(f"chunk {c} is not from {facts.revision}" for c in result.revision_mismatches))
    missing = {g for g in result.missing_groups}
    groups = [g for g in result.case.required_groups if g.id in missing]
    if result.status == "missing" and not groups:
        groups = list(result.case.required_groups)
    findings: list[Finding] = []
    rewrite: Finding | None = None
    rewrite_checked = False
    for group in groups:
        broken = [check_target(facts, t) for t in group.any_of]
        if all(b is not None for b in broken):
            findings.append(furthest([b for b in broken if b is not None]))
            continue
        if not rewrite_checked:
            rewrite, rewrite_checked = check_rewrite(facts), True
        if rewrite is not None:
            findings.append(rewrite)
            continue
        if result.status == "missing":
            findings.append(Finding("retrieval_miss", "no attempt was recorded for this case",
                                    ("the attempts file has no line for this case",)))
            continue
        ranked = check_ranking(facts, group)
        if ranked is not None:
            findings.append(ranked)
    extra: tuple[str, ...] = ()
    if result.forbidden_chunk_ids:
        forbidden = Finding("forbidden_source",
                            f"forbidden chunk(s) inside the cutoff: {', '.join(result.forbidden_chunk_ids)}",
                            tuple(_forbidden_lines(result)))
        if not findings:
            return forbidden
        extra = (f"also: {forbidden.summary}",)
    if findings:
        first = earliest(findings)
        return Finding(first.cause, first.summary, first.evidence + extra)
    return Finding("unexplained", "the case fails but every check that could run passed",
                   (f"missing groups: {', '.join(result.missing_groups) or 'none'}",))


def _forbidden_lines(result: CaseResult) -> list[str]:
    ids = set(result.forbidden_chunk_ids)
    return [f"rank {r}: chunk {c.chunk_id} from {c.file} (forbidden: {', '.join(result.case.forbidden)})"
            for r, c in enumerate(result.ranked, 1) if c.chunk_id in ids]


@dataclass(frozen=True)
class Diagnosed:
    diagnosis: Diagnosis
    bundle: EvidenceBundle


def _final_attempts(path: str, wanted: set[str]) -> dict[str, Attempt]:
    return {a.attempt_id: a for a in iter_attempts(path) if a.attempt_id in wanted}


def diagnose_run(
    result: RunResult,
    *,
    index: IndexView | None = None,
    indexes: Mapping[str, IndexView] | None = None,
    repo: RepoView | None = None,
    attempts_path: str | None = None,
    owners: Owners | None = None,
    results_name: str = "results.json",
    index_name: str | None = None,
) -> tuple[DiagnosisSet, list[Diagnosed]]:
    """Diagnose every case that did not pass.

    Each case is checked against the index of its own pinned revision: ``indexes`` maps
    revisions to indexes (cases pinned to several revisions), ``index`` is the one-index
    shorthand. ``attempts_path`` defaults to the path eval recorded in results.json; when
    it cannot be read, checks that need candidates or the full ranking say so per case.
    """
    by_revision: dict[str, IndexView] = dict(indexes or {})
    if index is not None and index.manifest.revision:
        by_revision.setdefault(index.manifest.revision, index)
    owners = owners or Owners()
    warnings: list[str] = []
    failing = [c for c in result.cases if c.status != "pass"]
    if attempts_path is None and "attempts" in result.inputs:
        attempts_path = result.inputs["attempts"].path
    attempts: dict[str, Attempt] = {}
    if attempts_path is not None:
        try:
            attempts = _final_attempts(attempts_path, {c.attempt_id for c in failing if c.attempt_id})
        except (InputError, SchemaError) as err:
            warnings.append(f"attempts not read ({err}); candidates, context ids and the full "
                            "ranking are unavailable (give --attempts)")
    else:
        warnings.append("no attempts file known; give --attempts to use candidates and context ids")
    if not by_revision:
        warnings.append("no --index: index-level checks (policy, chunking, metadata) cannot run")
    out: list[Diagnosed] = []
    for case in failing:
        usable, note = _usable_index(by_revision, case)
        facts = CaseFacts(result=case, attempt=attempts.get(case.attempt_id or ""), index=usable,
                          repo=repo, index_note=note)
        if note and by_revision:
            facts.skip("index", note)
        finding = diagnose_case(facts)
        owner = owners.owner_of(finding.cause)
        bundle = build_bundle(result, facts, finding.cause, owner, usable)
        name = bundle_name(case.case_id)
        diagnosis = Diagnosis(
            case_id=case.case_id, status=case.status, cause=finding.cause, owner=owner,
            summary=finding.summary, evidence=list(finding.evidence),
            checks_not_run=list(facts.not_run),
            bundle_json=f"bundles/{name}.json", bundle_markdown=f"bundles/{name}.md",
        )
        out.append(Diagnosed(diagnosis, bundle))
    diagnoses = [d.diagnosis for d in out]
    by_cause = Counter(d.cause for d in diagnoses)
    summary = DiagnosisSet(
        format=DIAGNOSIS_FORMAT, results=results_name, index=index_name, attempts=attempts_path,
        diagnoses=diagnoses,
        by_cause=dict(sorted(by_cause.items(), key=lambda kv: CAUSE_ORDER.get(kv[0], 99))),
        by_owner=dict(sorted(Counter(d.owner for d in diagnoses).items())),
        warnings=warnings,
    )
    return summary, out


def _usable_index(indexes: Mapping[str, IndexView],
                  case: CaseResult) -> tuple[IndexView | None, str | None]:
    if not indexes:
        return None, "no --index given"
    index = indexes.get(case.case.revision)
    if index is None:
        built = ", ".join(sorted(indexes))
        return None, (f"no index of revision {case.case.revision} (indexes given: {built}); "
                      "index metadata is not borrowed across revisions")
    return index, None


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def bundle_name(case_id: str) -> str:
    """A file name for any case id: readable prefix plus a short hash that keeps it unique."""
    slug = _UNSAFE.sub("-", case_id).strip("-.")[:60] or "case"
    return f"{slug}-{hashlib.sha256(case_id.encode('utf-8')).hexdigest()[:8]}"


def write_diagnosis_dir(summary: DiagnosisSet, diagnosed: Iterable[Diagnosed], out_dir: str | Path) -> None:
    """Write diagnoses.json, summary.md and one JSON + Markdown bundle per failure."""
    root = Path(out_dir)
    (root / "bundles").mkdir(parents=True, exist_ok=True)
    for item in diagnosed:
        d = item.diagnosis
        if d.bundle_json:
            (root / d.bundle_json).write_bytes(dump_json(item.bundle))
        if d.bundle_markdown:
            (root / d.bundle_markdown).write_text(render_bundle_markdown(item.bundle, d), encoding="utf-8")
    (root / "diagnoses.json").write_bytes(dump_json(summary))
    (root / "summary.md").write_text(render_summary_markdown(summary), encoding="utf-8")


def load_diagnoses(directory: str | Path) -> DiagnosisSet:
    import msgspec

    path = Path(directory) / "diagnoses.json"
    try:
        raw = path.read_bytes()
    except OSError:
        raise InputError("no diagnoses.json in the diagnosis directory (run `codegold diagnose -o DIR`)",
                         path=str(path)) from None
    try:
        found = msgspec.json.decode(raw, type=DiagnosisSet)
    except (msgspec.ValidationError, msgspec.DecodeError) as err:
        raise SchemaError(f"not a codegold diagnoses file: {err}", path=str(path)) from None
    if found.format != DIAGNOSIS_FORMAT:
        raise SchemaError(f"unsupported diagnoses format {found.format}", path=str(path))
    return found
