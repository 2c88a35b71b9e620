"""Turn a policy and a results file into a verdict with one reason per broken rule.

Only outcomes at the real cutoff are gated (hit, group recall, forbidden sources,
revision integrity, status changes); swapping two acceptable chunks changes none of
them, so rank-only movement never fails a gate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from codegold.gate.policy import Policy, Rule
from codegold.model import Aggregates, CaseResult, RunResult


class Check(msgspec.Struct, frozen=True, kw_only=True):
    rule: str
    passed: bool
    figure: str
    threshold: str
    cases: list[str]
    note: str | None = None


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    passed: bool
    checks: list[Check]

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]


def _members(result: RunResult, slice_key: str | None) -> tuple[Aggregates | None, list[CaseResult]]:
    if slice_key is None:
        return result.summary, list(result.cases)
    metrics = next((s.metrics for s in result.slices if s.key == slice_key), None)
    return metrics, [c for c in result.cases if slice_key in c.slices]


def _culprits(rule: Rule, cases: Sequence[CaseResult]) -> list[str]:
    scored = [c for c in cases if c.status != "invalid"]
    pick: Callable[[CaseResult], bool] = {
        "hit_rate": lambda c: not c.hit,
        "mean_group_recall": lambda c: bool(c.missing_groups),
        "mrr": lambda c: c.reciprocal_rank < 1.0,
        "ndcg": lambda c: c.ndcg < 1.0,
        "forbidden_rate": lambda c: bool(c.forbidden_chunk_ids),
        "revision_mismatch_rate": lambda c: bool(c.revision_mismatches),
    }[rule.metric]
    return [c.case_id for c in scored if pick(c)]


def _rule_check(result: RunResult, rule: Rule) -> Check:
    metrics, members = _members(result, rule.slice)
    threshold = " and ".join(p for p in (f">= {rule.min:g}" if rule.min is not None else "",
                                        f"<= {rule.max:g}" if rule.max is not None else "") if p)
    scored = metrics.scored if metrics is not None else 0
    if metrics is None or scored < rule.min_cases:
        return Check(rule=rule.describe(), passed=False, figure=f"n={scored}",
                     threshold=f"n >= {rule.min_cases}", cases=[],
                     note="too few scored cases in this slice to hold the rule")
    value: float | None = getattr(metrics, rule.metric)
    if value is None:
        return Check(rule=rule.describe(), passed=False, figure="no value", threshold=threshold,
                     cases=[], note="the metric has no value for this slice")
    ok = (rule.min is None or value >= rule.min) and (rule.max is None or value <= rule.max)
    return Check(rule=rule.describe(), passed=ok, figure=f"{value:.4f} (n={metrics.scored})",
                 threshold=threshold, cases=[] if ok else _culprits(rule, members))


_ZERO: dict[str, tuple[str, Callable[[CaseResult], bool]]] = {
    "forbidden_sources": ("forbidden source inside the cutoff",
                          lambda c: c.status != "invalid" and bool(c.forbidden_chunk_ids)),
    "revision_mismatches": ("chunk from another revision inside the cutoff",
                            lambda c: c.status != "invalid" and bool(c.revision_mismatches)),
    "invalid_cases": ("invalid case (untrusted manifest, retriever error or unknown revision)",
                      lambda c: c.status == "invalid"),
    "missing_cases": ("case with no attempt", lambda c: c.status == "missing"),
}


def decide(result: RunResult, policy: Policy, baseline: RunResult | None = None,
           *, max_new_failures: int | None = None) -> Verdict:
    """Apply every rule; the verdict passes only when every check passes."""
    checks = [_rule_check(result, rule) for rule in policy.rules]
    for name in policy.zero_tolerance:
        label, bad = _ZERO[name]
        offenders = [c.case_id for c in result.cases if bad(c)]
        checks.append(Check(rule=f"zero tolerance: {name}", passed=not offenders,
                            figure=f"{len(offenders)} case(s)", threshold="0",
                            cases=offenders, note=label if offenders else None))
    if baseline is not None:
        limit = max_new_failures if max_new_failures is not None else (
            policy.baseline.max_new_failures if policy.baseline else 0)
        before = baseline.by_id()
        newly = [c.case_id for c in result.cases
                 if c.status in ("fail", "missing")
                 and (old := before.get(c.case_id)) is not None and old.status == "pass"]
        checks.append(Check(rule="baseline: cases that passed before and fail now",
                            passed=len(newly) <= limit, figure=f"{len(newly)} case(s)",
                            threshold=f"<= {limit}", cases=newly))
    return Verdict(passed=all(c.passed for c in checks), checks=checks)
