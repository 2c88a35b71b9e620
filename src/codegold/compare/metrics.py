"""The metrics a comparison tests: the paired-tested entries of the one registry.

Each aggregate in results.json is the mean of one per-case value over scored cases
(:mod:`codegold.model.metrics`), so two runs can be compared case by case on it.
"""

from __future__ import annotations

from collections.abc import Sequence

from codegold.model import CaseResult
from codegold.model.metrics import LINE_METRICS, SCORED_STATUSES, Metric, is_scored, iter_metrics


def paired_metrics(pairs: Sequence[tuple[CaseResult, CaseResult]] = ()) -> list[Metric]:
    """The registry's metrics that carry a paired test, in display order, and the
    line-level ones that every pair records in both runs (two agents' versions over cases
    with gold lines): a plain comparison keeps its tests, and so its Holm family."""
    metrics = list(iter_metrics(paired=True))
    if pairs:
        for metric in LINE_METRICS:
            recorded = metric.recorded
            if recorded is not None and all(
                    recorded(b) is not None and recorded(n) is not None for b, n in pairs):
                metrics.append(metric)
    return metrics


__all__ = ["SCORED_STATUSES", "Metric", "is_scored", "paired_metrics"]
