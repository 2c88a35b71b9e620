"""Compare two runs of the same gold cases: what changed, and whether it is more than noise.

Reads only :mod:`codegold.model`. See ``docs/report.md`` for the statistics used.
"""

from codegold.compare.engine import compare_runs
from codegold.compare.markdown import render_comparison_markdown
from codegold.compare.records import (
    COMPARISON_FORMAT,
    CaseChange,
    Comparison,
    MetricDelta,
    SliceComparison,
    dump_comparison,
)

__all__ = [
    "COMPARISON_FORMAT",
    "CaseChange",
    "Comparison",
    "MetricDelta",
    "SliceComparison",
    "compare_runs",
    "dump_comparison",
    "render_comparison_markdown",
]
