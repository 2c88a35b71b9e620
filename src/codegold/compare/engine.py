"""Compare two runs over the same gold cases: case changes and tested aggregate deltas."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
import numpy as np

from codegold.compare.metrics import Metric, is_scored, paired_metrics
from codegold.compare.records import (
    COMPARISON_FORMAT,
    CaseChange,
    ChangeKind,
    Comparison,
    MetricDelta,
    SliceComparison,
)
from codegold.compare.stats import bootstrap_ci, holm, sign_flip_pvalues
from codegold.errors import InputError
from codegold.model import CaseResult, RunResult

# Past this the figures stop moving and a run only burns CI minutes.
MAX_RESAMPLES = 1_000_000


@dataclass(frozen=True)
class _Settings:
    min_cases: int
    seed: int
    n_resamples: int
    n_bootstrap: int
    confidence: float


def _seed_for(seed: int, key: str) -> int:
    # Each slice draws from its own stream so that adding a slice never moves another's figures.
    return (seed * 1_000_003 + zlib.crc32(key.encode("utf-8"))) % (2**32)


def _change(case_id: str, base: CaseResult | None, new: CaseResult | None) -> CaseChange | None:
    kind: ChangeKind | None = None
    if base is None:
        kind = "only_new"
    elif new is None:
        kind = "only_base"
    elif is_scored(base) and not is_scored(new):
        kind = "became_invalid"
    elif not is_scored(base) and is_scored(new):
        kind = "became_valid"
    elif base.status == "pass" and new.status in ("fail", "missing"):
        kind = "newly_failing"
    elif base.status in ("fail", "missing") and new.status == "pass":
        kind = "newly_passing"
    elif is_scored(base) and base.first_relevant_rank != new.first_relevant_rank:
        old, now = base.first_relevant_rank, new.first_relevant_rank
        better = now is not None and (old is None or now < old)
        kind = "rank_up" if better else "rank_down"
    if kind is None:
        return None
    return CaseChange(
        case_id=case_id,
        kind=kind,
        base_status=base.status if base else None,
        new_status=new.status if new else None,
        base_rank=base.first_relevant_rank if base else None,
        new_rank=new.first_relevant_rank if new else None,
    )


def _slice(
    key: str, dimension: str, value: str, pairs: Sequence[tuple[CaseResult, CaseResult]],
    metrics: Sequence[Metric], settings: _Settings,
) -> tuple[SliceComparison, list[float | None]]:
    n = len(pairs)
    base = np.array([[m.per_case(b) for m in metrics] for b, _ in pairs], dtype=np.float64).reshape(n, len(metrics))
    new = np.array([[m.per_case(w) for m in metrics] for _, w in pairs], dtype=np.float64).reshape(n, len(metrics))
    diffs = new - base
    too_small = n < settings.min_cases
    stream = _seed_for(settings.seed, key)
    if too_small or n == 0:
        pvalues: list[float | None] = [None] * len(metrics)
        lows: list[float | None] = [None] * len(metrics)
        highs: list[float | None] = [None] * len(metrics)
    else:
        pvalues = [float(p) for p in sign_flip_pvalues(diffs, n_resamples=settings.n_resamples, seed=stream)]
        low, high = bootstrap_ci(diffs, n_resamples=settings.n_bootstrap,
                                 confidence=settings.confidence, seed=stream + 1)
        lows = [float(x) for x in low]
        highs = [float(x) for x in high]
    deltas = []
    for column, metric in enumerate(metrics):
        mean_base = float(base[:, column].mean()) if n else 0.0
        mean_new = float(new[:, column].mean()) if n else 0.0
        diff = mean_new - mean_base
        improved = None if diff == 0 else (diff > 0) == metric.higher_is_better
        deltas.append(MetricDelta(
            metric=metric.name, label=metric.label, higher_is_better=metric.higher_is_better,
            base=mean_base, new=mean_new, diff=diff, ci_low=lows[column], ci_high=highs[column],
            p_value=pvalues[column], p_adjusted=None, significant=False, improved=improved,
        ))
    record = SliceComparison(key=key, dimension=dimension, value=value, paired=n,
                             too_small=too_small, metrics=deltas)
    return record, pvalues


def _judged(result: CaseResult) -> tuple[object, ...]:
    """What of a case its score depends on (not its tags, rationale or place in a file)."""
    case = result.case
    return (case.query, case.revision, case.cutoff, case.groups, case.forbidden, case.context)


def compare_runs(
    base: RunResult,
    new: RunResult,
    *,
    base_name: str = "base",
    new_name: str = "new",
    seed: int = 20261,
    n_resamples: int = 9999,
    n_bootstrap: int = 2000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    min_slice_cases: int = 10,
) -> Comparison:
    """Pair cases by id and compare every aggregate overall and per slice.

    Only cases scored in both runs (pass, fail or missing) are paired; invalid cases and
    cases present in one run only are listed as changes and warned about, never tested.
    Holm–Bonferroni runs over every test of the comparison (metrics × slices).
    """
    _check_settings(n_resamples=n_resamples, n_bootstrap=n_bootstrap, confidence=confidence,
                    alpha=alpha, min_slice_cases=min_slice_cases)
    base_cases, new_cases = base.by_id(), new.by_id()
    ids = sorted(set(base_cases) | set(new_cases))
    changes = [c for c in (_change(i, base_cases.get(i), new_cases.get(i)) for i in ids) if c]
    warnings: list[str] = []
    only = [c for c in changes if c.kind in ("only_base", "only_new")]
    if only:
        warnings.append(f"{len(only)} case(s) appear in one run only and are not compared")
    pairs = [
        (base_cases[i], new_cases[i]) for i in ids
        if i in base_cases and i in new_cases and is_scored(base_cases[i]) and is_scored(new_cases[i])
    ]
    relabelled = [b.case_id for b, n in pairs if _judged(b) != _judged(n)]
    if relabelled:
        shown = ", ".join(repr(i) for i in relabelled[:5]) + (
            f" and {len(relabelled) - 5} more" if len(relabelled) > 5 else "")
        warnings.append(f"{len(relabelled)} paired case(s) were scored against another query, "
                        f"gold, cutoff or revision in each run ({shown}): their changes are "
                        "not the retriever's alone; score both runs on one case file")
    metrics = paired_metrics(pairs)
    settings = _Settings(min_cases=min_slice_cases, seed=seed, n_resamples=n_resamples,
                         n_bootstrap=n_bootstrap, confidence=confidence)

    # Membership comes from eval (CaseResult.slices); a case counts in a slice when the
    # new run places it there, so a relabelled case is compared where it now belongs.
    listed = {s.key: (s.dimension, s.value) for s in (*base.slices, *new.slices)}
    members: dict[str, list[tuple[CaseResult, CaseResult]]] = {}
    for pair in pairs:
        for key in pair[1].slices:
            members.setdefault(key, []).append(pair)

    overall, overall_p = _slice("all", "all", "all", pairs, metrics, settings)
    if overall.too_small and pairs:
        warnings.append(f"only {overall.paired} paired case(s) overall (< {min_slice_cases}); "
                        "differences are shown but not tested")
    slices = []
    slice_p = []
    for key in sorted(members):
        dimension, value = listed.get(key) or _split_key(key)
        record, pvalues = _slice(key, dimension, value, members[key], metrics, settings)
        slices.append(record)
        slice_p.append(pvalues)
        if record.too_small:
            warnings.append(f"slice {key}: only {record.paired} paired case(s) "
                            f"(< {min_slice_cases}); too small to conclude, not tested")

    family = [p for ps in (overall_p, *slice_p) for p in ps if p is not None]
    adjusted = iter(holm(family))

    def finish(record: SliceComparison, pvalues: list[float | None]) -> SliceComparison:
        metrics_out = []
        for delta, p in zip(record.metrics, pvalues, strict=True):
            if p is None:
                metrics_out.append(delta)
                continue
            p_adj = next(adjusted)
            significant = p_adj < alpha and delta.diff != 0
            metrics_out.append(msgspec.structs.replace(delta, p_adjusted=p_adj, significant=significant))
        return msgspec.structs.replace(record, metrics=metrics_out)

    overall = finish(overall, overall_p)
    slices = [finish(r, p) for r, p in zip(slices, slice_p, strict=True)]
    if not pairs:
        warnings.append("no case is scored in both runs; nothing to compare")
    return Comparison(
        format=COMPARISON_FORMAT, base=base_name, new=new_name, seed=seed,
        n_resamples=n_resamples, n_bootstrap=n_bootstrap, confidence=confidence, alpha=alpha,
        min_slice_cases=min_slice_cases, paired=len(pairs), overall=overall, slices=slices,
        changes=changes, warnings=warnings,
        base_pass_rate=_pass_rate([b for b, _ in pairs]),
        new_pass_rate=_pass_rate([n for _, n in pairs]),
    )


def _pass_rate(cases: list[CaseResult]) -> float | None:
    return sum(c.status == "pass" for c in cases) / len(cases) if cases else None


def _check_settings(*, n_resamples: int, n_bootstrap: int, confidence: float, alpha: float,
                    min_slice_cases: int) -> None:
    """Settings that would make a figure meaningless are bad input, not a p-value of 1."""
    if not 1 <= n_resamples <= MAX_RESAMPLES:
        raise InputError(f"resamples: found {n_resamples}; the randomization test needs between "
                         f"1 and {MAX_RESAMPLES} resamples (default 9999)", field="resamples")
    if not 1 <= n_bootstrap <= MAX_RESAMPLES:
        raise InputError(f"bootstrap: found {n_bootstrap}; the confidence interval needs between "
                         f"1 and {MAX_RESAMPLES} bootstrap resamples (default 2000)",
                         field="bootstrap")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: found {confidence}; expected a level between 0 and 1, "
                         "e.g. 0.95", field="confidence")
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha: found {alpha}; expected a significance level between 0 and 1, "
                         "e.g. 0.05", field="alpha")
    if min_slice_cases < 1:
        raise InputError(f"min-slice: found {min_slice_cases}; expected at least 1 paired case",
                         field="min-slice")


def _split_key(key: str) -> tuple[str, str]:
    dimension, _, value = key.partition("=")
    return dimension, value
