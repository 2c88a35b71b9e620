"""The demo's second half: the fix a team would commit (``examples/acme-shop/fix/``), what
it gained and what it cost, measured on the same cases as the default run.

The steps that index, run, score, diagnose and gate the fixed configuration live in
:mod:`codegold.workflows.demo` beside the default run's; this module keeps what they share
(:class:`FixState`), the measurement (:func:`measure_fix`) and the closing lines
(:func:`fix_text`, which README's quoted output is generated from).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from codegold.gate import Verdict
from codegold.index.policy import DEFAULT_EXCLUDE, load_policy
from codegold.index.store import IndexReader
from codegold.model import RunResult
from codegold.model.diagnoses import Diagnosis

# The fix, relative to the example folder: a searchable-path policy for `codegold index`.
FIX_POLICY = Path("fix") / "index-policy.yaml"
# A chunk's size in tokens, as the budgets count text they have no token count for
# (codegold.model.budget): a quarter of its characters.
CHARS_PER_TOKEN = 4


@dataclass
class FixState:
    """What the fixed configuration's steps pass along (the default run's stay in DemoState)."""

    indexes: dict[str, Path] = field(default_factory=dict)  # sha -> index built with the fix
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # tag -> files, chunks
    result: RunResult | None = None
    diagnoses: dict[str, Diagnosis] = field(default_factory=dict)  # case id -> diagnosis
    verdict: Verdict | None = None
    baseline: Verdict | None = None  # the same policy with the default run as baseline
    report: Path | None = None


@dataclass(frozen=True)
class CaseMove:
    """One case under the default and the fixed configuration; for a case that fails with
    the fix, what the diagnosis of the fixed run says."""

    case_id: str
    before: str
    after: str
    cause: str | None = None
    owner: str | None = None
    evidence: str | None = None  # the diagnosis's first line of evidence


@dataclass(frozen=True)
class FixOutcome:
    """The fix's gain and cost, each counted on the same cases."""

    policy: str  # the fix file, as a person would type it
    excluded: tuple[str, ...]  # the fix's own globs (the built-in excludes left out)
    cases: int
    classic: tuple[CaseMove, ...]  # the three classic failures
    gained: tuple[CaseMove, ...]  # failed before, pass now
    lost: tuple[CaseMove, ...]  # passed before, fail now: the cost in cases
    still_failing: tuple[CaseMove, ...]
    passed: tuple[int, int]  # before, after
    forbidden: tuple[int, int]  # cases with a forbidden chunk inside the cutoff
    revision: str  # the tag the searchable sizes are of
    files: tuple[int, int]
    chunks: tuple[int, int]
    tokens: tuple[float, float]  # mean context tokens at the cutoff, per case
    gate: tuple[int, int] | None  # checks passed, checks, of the fixed run's gate
    gate_passed: bool | None
    baseline_new: tuple[str, ...] | None  # what a gate against the default run names


def own_excludes(policy_file: Path) -> tuple[str, ...]:
    """The globs a policy file adds after the built-in excludes."""
    policy = load_policy(policy_file)
    own = policy.exclude
    if own[:len(DEFAULT_EXCLUDE)] == DEFAULT_EXCLUDE:
        own = own[len(DEFAULT_EXCLUDE):]
    return own


def context_tokens(result: RunResult, indexes: Mapping[str, Path]) -> float:
    """Mean tokens a case puts in front of the answer stage: the text of its chunks inside
    the cutoff, read from the index of each chunk's revision."""
    wanted: dict[str, list[str]] = {}
    per_case: list[list[str]] = []
    for case in result.cases:
        visible = case.ranked[:case.cutoff]
        per_case.append([chunk.chunk_id for chunk in visible])
        for chunk in visible:
            wanted.setdefault(chunk.revision or case.case.revision, []).append(chunk.chunk_id)
    sizes: dict[str, int] = {}
    for revision, ids in wanted.items():
        folder = indexes.get(revision)
        if folder is None:
            continue
        with IndexReader.open(folder) as reader:
            sizes.update({c.id: math.ceil(len(c.text) / CHARS_PER_TOKEN)
                          for c in reader.get_many(ids)})
    if not per_case:
        return 0.0
    return sum(sizes.get(i, 0) for ids in per_case for i in ids) / len(per_case)


def _forbidden_cases(result: RunResult) -> int:
    return sum(1 for case in result.cases if case.forbidden_chunk_ids)


def measure_fix(before: RunResult, after: RunResult, *, policy: str, excluded: tuple[str, ...],
                classic: tuple[str, ...], state: FixState,
                indexes_before: Mapping[str, Path], sizes_before: Mapping[str, tuple[int, int]]
                ) -> FixOutcome:
    """Compare the default run with the fixed one, case by case and in sum."""
    old, new = before.by_id(), after.by_id()

    def move(case_id: str) -> CaseMove:
        found = state.diagnoses.get(case_id)
        return CaseMove(case_id=case_id, before=old[case_id].status if case_id in old else "-",
                        after=new[case_id].status if case_id in new else "-",
                        cause=found.cause if found else None, owner=found.owner if found else None,
                        evidence=found.evidence[0] if found and found.evidence else None)

    shared = [c.case_id for c in after.cases if c.case_id in old]
    revision = list(sizes_before)[-1] if sizes_before else ""  # the newest tag
    files_before, chunks_before = sizes_before.get(revision, (0, 0))
    files_after, chunks_after = state.sizes.get(revision, (0, 0))
    verdict = state.verdict
    return FixOutcome(
        policy=policy, excluded=excluded, cases=len(shared),
        classic=tuple(move(c) for c in classic if c in new),
        gained=tuple(move(c) for c in shared if old[c].status != "pass" and new[c].status == "pass"),
        lost=tuple(move(c) for c in shared if old[c].status == "pass" and new[c].status != "pass"),
        still_failing=tuple(move(c) for c in shared
                            if old[c].status != "pass" and new[c].status != "pass"),
        passed=(before.summary.pass_, after.summary.pass_),
        forbidden=(_forbidden_cases(before), _forbidden_cases(after)),
        revision=revision, files=(files_before, files_after), chunks=(chunks_before, chunks_after),
        tokens=(context_tokens(before, indexes_before), context_tokens(after, state.indexes)),
        gate=(len(verdict.checks) - len(verdict.failures), len(verdict.checks))
        if verdict is not None else None,
        gate_passed=verdict.passed if verdict is not None else None,
        baseline_new=_new_failures(state.baseline))


def _new_failures(verdict: Verdict | None) -> tuple[str, ...] | None:
    """The cases the baseline check names: passed in the default run, fail with the fix."""
    if verdict is None:
        return None
    for check in verdict.checks:
        if check.rule.startswith("baseline: cases that passed before"):
            return tuple(check.cases)
    return None


def _cases(n: int) -> str:
    return f"{n} case" if n == 1 else f"{n} cases"


def _ids(moves: tuple[CaseMove, ...]) -> str:
    return ", ".join(m.case_id for m in moves) or "none"


def fix_text(fix: FixOutcome) -> list[str]:
    """The closing "The fix" lines as plain text (the demo prints them; README's quoted
    output is generated from them)."""
    out = [f"The fix: {fix.policy} (left out of the index: {', '.join(fix.excluded)})"]
    out.append(f"  {'case':34} {'default':8} fixed")
    out += [f"  {m.case_id:34} {m.before:8} {m.after}" for m in fix.classic]
    out.append(f"  gain  pass {fix.passed[0]} -> {fix.passed[1]} of {fix.cases} cases; a forbidden "
               f"source inside the cutoff in {fix.forbidden[0]} -> {fix.forbidden[1]} cases")
    out.append(f"        {_cases(len(fix.gained))} now "
               f"{'passes' if len(fix.gained) == 1 else 'pass'}: {_ids(fix.gained)}")
    # "By design" only when the diagnosis says so for every case the fix cost.
    designed = bool(fix.lost) and all(m.cause == "excluded_by_policy" for m in fix.lost)
    out.append(f"  cost  {_cases(len(fix.lost))} passed before and "
               f"{'fails' if len(fix.lost) == 1 else 'fail'} now"
               + (": the fix left their only answer out of the index" if designed else ""))
    for m in fix.lost:
        diagnosed = f"cause {m.cause}, owner {m.owner or '?'}" if m.cause else "not diagnosed"
        out.append(f"        {m.case_id:28} {diagnosed}")
        if m.evidence:
            out.append(f"        {'':28} {m.evidence}")
    if fix.baseline_new:
        out.append(f"        a gate with the default run as baseline (max_new_failures: 0) names "
                   f"{_cases(len(fix.baseline_new))} as new failures: accepting them is the "
                   f"reviewer's call")
    elif fix.baseline_new is not None:
        out.append("        a gate with the default run as baseline (max_new_failures: 0) names "
                   "no new failure")
    out.append(f"  size  searchable at {fix.revision}: {fix.files[0]} -> {fix.files[1]} files, "
               f"{fix.chunks[0]} -> {fix.chunks[1]} chunks; context at the cutoff "
               f"{fix.tokens[0]:.0f} -> {fix.tokens[1]:.0f} tokens per case "
               f"(mean, {CHARS_PER_TOKEN} characters a token)")
    if fix.still_failing:
        out.append("  still failing: " + ", ".join(
            m.case_id + (f" ({m.cause})" if m.cause else "") for m in fix.still_failing))
    if fix.gate is not None:
        verdict = "PASS" if fix.gate_passed else "FAIL"
        out.append(f"  gate  the same policy on the fixed run: {verdict}, {fix.gate[0]} of "
                   f"{fix.gate[1]} checks pass")
    return out


# What to run on one's own repository, each command as docs/quickstart.md gives it.
NEXT_STEPS = (
    "codegold cases init . -o evals",
    "codegold index . --revision HEAD -o .codegold/idx",
    "codegold cases check evals/cases.yaml --index .codegold/idx",
    "codegold run evals/cases.yaml --index .codegold/idx -o attempts.jsonl",
    "codegold eval evals/cases.yaml attempts.jsonl -o results.json",
    "codegold diagnose results.json --index .codegold/idx --owners evals/owners.yaml -o diagnosis",
    "codegold gate results.json --policy evals/policy.yaml",
)


def next_steps_text() -> list[str]:
    """The demo's last lines: the same loop on one's own repository."""
    return [
        "Next, on your own repository (in its folder; docs/quickstart.md explains each step):",
        *(f"  {command}" for command in NEXT_STEPS),
        "Then fix what the diagnosis names with a file you commit (a path policy for "
        "`codegold index --policy`,",
        "or retriever weights for `codegold run --config`), run the cases again and weigh the "
        "gain against the cost:",
        "  codegold compare results.json fixed/results.json",
    ]
