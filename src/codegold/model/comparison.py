"""The comparison of two runs, as written by ``codegold compare --json`` (``format: 1``)."""

from __future__ import annotations

from typing import Literal

import msgspec

COMPARISON_FORMAT = 1

ChangeKind = Literal[
    "newly_failing", "newly_passing", "rank_up", "rank_down",
    "became_invalid", "became_valid", "only_base", "only_new",
]


class MetricDelta(msgspec.Struct, frozen=True, kw_only=True):
    """One aggregate over the paired cases of a slice: base, new, and their difference.

    ``p_value`` is the two-sided sign-flip randomization test, ``p_adjusted`` the
    Holm–Bonferroni adjustment over every test in the comparison; both are None when the
    slice is too small to test. ``improved`` is None when nothing changed.
    """

    metric: str
    label: str
    higher_is_better: bool
    base: float
    new: float
    diff: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_adjusted: float | None
    significant: bool
    improved: bool | None


class SliceComparison(msgspec.Struct, frozen=True, kw_only=True):
    key: str  # "all" for the overall figures
    dimension: str
    value: str
    paired: int  # cases scored in both runs
    too_small: bool
    metrics: list[MetricDelta]


class CaseChange(msgspec.Struct, frozen=True, kw_only=True):
    case_id: str
    kind: ChangeKind
    base_status: str | None
    new_status: str | None
    base_rank: int | None
    new_rank: int | None


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    format: int
    base: str
    new: str
    seed: int
    n_resamples: int
    n_bootstrap: int
    confidence: float
    alpha: float
    min_slice_cases: int
    paired: int
    overall: SliceComparison
    slices: list[SliceComparison]
    changes: list[CaseChange]
    warnings: list[str]
    # Share of the paired cases that pass, in each run: shown beside the tested metrics,
    # never tested itself (its change is the newly failing and passing cases).
    base_pass_rate: float | None = None
    new_pass_rate: float | None = None

    def changes_of(self, kind: ChangeKind) -> list[CaseChange]:
        return [c for c in self.changes if c.kind == kind]


_ENCODER = msgspec.json.Encoder(order="deterministic")


def dump_comparison(comparison: Comparison) -> bytes:
    return msgspec.json.format(_ENCODER.encode(comparison), indent=1) + b"\n"
