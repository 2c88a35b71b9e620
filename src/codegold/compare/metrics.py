"""The metrics a comparison tests: the paired-tested entries of the one registry.

Each aggregate in results.json is the mean of one per-case value over scored cases
(:mod:`codegold.model.metrics`), so two runs can be compared case by case on it.
"""

from __future__ import annotations

from codegold.model.metrics import SCORED_STATUSES, Metric, is_scored, iter_metrics


def paired_metrics() -> list[Metric]:
    """The registry's metrics that carry a paired test, in display order."""
    return list(iter_metrics(paired=True))


__all__ = ["SCORED_STATUSES", "Metric", "is_scored", "paired_metrics"]
