"""The comparison records live in :mod:`codegold.model.comparison` (a file format every
renderer reads); re-exported here for the compare engine."""

from codegold.model.comparison import (
    COMPARISON_FORMAT,
    CaseChange,
    ChangeKind,
    Comparison,
    MetricDelta,
    SliceComparison,
    dump_comparison,
)

__all__ = ["COMPARISON_FORMAT", "CaseChange", "ChangeKind", "Comparison", "MetricDelta",
           "SliceComparison", "dump_comparison"]
