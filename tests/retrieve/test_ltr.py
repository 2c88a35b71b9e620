"""The learnt ranker: numpy trees equal LightGBM, model files are checked, ranking works."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codegold.errors import InputError, SchemaError
from codegold.index.store import IndexReader
from codegold.retrieve import ltr
from codegold.retrieve.config import load_config
from codegold.retrieve.reference import ReferenceRetriever

WIDTH = len(ltr.FEATURES)


def _model(trees: list[dict[str, Any]]) -> ltr.TreeModel:
    spec = {"format": 1, "features": list(ltr.FEATURES), "trees": trees}
    return ltr.TreeModel.decode(json.dumps(spec).encode(), "<test>")


def _stump(feature: int, threshold: float, low: float, high: float, *,
           nan_left: bool = True, missing_nan: bool = False) -> dict[str, Any]:
    return {"split_feature": [feature], "threshold": [threshold], "left": [-1], "right": [-2],
            "default_left": [nan_left], "missing_nan": [missing_nan], "leaf_value": [low, high]}


def test_hand_built_trees_add_up() -> None:
    # Tree 1: f0 <= 0.5 ? (f1 <= 2 ? 1 : 2) : 3.   Tree 2: f2 <= 0 ? -0.5 : 0.25.
    deep = {"split_feature": [0, 1], "threshold": [0.5, 2.0], "left": [1, -1],
            "right": [-3, -2], "default_left": [True, True], "missing_nan": [False, False],
            "leaf_value": [1.0, 2.0, 3.0]}
    model = _model([deep, _stump(2, 0.0, -0.5, 0.25)])
    rows = np.zeros((4, WIDTH))
    rows[1, 1] = 5.0
    rows[2, 0] = 0.7
    rows[3, 2] = 1.0
    assert model.predict(rows).tolist() == [0.5, 1.5, 2.5, 1.25]


def test_missing_values_follow_the_learnt_default_direction() -> None:
    rows = np.zeros((1, WIDTH))
    rows[0, 3] = math.nan
    assert _model([_stump(3, 1.0, 1.0, 2.0, nan_left=False, missing_nan=True)]).predict(rows)[0] == 2.0
    # Without a learnt direction a missing value goes where 0 would.
    assert _model([_stump(3, -1.0, 1.0, 2.0)]).predict(rows)[0] == 2.0
    assert _model([_stump(3, 1.0, 1.0, 2.0)]).predict(rows)[0] == 1.0


def test_a_single_leaf_tree_and_no_rows() -> None:
    leaf = {"split_feature": [], "threshold": [], "left": [], "right": [], "default_left": [],
            "missing_nan": [], "leaf_value": [0.75]}
    model = _model([leaf, _stump(0, 0.5, 1.0, 2.0)])
    assert model.predict(np.zeros((2, WIDTH))).tolist() == [1.75, 1.75]
    assert model.predict(np.zeros((0, WIDTH))).shape == (0,)


@pytest.mark.parametrize("change, words", [
    ({"features": ["a", "b"]}, "other features"),
    ({"trees": [{**_stump(0, 0.5, 1.0, 2.0), "left": [5]}]}, "inconsistent"),
    ({"trees": [{**_stump(0, 0.5, 1.0, 2.0), "left": [0]}]}, "inconsistent"),
    ({"trees": [{**_stump(0, 0.5, 1.0, 2.0), "split_feature": [WIDTH]}]}, "inconsistent"),
    ({"trees": [{**_stump(0, 0.5, 1.0, 2.0), "leaf_value": [1.0]}]}, "inconsistent"),
    ({"format": 2}, "ranking model"),
    ({"extra": 1}, "ranking model"),
])
def test_a_broken_model_file_is_refused_by_name(change: dict[str, Any], words: str) -> None:
    spec = {"format": 1, "features": list(ltr.FEATURES), "trees": [_stump(0, 0.5, 1.0, 2.0)],
            **change}
    with pytest.raises(SchemaError, match=words):
        ltr.TreeModel.decode(json.dumps(spec).encode(), "model.json")


def test_non_finite_numbers_are_refused() -> None:
    payload = json.dumps({"format": 1, "features": list(ltr.FEATURES),
                          "trees": [_stump(0, 0.5, 1.0, 2.0)]}).replace("2.0", "1e999")
    with pytest.raises(SchemaError, match=r"inconsistent|ranking model"):
        ltr.TreeModel.decode(payload.encode(), "model.json")


def test_a_missing_or_invalid_model_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        ltr.load_model(str(tmp_path / "absent.json"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(InputError, match="invalid JSON"):
        ltr.load_model(str(tmp_path / "bad.json"))


def test_numpy_trees_equal_lightgbm_on_random_data() -> None:
    lightgbm = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(600, WIDTH))
    rows[rng.random(rows.shape) < 0.05] = math.nan    # some missing values
    rows[:, 5] = rng.integers(0, 3, size=600)         # a few discrete columns
    labels = (rows[:, 0] > 0.3).astype(int) + (np.nan_to_num(rows[:, 5]) == 2)
    groups = [30] * 20
    params = {"objective": "lambdarank", "num_leaves": 7, "min_data_in_leaf": 5,
              "verbosity": -1, "deterministic": True, "num_threads": 1, "seed": 1}
    booster = lightgbm.train(params, lightgbm.Dataset(rows, label=labels, group=groups),
                             num_boost_round=25)
    model = _model(ltr.from_lightgbm(booster.dump_model()))
    fresh = rng.normal(size=(300, WIDTH))
    fresh[rng.random(fresh.shape) < 0.05] = math.nan
    expected = booster.predict(fresh, raw_score=True)
    assert np.max(np.abs(model.predict(fresh) - expected)) < 1e-9


def test_the_shipped_model_matches_the_features_and_its_training_record() -> None:
    model = ltr.load_model(ltr.BUILTIN)
    assert tuple(model.spec.features) == ltr.FEATURES
    training = model.spec.training
    # trained on the training split, or refit on every development instance once the
    # configuration was chosen on the training split (never on held-out benchmark sets)
    assert training["split"].startswith("train") or training["split"] == \
        "all development instances (refit after choosing on train)"
    assert len(training["data_sha256"]) == 64 and training["instances"] > 50
    # Rows and LightGBM's own raw scores stored at training time: the numpy trees must
    # reproduce them without LightGBM installed.
    check = training["check"]
    rows = np.asarray(check["rows"], dtype=np.float64)
    assert rows.shape == (len(check["scores"]), WIDTH)
    assert np.max(np.abs(model.predict(rows) - np.asarray(check["scores"]))) < 1e-9


def test_more_evidence_never_lowers_the_shipped_models_score() -> None:
    model = ltr.load_model(ltr.BUILTIN)
    rng = np.random.default_rng(5)
    base = np.asarray(model.spec.training["check"]["rows"], dtype=np.float64)
    rows = np.vstack([base, rng.uniform(0, 1, size=(200, WIDTH))])
    before = model.predict(rows)
    for name in sorted(ltr.INCREASING):
        column = ltr.FEATURES.index(name)
        for step in (0.05, 0.3, 1.0):
            bumped = rows.copy()
            bumped[:, column] += step
            assert np.all(model.predict(bumped) >= before - 1e-12), name


@pytest.fixture
def ltr_retriever(fixture_index: Path) -> Iterator[ReferenceRetriever]:
    with IndexReader.open(fixture_index) as reader:
        yield ReferenceRetriever(reader, load_config(overrides={"ranker": {"method": "ltr",
                                                                   "min_query_chars": 0}}))


def test_the_learnt_ranker_finds_a_named_definition(ltr_retriever: ReferenceRetriever) -> None:
    result = ltr_retriever.retrieve("invoice_total returns the wrong sum with tax", k=5)
    assert result.ranked[0].chunk.file == "src/billing/invoice.py"
    assert "ltr" in result.ranked[0].factors
    assert len(result.ranked) == 5


def test_the_learnt_ranking_is_deterministic(ltr_retriever: ReferenceRetriever) -> None:
    query = "How does create_session handle an expired refresh token?"
    first = [(s.chunk.id, s.score) for s in ltr_retriever.retrieve(query, k=10).ranked]
    again = [(s.chunk.id, s.score) for s in ltr_retriever.retrieve(query, k=10).ranked]
    assert first == again


def test_feature_rows_have_one_row_per_candidate(ltr_retriever: ReferenceRetriever) -> None:
    gathered = ltr_retriever.gather("SessionService.create_session expired", want=10)
    rows, offsets, factors = ltr_retriever.features(gathered)
    assert rows.shape == (len(gathered.candidates), WIDTH)
    assert offsets.shape == (len(gathered.candidates),) and len(factors) == len(offsets)
    assert np.all(np.isfinite(rows))
    named = ltr.FEATURES.index("symbol_named")
    flagged = {gathered.candidates[i].chunk.symbol for i in np.flatnonzero(rows[:, named])}
    assert "create_session" in flagged
    assert "invoice_total" not in flagged
    # The test file's chunks carry the test-path penalty as a negative offset.
    for item, offset in zip(gathered.candidates, offsets.tolist(), strict=True):
        if item.chunk.file.startswith("tests/"):
            assert offset < 0


def test_short_queries_are_ranked_by_fusion(fixture_index: Path) -> None:
    config = load_config(overrides={"ranker": {"method": "ltr", "min_query_chars": 30}})
    with IndexReader.open(fixture_index) as reader:
        retriever = ReferenceRetriever(reader, config)
        short = retriever.retrieve("invoice_total", k=3)
        long = retriever.retrieve("invoice_total returns the wrong sum when tax is set", k=3)
    assert all("ltr" not in s.factors for s in short.ranked)
    assert all("ltr" in s.factors for s in long.ranked)


def test_the_config_names_the_ranker_and_refuses_unknown_ones(tmp_path: Path) -> None:
    assert load_config().ranker.method in ("ltr", "fusion")
    with pytest.raises(InputError, match="ranker"):
        load_config(overrides={"ranker": {"method": "magic"}})
    bad = tmp_path / "model.json"
    bad.write_text('{"format": 1, "features": [], "trees": []}')
    config = load_config(overrides={"ranker": {"method": "ltr", "model": str(bad)}})
    with pytest.raises(SchemaError, match="other features"):
        ltr.load_model(config.ranker.model)
