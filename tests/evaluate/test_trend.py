"""Trend figures: hit rate and mean group recall at fixed depths, labelled apart from the
figures at each case's cutoff (which alone decide cases and gates)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.model.metrics import TREND_CUTOFFS
from goldkit import attempt, case, chunk, run_eval

A = {"file": "src/a.py", "symbol": "f"}
B = {"file": "src/b.py", "symbol": "g"}
NOISE = [chunk(f"n{i}", f"src/noise{i}.py") for i in range(30)]


def test_trend_figures_by_hand(tmp_path: Path) -> None:
    two_groups = {"groups": [{"id": "a", "any_of": [A]}, {"id": "b", "any_of": [B]}]}
    cases = [case("early", [A]), case("late", **two_groups), case("never", [A]),
             case("invalid", [A])]
    ranked_late = [*NOISE[:3], chunk("a", "src/a.py", "f"), *NOISE[3:12], chunk("b", "src/b.py", "g")]
    result = run_eval(tmp_path, cases, [
        attempt("1", "early", [chunk("a", "src/a.py", "f")]),
        attempt("2", "late", ranked_late),          # group a at rank 4, b at rank 14
        attempt("3", "never", NOISE),
        attempt("4", "invalid", [chunk("a", "src/a.py", "f")], with_manifest=False),
    ], {"revision": "a" * 40, "cutoff": 5})
    by_id = result.by_id()
    assert by_id["late"].group_ranks == [4, 14]
    assert by_id["never"].group_ranks == [None]
    trend = result.summary.trend
    assert set(trend) == {f"{m}@{k}" for m in ("hit_rate", "mean_group_recall")
                          for k in TREND_CUTOFFS}
    # 3 scored cases (the invalid one is left out)
    assert trend["hit_rate@1"] == pytest.approx(1 / 3)
    assert trend["hit_rate@5"] == pytest.approx(2 / 3)
    assert trend["mean_group_recall@3"] == pytest.approx(1 / 3)
    assert trend["mean_group_recall@10"] == pytest.approx((1 + 0.5) / 3)
    assert trend["mean_group_recall@20"] == pytest.approx((1 + 1) / 3)
    # at the cases' own cutoff the trend equals the gated figures
    assert trend["hit_rate@5"] == result.summary.hit_rate
    assert trend["mean_group_recall@5"] == result.summary.mean_group_recall
    # recall never falls as the depth grows
    values = [trend[f"mean_group_recall@{k}"] for k in TREND_CUTOFFS]
    assert values == sorted(values)  # type: ignore[type-var]
    assert all("trend" in s.metrics.__struct_fields__ for s in result.slices)
