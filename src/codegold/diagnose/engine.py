"""Diagnose every non-passing case of a run: cause, owner, evidence, bundle."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from codegold.diagnose.agent import AGENT_CASE_CHECKS, AGENT_GROUP_CHECKS, is_agent
from codegold.diagnose.bundle import build_bundle, render_bundle_markdown, render_summary_markdown
from codegold.diagnose.causes import CAUSE_ORDER
from codegold.diagnose.checks import (
    CASE_CHECKS,
    GROUP_CHECKS,
    RETURNED_CHECKS,
    TARGET_CHECKS,
    CaseFacts,
    Finding,
    NotRun,
    Outcome,
    TargetFacts,
    earliest,
    forbidden_source,
    furthest,
    look_up,
    query_rewrite_loss,
    vocabulary,
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
from codegold.index.outdir import remove_stale_temps, temp_name
from codegold.index.records import InventoryEntry, SymbolDef
from codegold.model import Attempt, CaseResult, EvidenceGroup, RunResult, iter_attempts
from codegold.model.io import decode_json
from codegold.plumbing.outputs import swap_folder
from codegold.plumbing.secrets import redact_struct


@dataclass(frozen=True)
class Explained:
    """One case's first broken boundary, the checks that could not run, and what was
    looked up on the way (definitions and inventory, for the evidence bundle)."""

    finding: Finding
    not_run: tuple[str, ...]
    definitions: tuple[SymbolDef, ...]
    inventory: tuple[InventoryEntry, ...]


class _Notes:
    """Collects the checks that could not run, each line once, in the order met."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def take(self, outcome: Outcome) -> Finding | None:
        if isinstance(outcome, NotRun):
            if outcome.line not in self.lines:
                self.lines.append(outcome.line)
            return None
        return outcome


def _index_level(facts: CaseFacts, looked: TargetFacts, notes: _Notes) -> Finding | None:
    for check in TARGET_CHECKS:
        found = notes.take(check(facts, looked))
        if found is not None:
            return found
    return None


def _returned_level(facts: CaseFacts, looked: TargetFacts, notes: _Notes) -> Finding | None:
    for check in RETURNED_CHECKS:
        found = notes.take(check(facts, looked))
        if found is not None:
            return found
    return None


def _group_finding(facts: CaseFacts, group: EvidenceGroup, looked: list[TargetFacts],
                   rewrite: Outcome, notes: _Notes) -> Finding | None:
    """The first broken boundary of one missing group, in the documented order."""
    # A group fails at the index only when every target does (any could have satisfied
    # it), and then at the boundary the furthest target reached.
    broken = [_index_level(facts, t, notes) for t in looked]
    if all(b is not None for b in broken):
        return furthest([b for b in broken if b is not None])
    for t, b in zip(looked, broken, strict=True):
        if b is None:
            found = _returned_level(facts, t, notes)
            if found is not None:
                return found
    if facts.result.status != "missing" and is_agent(facts.final()):
        for agent_check in AGENT_GROUP_CHECKS:
            found = notes.take(agent_check(facts, group))
            if found is not None:
                return found
    lost = notes.take(rewrite)
    if lost is not None:
        return lost
    if facts.result.status == "missing":
        return Finding("retrieval_miss", "no attempt was recorded for this case",
                       ("the attempts file has no line for this case",))
    if facts.attempt is None:
        notes.take(NotRun("retrieval_miss", "attempts file unavailable; only the stored top ranks are known"))
    if facts.attempt is None or facts.attempt.candidates is None:
        # retrieval_miss then judges the final ranking alone; say so even when it fires
        notes.take(NotRun("reranker_demotion", "the attempt records no candidates before rerank"))
    for check in GROUP_CHECKS:
        found = notes.take(check(facts, group))
        if found is not None:
            words = vocabulary(facts, looked) if found.cause in _WORD_CAUSES else None
            return found if words is None else replace(found, evidence=(*found.evidence, words))
    return None


# Misses of ranking, where the query's words say whether any search by words could help.
_WORD_CAUSES = frozenset({"retrieval_miss", "below_cutoff"})


def diagnose_case(facts: CaseFacts) -> Explained:
    """The first broken boundary of one non-passing case (DESIGN order, see checks)."""
    result = facts.result
    notes = _Notes()
    if facts.index_note is not None and facts.index is None and facts.index_note != "no --index given":
        notes.take(NotRun("index", facts.index_note))
    for check in CASE_CHECKS:
        found = notes.take(check(facts))
        if found is not None:
            return Explained(found, tuple(notes.lines), (), ())
    missing = set(result.missing_groups)
    groups = [g for g in result.case.required_groups if g.id in missing]
    if result.status == "missing" and not groups:
        groups = list(result.case.required_groups)
    looked_up = {g.id: [look_up(facts, t) for t in g.any_of] for g in groups}
    rewrite = query_rewrite_loss(facts)
    findings = [f for f in (_group_finding(facts, g, looked_up[g.id], rewrite, notes) for g in groups)
                if f is not None]
    forbidden = notes.take(forbidden_source(facts))
    if is_agent(facts.final()):
        agent = [f for f in (notes.take(check(facts)) for check in AGENT_CASE_CHECKS) if f]
        if any(f.cause == "forbidden_read_first" for f in agent):
            forbidden = None  # the same chunk, found at an earlier boundary
        findings += agent
    if findings:
        first = earliest(findings)
        if forbidden is not None:
            first = Finding(first.cause, first.summary, (*first.evidence, f"also: {forbidden.summary}"))
    elif forbidden is not None:
        first = forbidden
    else:
        first = Finding("unexplained", "the case fails but every check that could run passed",
                        (f"missing groups: {', '.join(result.missing_groups) or 'none'}",))
    definitions = tuple(dict.fromkeys(d for ts in looked_up.values() for t in ts for d in t.definitions))
    inventory = tuple(dict.fromkeys(e for ts in looked_up.values() for t in ts for e in t.entries))
    return Explained(first, tuple(notes.lines), definitions, inventory)


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
    """Diagnose every case that did not pass, and list agent-stage findings on passing
    cases apart (``DiagnosisSet.passing``; the returned bundles hold both).

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
    # An agent's case that passes yet dropped evidence from its final patch or answer is
    # checked too, and listed apart: its context was right, its output was not, and it
    # is no failure.
    passing = [c for c in result.cases if c.status == "pass" and _dropped_evidence(c)]
    if attempts_path is None and "attempts" in result.inputs:
        attempts_path = result.inputs["attempts"].path
    attempts: dict[str, Attempt] = {}
    if attempts_path is not None:
        try:
            attempts = _final_attempts(attempts_path, {c.attempt_id for c in failing + passing
                                                       if c.attempt_id})
        except (InputError, SchemaError) as err:
            warnings.append(f"attempts not read ({err}); candidates, context ids and the full "
                            "ranking are unavailable (give --attempts)")
    else:
        warnings.append("no attempts file known; give --attempts to use candidates and context ids")
    if not by_revision:
        warnings.append("no --index: index-level checks (policy, chunking, metadata) cannot run")
    out: list[Diagnosed] = []
    passed: list[Diagnosed] = []
    for case in failing + passing:
        usable, note = _usable_index(by_revision, case)
        facts = CaseFacts(result=case, attempt=attempts.get(case.attempt_id or ""), index=usable,
                          repo=repo, index_note=note)
        explained = diagnose_case(facts) if case.status != "pass" else _agent_stage(facts)
        if explained is None:
            continue
        finding = explained.finding
        facts = replace(facts, definitions=explained.definitions, inventory=explained.inventory,
                        not_run=explained.not_run)
        owner = owners.owner_of(finding.cause, facts.attempt.retriever if facts.attempt else None,
                                agent=is_agent(facts.final()))
        bundle = build_bundle(result, facts, finding.cause, owner, usable)
        name = bundle_name(case.case_id)
        diagnosis = Diagnosis(
            case_id=case.case_id, status=case.status, cause=finding.cause, owner=owner,
            summary=finding.summary, evidence=list(finding.evidence),
            checks_not_run=list(facts.not_run),
            bundle_json=f"bundles/{name}.json", bundle_markdown=f"bundles/{name}.md",
        )
        (out if case.status != "pass" else passed).append(Diagnosed(diagnosis, bundle))
    diagnoses = [d.diagnosis for d in out]
    by_cause = Counter(d.cause for d in diagnoses)
    summary = DiagnosisSet(
        format=DIAGNOSIS_FORMAT, results=results_name, index=index_name, attempts=attempts_path,
        diagnoses=diagnoses,
        by_cause=dict(sorted(by_cause.items(), key=lambda kv: CAUSE_ORDER.get(kv[0], 99))),
        by_owner=dict(sorted(Counter(d.owner for d in diagnoses).items())),
        warnings=warnings, passing=[d.diagnosis for d in passed],
    )
    return summary, out + passed


def _agent_stage(facts: CaseFacts) -> Explained | None:
    """The agent-stage finding on a passing case (its final patch or answer dropped
    evidence), or None when there is none."""
    notes = _Notes()
    findings = [f for f in (notes.take(check(facts)) for check in AGENT_CASE_CHECKS) if f]
    if not findings:
        return None
    return Explained(earliest(findings), tuple(notes.lines), (), ())


def _dropped_evidence(case: CaseResult) -> bool:
    figures = case.line_figures
    return bool(figures is not None and figures.evidence_drop and is_agent(case.ranked))


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


_BUNDLE_ENTRIES = frozenset({"diagnoses.json", "summary.md", "bundles"})


def write_diagnosis_dir(summary: DiagnosisSet, diagnosed: Iterable[Diagnosed], out_dir: str | Path) -> None:
    """Write diagnoses.json, summary.md and one JSON + Markdown bundle per failure.

    Everything is written into a temporary folder beside ``out_dir`` and renamed into
    place, so a crash leaves the previous diagnosis (or none), never half of one. The
    folder is replaced whole: one holding anything else than a diagnosis is refused.
    """
    import shutil

    root = Path(out_dir)
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        raise InputError("the diagnosis output is not a folder; expected a new, empty or "
                         "diagnosis folder", path=str(root))
    if root.is_dir():
        foreign = sorted(p.name for p in root.iterdir() if p.name not in _BUNDLE_ENTRIES)
        if foreign:
            raise InputError(f"the folder holds {', '.join(foreign[:3])}"
                             f"{' …' if len(foreign) > 3 else ''}, which is no part of a "
                             "diagnosis; it is replaced whole, so choose a new or empty folder",
                             path=str(root))
    parent = root.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        # Named for this process, so a later diagnose removes what a killed one left.
        remove_stale_temps(parent / root.name, locked=False)
        staging = temp_name(parent / root.name, "tmp")
        staging.mkdir()
    except OSError as err:
        raise InputError(f"cannot write the diagnosis: {err.strerror}", path=str(root)) from None
    try:
        (staging / "bundles").mkdir()
        for item in diagnosed:
            d = item.diagnosis
            if d.bundle_json:
                (staging / d.bundle_json).write_bytes(dump_json(item.bundle))
            if d.bundle_markdown:
                (staging / d.bundle_markdown).write_text(render_bundle_markdown(item.bundle, d),
                                                         encoding="utf-8")
        (staging / "diagnoses.json").write_bytes(dump_json(redact_struct(summary)))
        (staging / "summary.md").write_text(render_summary_markdown(summary), encoding="utf-8")
        swap_folder(staging, root, aside=temp_name(parent / root.name, "old"))
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        raise InputError(f"cannot write the diagnosis: {err.strerror or err}",
                         path=str(root)) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def load_diagnoses(directory: str | Path) -> DiagnosisSet:
    import msgspec

    path = Path(directory) / "diagnoses.json"
    try:
        raw = path.read_bytes()
    except OSError:
        raise InputError("no diagnoses.json in the diagnosis directory (run `codegold diagnose -o DIR`)",
                         path=str(path)) from None
    data = decode_json(raw, path=str(path))  # bounded nesting: bundles hold free-form filters
    try:
        found = msgspec.convert(data, DiagnosisSet)
    except msgspec.ValidationError as err:
        raise SchemaError(f"not a codegold diagnoses file: {err}", path=str(path)) from None
    if found.format != DIAGNOSIS_FORMAT:
        raise SchemaError(f"unsupported diagnoses format {found.format}", path=str(path))
    return found
