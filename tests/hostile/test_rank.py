"""Hostile ranking-model files and ranker settings: one clean error line, files untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegold.retrieve.ltr import FEATURES
from hostilekit import assert_clean_error, assert_sentinels, plant_sentinels, run_cli

LONG_QUERY = "total " + "the report says the total is wrong when the window is empty " * 5


def _index(tmp_path: Path) -> Path:
    from gitrepo import Repo

    repo = Repo(tmp_path / "repo")
    repo.commit({"src/report.py": "def total(rows):\n    return sum(rows)\n"})
    proc = run_cli("index", repo.path, "--revision", "HEAD", "-o", tmp_path / "idx", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "idx"


def _stump(**change: object) -> dict[str, object]:
    tree: dict[str, object] = {"split_feature": [0], "threshold": [0.5], "left": [-1],
                               "right": [-2], "default_left": [True], "missing_nan": [False],
                               "leaf_value": [0.0, 1.0]}
    tree.update(change)
    return tree


def _spec(**change: object) -> str:
    spec: dict[str, object] = {"format": 1, "features": list(FEATURES), "trees": [_stump()]}
    spec.update(change)
    return json.dumps(spec)


MODELS = {
    "not-json": ("{trees: [", "invalid JSON"),
    "empty": ("", "invalid JSON"),
    "a-list": ("[1, 2, 3]", "ranking model"),
    "other-features": (_spec(features=["a", "b"]), "other features"),
    "future-format": (_spec(format=9), "ranking model"),
    "child-loops-back": (_spec(trees=[_stump(split_feature=[0, 0], threshold=[0.5, 0.5],
                                             left=[1, 0], right=[-1, -2], default_left=[True] * 2,
                                             missing_nan=[False] * 2,
                                             leaf_value=[0.0, 1.0, 2.0])]), "inconsistent"),
    "feature-out-of-range": (_spec(trees=[_stump(split_feature=[10_000])]), "inconsistent"),
    "leaf-out-of-range": (_spec(trees=[_stump(right=[-9])]), "inconsistent"),
    "huge-number": (_spec().replace("0.5", "1e999"), "inconsistent|ranking model"),
    "string-threshold": (_spec(trees=[_stump(threshold=["x"])]), "ranking model"),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_hostile_model_file_is_one_clean_error(tmp_path: Path, name: str) -> None:
    index = _index(tmp_path)
    body, words = MODELS[name]
    model = tmp_path / "model.json"
    model.write_text(body)
    config = tmp_path / "config.yaml"
    config.write_text(f"ranker:\n  method: ltr\n  model: {json.dumps(str(model))}\n")
    planted = plant_sentinels(tmp_path)
    proc = run_cli("search", index, LONG_QUERY, "--config", config, timeout=60)
    assert_clean_error(proc)
    assert any(word in proc.stderr for word in words.split("|")), proc.stderr
    assert_sentinels(planted)
    assert model.read_text() == body


@pytest.mark.parametrize("ranker, words", [
    ("{method: oracle}", "ranker"),
    ("{pool: 0}", "pool"),
    ("{min_query_chars: -1}", "min_query_chars"),
    ("{model: 12}", "model"),
    ("{model: /nonexistent/dir/model.json}", "cannot read"),
    ("{model: .}", "cannot read"),
])
def test_bad_ranker_settings_are_refused(tmp_path: Path, ranker: str, words: str) -> None:
    index = _index(tmp_path)
    config = tmp_path / "config.yaml"
    config.write_text(f"ranker: {ranker}\n")
    proc = run_cli("search", index, LONG_QUERY, "--config", config, timeout=60)
    assert_clean_error(proc)
    assert words in proc.stderr, proc.stderr
