"""Per-case values behind each aggregate, so that two runs can be compared case by case.

Each aggregate in results.json is the mean of one per-case value over scored cases; the
registry below names that value. ``higher_is_better`` says which direction is an
improvement (the forbidden rate is the one figure where lower is better).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from codegold.model import CaseResult


@dataclass(frozen=True)
class PairedMetric:
    name: str
    label: str
    higher_is_better: bool
    value: Callable[[CaseResult], float]


METRICS: dict[str, PairedMetric] = {
    m.name: m
    for m in (
        PairedMetric("hit_rate", "hit rate", True, lambda c: 1.0 if c.hit else 0.0),
        PairedMetric("mrr", "MRR", True, lambda c: c.reciprocal_rank),
        PairedMetric("mean_group_recall", "mean group recall", True, lambda c: c.group_recall),
        PairedMetric("ndcg", "nDCG@k", True, lambda c: c.ndcg),
        PairedMetric("forbidden_rate", "forbidden rate", False,
                     lambda c: 1.0 if c.forbidden_chunk_ids else 0.0),
    )
}

SCORED_STATUSES = frozenset({"pass", "fail", "missing"})


def is_scored(result: CaseResult) -> bool:
    """Rates are over pass + fail + missing; invalid cases are never averaged in."""
    return result.status in SCORED_STATUSES
