"""Deterministic scoring: matching, per-case results, aggregation by slice, TREC export.

Reads only :mod:`codegold.model`; never sees an index or a retriever.
"""

from codegold.evaluate.aggregate import aggregate, slice_keys, slice_results
from codegold.evaluate.engine import evaluate_attempts, evaluate_files
from codegold.evaluate.match import target_matches
from codegold.evaluate.score import score_case

__all__ = [
    "aggregate",
    "evaluate_attempts",
    "evaluate_files",
    "score_case",
    "slice_keys",
    "slice_results",
    "target_matches",
]
