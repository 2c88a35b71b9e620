"""Turn a policy and a results file into a verdict with one reason per broken rule.

This is the only place a verdict is computed: ``codegold gate``, ``codegold report
--gate-policy`` and the demo all call :func:`run_gate` (or :func:`decide`), so the same
inputs give the same checks everywhere.

Only outcomes at the real cutoff are gated (hit, pass, group recall, forbidden sources,
revision integrity, status changes); swapping two acceptable chunks changes none of
them, so rank-only movement never fails a gate.
"""

from __future__ import annotations

from collections.abc import Callable

from codegold.errors import InputError
from codegold.gate.policy import Policy, Rule
from codegold.model import Aggregates, CaseResult, RunResult, load_results
from codegold.model.metrics import LINE_METRICS, Metric, is_scored
from codegold.model.verdict import Check, Verdict

_MAX_LISTED_SLICES = 30


def _members(result: RunResult, slice_key: str | None) -> tuple[Aggregates, list[CaseResult]]:
    if slice_key is None:
        return result.summary, list(result.cases)
    metrics = next((s.metrics for s in result.slices if s.key == slice_key), None)
    if metrics is None:
        keys = [s.key for s in result.slices]
        shown = ", ".join(keys[:_MAX_LISTED_SLICES]) or "(none)"
        more = f" and {len(keys) - _MAX_LISTED_SLICES} more" if len(keys) > _MAX_LISTED_SLICES else ""
        raise InputError(f"the policy names slice {slice_key!r}, which the results do not hold; "
                         f"slices in these results: {shown}{more}", field="slice")
    return metrics, [c for c in result.cases if slice_key in c.slices]


LINE_NAMES = frozenset(m.name for m in LINE_METRICS)


def _culprit(measure: Metric, rule: Rule, case: CaseResult) -> bool:
    """Whether ``case`` pulls the figure past the rule: for a recorded figure (latency,
    cost) the cases whose own value is beyond the bound; else the metric's culprit test."""
    if measure.recorded is None or measure.aggregation == "sum":
        return measure.culprit(case)
    value = measure.recorded(case)
    if value is None:
        return False
    return (rule.max is not None and value > rule.max) or (rule.min is not None and value < rule.min)


def _rule_check(result: RunResult, rule: Rule) -> Check:
    measure = rule.measure
    metrics, members = _members(result, rule.slice)
    scored = [c for c in members if is_scored(c)]
    if measure.cutoff is not None:
        cutoffs = sorted({c.cutoff for c in scored})
        if cutoffs and cutoffs != [measure.cutoff]:
            raise InputError(
                f"rule {rule.describe()!r} asks for cutoff {measure.cutoff}, but its cases are "
                f"scored at cutoff {', '.join(map(str, cutoffs))}; the gate gates at each "
                f"case's own cutoff (write {measure.name} or {measure.name}@{cutoffs[0]})",
                field="metric")
    if metrics.scored < rule.min_cases:
        return Check(rule=rule.describe(), passed=False, figure=f"n={metrics.scored}",
                     threshold=f"n >= {rule.min_cases}", cases=[],
                     note="too few scored cases in this slice to hold the rule")
    value = measure.read(metrics)
    if value is None:
        return Check(rule=rule.describe(), passed=False, figure="no value",
                     threshold=rule.threshold(), cases=[],
                     note="the metric has no value for this slice")
    ok = (rule.min is None or value >= rule.min) and (rule.max is None or value <= rule.max)
    culprits = [] if ok else [c.case_id for c in scored if _culprit(measure, rule, c)]
    n = metrics.scored
    if measure.name in LINE_NAMES and measure.recorded is not None:
        recorded = measure.recorded  # a line-level figure stands on the cases with gold lines
        n = sum(recorded(c) is not None for c in scored)
    return Check(rule=rule.describe(), passed=ok, figure=f"{value:.4f} (n={n})",
                 threshold=rule.threshold(), cases=culprits)


def _failed_cases_check(result: RunResult, limit: int) -> Check:
    failed = [c.case_id for c in result.cases if c.status in ("fail", "missing")]
    return Check(rule="failed cases (fail + missing) on all cases", passed=len(failed) <= limit,
                 figure=f"{len(failed)} of {result.summary.scored} scored case(s)",
                 threshold=f"<= {limit}", cases=failed)


_ZERO: dict[str, tuple[str, Callable[[CaseResult], bool]]] = {
    "forbidden_sources": ("forbidden source inside the cutoff",
                          lambda c: is_scored(c) and bool(c.forbidden_chunk_ids)),
    "revision_mismatches": ("chunk from another revision inside the cutoff",
                            lambda c: is_scored(c) and bool(c.revision_mismatches)),
    "invalid_cases": ("invalid case (untrusted manifest, retriever error or unknown revision)",
                      lambda c: c.status == "invalid"),
    "missing_cases": ("case with no attempt", lambda c: c.status == "missing"),
}


def _baseline_checks(result: RunResult, baseline: RunResult, limit: int,
                     allow_dropped: bool) -> list[Check]:
    now = result.by_id()
    before = baseline.by_id()
    newly = [c.case_id for c in result.cases
             if c.status in ("fail", "missing")
             and (old := before.get(c.case_id)) is not None and old.status == "pass"]
    notes = []
    base_digest = baseline.inputs.get("cases")
    new_digest = result.inputs.get("cases")
    if base_digest is not None and new_digest is not None and base_digest.sha256 != new_digest.sha256:
        notes.append("the baseline was scored on a different case file (case-set digests "
                     f"differ: {base_digest.sha256[:12]} vs {new_digest.sha256[:12]})")
    checks = [Check(rule="baseline: cases that passed before and fail now",
                    passed=len(newly) <= limit, figure=f"{len(newly)} case(s)",
                    threshold=f"<= {limit}", cases=newly, note="; ".join(notes) or None)]
    dropped = [c.case_id for c in baseline.cases if c.case_id not in now]
    if dropped:
        checks.append(Check(
            rule="baseline: cases in the baseline missing from this run (dropped)",
            passed=allow_dropped, figure=f"{len(dropped)} case(s)",
            threshold="any (allow_dropped_cases)" if allow_dropped else "0", cases=dropped,
            note=("a dropped case cannot fail, so the baseline comparison cannot speak for it; "
                  "set 'allow_dropped_cases: true' under 'baseline' if the case set shrank "
                  "on purpose")))
    return checks


def decide(result: RunResult, policy: Policy, baseline: RunResult | None = None,
           *, max_new_failures: int | None = None) -> Verdict:
    """Apply every rule; the verdict passes only when every check passes.

    Raises :class:`InputError` when the policy does not fit the results (a slice they do
    not hold, a cutoff their cases are not scored at).
    """
    if not (policy.rules or policy.zero_tolerance or policy.max_failed_cases is not None
            or baseline is not None):
        raise InputError("the policy checks nothing: give at least one of 'rules', "
                         "'max_failed_cases', 'zero_tolerance' or a baseline (a gate with no "
                         "rules would pass anything)", field="rules")
    checks = [_rule_check(result, rule) for rule in policy.rules]
    if policy.max_failed_cases is not None:
        checks.append(_failed_cases_check(result, policy.max_failed_cases))
    for name in policy.zero_tolerance:
        label, bad = _ZERO[name]
        offenders = [c.case_id for c in result.cases if bad(c)]
        checks.append(Check(rule=f"zero tolerance: {name}", passed=not offenders,
                            figure=f"{len(offenders)} case(s)", threshold="0",
                            cases=offenders, note=label if offenders else None))
    if baseline is not None:
        limit = max_new_failures if max_new_failures is not None else (
            policy.baseline.max_new_failures if policy.baseline else 0)
        allow = policy.baseline.allow_dropped_cases if policy.baseline else False
        checks.extend(_baseline_checks(result, baseline, limit, allow))
    return Verdict(passed=all(c.passed for c in checks), checks=checks)


def run_gate(result: RunResult, policy: Policy, *, baseline_path: str | None = None,
             max_new_failures: int | None = None, policy_path: str | None = None) -> Verdict:
    """The verdict of ``policy`` on ``result``: what ``codegold gate`` and the report show.

    The baseline is ``baseline_path`` when given, else the policy's own baseline.
    """
    path = baseline_path or (policy.baseline.results if policy.baseline else None)
    if max_new_failures is not None and path is None:
        raise InputError("{max_new_failures} needs a baseline: pass {baseline} RESULTS or set "
                         "'baseline' in the policy", path=policy_path,
                         settings=("max_new_failures", "baseline"))
    if max_new_failures is not None and max_new_failures < 0:
        raise InputError(f"max new failures must be 0 or more, found {max_new_failures}",
                         field="max_new_failures")
    baseline = load_results(path) if path else None
    try:
        return decide(result, policy, baseline, max_new_failures=max_new_failures)
    except InputError as err:
        if err.path is not None or policy_path is None:
            raise
        raise InputError(err.message, path=policy_path, field=err.field,
                         settings=err.settings) from None
