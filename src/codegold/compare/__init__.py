"""Compare two runs of the same gold cases: what changed, and whether it is more than noise.

Reads only :mod:`codegold.model`. See ``docs/report.md`` for the statistics used.
"""

from codegold.compare.engine import compare_runs
from codegold.compare.markdown import render_comparison_markdown, render_multi_comparison_markdown
from codegold.compare.multi import MultiComparison, compare_systems, dump_multi_comparison
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
    "MultiComparison",
    "SliceComparison",
    "compare_runs",
    "compare_systems",
    "dump_comparison",
    "dump_multi_comparison",
    "render_comparison_markdown",
    "render_multi_comparison_markdown",
]
