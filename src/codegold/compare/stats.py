"""Paired statistics for comparing two runs case by case.

Every function takes a matrix of paired differences ``diffs`` (cases × metrics, new − base)
so that one set of random draws serves all metrics of a slice. Randomness comes only from
the ``seed`` argument: equal inputs give equal outputs.

- :func:`sign_flip_pvalues` is the paired randomization test: under the null hypothesis
  that the two configurations are exchangeable per case, each difference is equally likely
  to carry either sign. It agrees with ``scipy.stats.permutation_test(...,
  permutation_type="samples")`` on ``mean(x - y)``: exact enumeration when ``2**n`` fits in
  the resample budget, otherwise Monte Carlo with the same +1 correction scipy uses.
- :func:`bootstrap_ci` is a percentile bootstrap of the mean difference over resampled pairs.
- :func:`holm` adjusts a family of p-values (Holm–Bonferroni, step-down, monotone).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatMatrix = npt.NDArray[np.float64]

# Relative tolerance when comparing resampled statistics with the observed one, so that
# floating-point noise on exactly tied statistics does not move a p-value (scipy does the same).
_TIE_TOLERANCE = 1e-14
_BATCH_CELLS = 4_000_000  # resample rows × cases held in memory at once


def _as_matrix(diffs: npt.ArrayLike) -> FloatMatrix:
    matrix = np.asarray(diffs, dtype=np.float64)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    if matrix.ndim != 2:
        raise ValueError("diffs must be a vector or a cases × metrics matrix")
    return matrix


def _batch_size(n: int) -> int:
    return max(1, _BATCH_CELLS // max(n, 1))


def sign_flip_pvalues(diffs: npt.ArrayLike, *, n_resamples: int = 9999, seed: int = 0) -> FloatMatrix:
    """Two-sided p-value of the mean paired difference, one per metric column.

    Returns an array of shape (metrics,). With no cases, every p-value is 1.
    """
    matrix = _as_matrix(diffs)
    n, metrics = matrix.shape
    if n == 0:
        return np.ones(metrics)
    observed = matrix.mean(axis=0)
    gamma = np.abs(_TIE_TOLERANCE * observed)
    less = np.zeros(metrics)
    greater = np.zeros(metrics)
    exact = 2**n <= n_resamples
    if exact:
        total = 2**n
        rows = _batch_size(n)
        patterns = itertools.product((1.0, -1.0), repeat=n)
        while True:
            block = np.array(list(itertools.islice(patterns, rows)), dtype=np.float64)
            if block.size == 0:
                break
            stats = block @ matrix / n
            less += (stats <= observed + gamma).sum(axis=0)
            greater += (stats >= observed - gamma).sum(axis=0)
        adjustment = 0
    else:
        total = n_resamples
        rng = np.random.default_rng(seed)
        done = 0
        while done < n_resamples:
            rows = min(_batch_size(n), n_resamples - done)
            signs = rng.choice(np.array([1.0, -1.0]), size=(rows, n))
            stats = signs @ matrix / n
            less += (stats <= observed + gamma).sum(axis=0)
            greater += (stats >= observed - gamma).sum(axis=0)
            done += rows
        adjustment = 1  # the observed labelling counts as one of the resamples
    p_less = (less + adjustment) / (total + adjustment)
    p_greater = (greater + adjustment) / (total + adjustment)
    result: FloatMatrix = np.minimum(np.minimum(p_less, p_greater) * 2, 1.0)
    return result


def bootstrap_ci(
    diffs: npt.ArrayLike, *, n_resamples: int = 2000, confidence: float = 0.95, seed: int = 0
) -> tuple[FloatMatrix, FloatMatrix]:
    """Percentile bootstrap interval of the mean paired difference, per metric column.

    Returns ``(low, high)`` arrays of shape (metrics,); NaN when there are no cases.
    """
    matrix = _as_matrix(diffs)
    n, metrics = matrix.shape
    if n == 0:
        nan = np.full(metrics, np.nan)
        return nan, nan.copy()
    rng = np.random.default_rng(seed)
    means = np.empty((n_resamples, metrics))
    done = 0
    while done < n_resamples:
        rows = min(_batch_size(n), n_resamples - done)
        picks = rng.integers(0, n, size=(rows, n))
        means[done:done + rows] = matrix[picks].mean(axis=1)
        done += rows
    tail = (1.0 - confidence) / 2 * 100
    low = np.percentile(means, tail, axis=0)
    high = np.percentile(means, 100 - tail, axis=0)
    return low, high


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order (each capped at 1)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: (pvalues[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for position, index in enumerate(order):
        value = min(1.0, (m - position) * pvalues[index])
        running = max(running, value)  # step-down: adjusted p-values never decrease
        adjusted[index] = running
    return adjusted
