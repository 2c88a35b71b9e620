"""The paired randomization test and the bootstrap interval, checked against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from codegold.compare.stats import bootstrap_ci, holm, sign_flip_pvalues


def _scipy_paired(x: np.ndarray, y: np.ndarray, n_resamples: int, seed: int = 0) -> float:
    result = stats.permutation_test(
        (x, y), lambda a, b, axis: np.mean(a - b, axis=axis),
        permutation_type="samples", vectorized=True, n_resamples=n_resamples,
        alternative="two-sided", random_state=seed,
    )
    return float(result.pvalue)


KNOWN = [
    # (new, base) per-case values with a known answer shape
    (np.array([1, 1, 1, 1, 1, 1, 1, 1, 0, 1], float), np.array([0, 0, 1, 0, 0, 1, 0, 0, 0, 1], float)),
    (np.array([0.5, 1, 0.33, 0.25, 1, 0, 0.2, 1, 0.5, 1, 0], float),
     np.array([1, 1, 0.5, 0.25, 0.5, 0, 0.2, 0.33, 0.5, 1, 1], float)),
    (np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.0, 0.3]),
     np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.0, 0.3])),
]


@pytest.mark.parametrize(("new", "base"), KNOWN)
def test_exact_sign_flip_equals_scipy_exact(new: np.ndarray, base: np.ndarray) -> None:
    ours = sign_flip_pvalues(new - base, n_resamples=9999)[0]
    theirs = _scipy_paired(new, base, n_resamples=9999)  # 2**n <= 9999: scipy is exact too
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_hand_computed_small_case() -> None:
    # d = (1, 1, 1): of 8 sign patterns only all-plus and all-minus reach |mean| = 1.
    assert sign_flip_pvalues(np.array([1.0, 1.0, 1.0]))[0] == pytest.approx(2 / 8)
    assert sign_flip_pvalues(np.zeros(5))[0] == 1.0
    assert sign_flip_pvalues(np.zeros(0))[0] == 1.0


def test_monte_carlo_agrees_with_scipy_within_noise() -> None:
    rng = np.random.default_rng(7)
    base = (rng.random(60) < 0.6).astype(float)
    new = np.where(rng.random(60) < 0.2, 1.0 - base, base)
    new[:8] = 1.0
    ours = sign_flip_pvalues(new - base, n_resamples=20000, seed=3)[0]
    theirs = _scipy_paired(new, base, n_resamples=20000, seed=3)
    assert ours == pytest.approx(theirs, abs=0.015)


def test_monte_carlo_is_deterministic_and_columns_are_independent_of_each_other() -> None:
    rng = np.random.default_rng(1)
    d = rng.normal(0.1, 1.0, size=(40, 3))
    first = sign_flip_pvalues(d, n_resamples=5000, seed=11)
    again = sign_flip_pvalues(d, n_resamples=5000, seed=11)
    assert np.array_equal(first, again)
    single = sign_flip_pvalues(d[:, 1], n_resamples=5000, seed=11)
    assert single[0] == first[1]


def test_bootstrap_interval_matches_scipy_percentile() -> None:
    rng = np.random.default_rng(5)
    d = rng.normal(0.2, 0.5, size=80)
    low, high = bootstrap_ci(d, n_resamples=4000, confidence=0.95, seed=2)
    ref = stats.bootstrap((d,), np.mean, n_resamples=4000, method="percentile",
                          confidence_level=0.95, random_state=2).confidence_interval
    assert low[0] == pytest.approx(ref.low, abs=0.03)
    assert high[0] == pytest.approx(ref.high, abs=0.03)
    assert low[0] < d.mean() < high[0]


def test_holm_hand_computed() -> None:
    # sorted: 0.01*4=0.04, 0.02*3=0.06, 0.03*2=0.06 (monotone), 0.5*1=0.5
    assert holm([0.03, 0.5, 0.01, 0.02]) == pytest.approx([0.06, 0.5, 0.04, 0.06])
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []
