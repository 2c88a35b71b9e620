"""`codegold tune` on the acme-shop example: seeded, split-aware, writes a usable config."""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.errors import InputError, MissingDependency
from codegold.index.catalog import IndexSet
from codegold.model import load_cases
from codegold.retrieve.config import load_config
from codegold.tune import DEFAULT_SPACE, Param, load_space, render_config, split_cases, tune
from codegold.tune.engine import Figures, TuneResult, divergence

CASES = Path(__file__).resolve().parents[2] / "examples" / "acme-shop" / "cases.yaml"
SMALL_SPACE = {key: DEFAULT_SPACE[key] for key in
               ("fusion.method", "fusion.rrf_k", "rerank.same_file_decay",
                "signals.file.chunks_per_file")}


def test_same_seed_same_output_and_run_config_reads_it(acme_indexes: Path,
                                                       tmp_path: Path) -> None:
    runner = CliRunner()
    outputs = []
    for name in ("a.yaml", "b.yaml"):
        out = tmp_path / name
        result = runner.invoke(cli, ["tune", str(CASES), "--index", str(acme_indexes),
                                     "--trials", "4", "--seed", "3", "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert "default" in result.output and "tuned" in result.output
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    text = outputs[0].decode()
    assert "heldout" in text and "seed 3" in text
    config = load_config(tmp_path / "a.yaml")  # what `run --config` does
    assert config.format == 1


def test_tuned_never_trails_default_on_train(acme_indexes: Path) -> None:
    cases = load_cases(str(CASES)).cases
    steps: list[tuple[int, int]] = []
    result = tune(cases, IndexSet.from_path(acme_indexes), SMALL_SPACE, trials=3, seed=1,
                  progress=lambda done, total: steps.append((done, total)))
    assert steps == [(n, 7) for n in range(1, 8)]  # 3 trials, then 4 final scorings
    assert result.tuned_train.metric >= result.default_train.metric
    assert result.split_source == "hash"
    assert result.default_train.cases + result.default_heldout.cases == len(cases)
    if result.params:
        tuned = load_config(overrides=result.overrides())
        assert tuned != load_config()


def test_different_metric_is_honoured(acme_indexes: Path) -> None:
    cases = load_cases(str(CASES)).cases
    result = tune(cases, IndexSet.from_path(acme_indexes), SMALL_SPACE, metric="mrr",
                  trials=2, seed=0)
    assert result.metric == "mrr"
    assert "mrr" in render_config(result)


def test_unknown_metric_refused(acme_indexes: Path) -> None:
    cases = load_cases(str(CASES)).cases
    with pytest.raises(InputError, match="unknown metric"):
        tune(cases, IndexSet.from_path(acme_indexes), SMALL_SPACE, metric="recall@7", trials=1)


def test_split_by_tags_and_mixed_tags_refused() -> None:
    cases = list(load_cases(str(CASES)).cases)
    tagged = [msgspec.structs.replace(c, tags={**c.tags, "split": "train" if i % 3 else "heldout"})
              for i, c in enumerate(cases)]
    _, heldout, source = split_cases(tagged)
    assert source == "tags"
    assert {c.id for c in heldout} == {c.id for i, c in enumerate(cases) if i % 3 == 0}
    train2, _, _ = split_cases(tagged, train_value="heldout")
    assert {c.id for c in train2} == {c.id for c in heldout}
    with pytest.raises(InputError, match="some do not"):
        split_cases(tagged[:-1] + cases[-1:])
    with pytest.raises(InputError, match="non-empty"):
        split_cases(tagged, train_value="nope")


def test_hash_split_matches_cases_split() -> None:
    from codegold.curate.split import assign

    cases = load_cases(str(CASES)).cases
    train, _, source = split_cases(cases)
    which = assign(cases, 0.7, by=None, seed=0)
    assert source == "hash"
    assert {c.id for c in train} == {k for k, v in which.items() if v == "train"}


def _figures(metric: float) -> Figures:
    return Figures(cases=10, invalid=0, metric=metric, pass_rate=metric, file_hit_rate=metric)


def test_divergence_warning() -> None:
    def result(dt: float, dh: float, tt: float, th: float) -> TuneResult:
        return TuneResult(metric="pass_rate", seed=0, trials=1, split_source="hash", params={},
                          default_train=_figures(dt), default_heldout=_figures(dh),
                          tuned_train=_figures(tt), tuned_heldout=_figures(th), warnings=[])

    assert divergence(result(0.5, 0.5, 0.8, 0.6))  # +0.3 vs +0.1
    assert divergence(result(0.5, 0.5, 0.6, 0.4))  # held-out got worse
    assert not divergence(result(0.5, 0.5, 0.6, 0.56))
    assert not divergence(result(0.5, 0.5, 0.5, 0.4))  # no train gain: nothing chosen


def test_space_file(tmp_path: Path) -> None:
    good = tmp_path / "space.yaml"
    good.write_text("format: 1\nparams:\n  fusion.rrf_k: {low: 10, high: 80, int: true}\n"
                    "  fusion.method: {choices: [rrf, weighted]}\n")
    assert load_space(good) == {"fusion.rrf_k": Param(low=10, high=80, int=True),
                                "fusion.method": Param(choices=["rrf", "weighted"])}
    assert load_space(None) is DEFAULT_SPACE
    for body, expected in [
        ("params:\n  fusion.nope: {low: 1, high: 2}\n", "does not take"),
        ("params:\n  fusion.rrf_k: {low: 9, high: 2}\n", "low <= high"),
        ("params:\n  fusion.method: {choices: [rrf, bogus]}\n", "does not take"),
        ("params:\n  rerank.no_signature: {low: -1, high: 2}\n", "does not take"),
        ("params: {}\n", "no settings"),
    ]:
        bad = tmp_path / "bad.yaml"
        bad.write_text(body)
        with pytest.raises(InputError, match=expected):
            load_space(bad)


def test_default_space_is_valid() -> None:
    from codegold.tune.space import check_space

    assert check_space(DEFAULT_SPACE, "<default>") == DEFAULT_SPACE


def test_missing_optuna_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegold.tune.engine import _optuna

    monkeypatch.setitem(sys.modules, "optuna", None)
    with pytest.raises(MissingDependency, match=r"codegold\[tune\]"):
        _optuna()


def test_cases_without_an_index_are_reported(acme_indexes: Path, tmp_path: Path) -> None:
    cases = load_cases(str(CASES)).cases
    only = sorted(p.name for p in acme_indexes.iterdir())[0]
    result = tune(cases, IndexSet.from_path(acme_indexes / only), SMALL_SPACE, trials=1)
    assert result.default_train.invalid + result.default_heldout.invalid > 0
    assert any("invalid" in w for w in result.warnings)


def _fake_cases(repositories: dict[str, int]) -> list:  # type: ignore[type-arg]
    from codegold.model.cases import Case, EvidenceGroup, Target

    out = []
    for repository, count in repositories.items():
        for number in range(count):
            out.append(Case(id=f"{repository}-{number}", query="q", repository=repository,
                            revision="0" * 40, cutoff=5, query_class="descriptive",
                            groups=(EvidenceGroup(id="g", any_of=(Target(file="a.py"),),
                                                  required=True),),
                            forbidden=(), tags={}))
    return out


@pytest.mark.parametrize(("tuned_on", "accepted"), [
    ({"a/one": 0.8, "b/two": 0.7, "c/three": 0.6}, True),    # every repository gains
    ({"a/one": 0.9, "b/two": 0.9, "c/three": 0.4}, False),   # c/three loses 0.1 > 0.05
])
def test_leave_one_repository_out_rejects_a_gain_that_hurts_one_repository(
        monkeypatch: pytest.MonkeyPatch, tuned_on: dict[str, float], accepted: bool) -> None:
    from codegold.tune import engine

    default = {"a/one": 0.7, "b/two": 0.6, "c/three": 0.5}
    cases = _fake_cases({repo: 2 for repo in default})
    searched: list[set[str]] = []

    def search(optuna: object, train: list, *args: object) -> dict[str, float]:  # type: ignore[type-arg]
        searched.append({c.repository for c in train})
        return {"fusion.rrf_k": 10}

    def score(config: object, held: list, indexes: object, metric: str) -> Figures:  # type: ignore[type-arg]
        repo = held[0].repository
        tuned = config.fusion.rrf_k == 10  # type: ignore[attr-defined]
        value = tuned_on[repo] if tuned else default[repo]
        return Figures(cases=len(held), invalid=0, metric=value, pass_rate=value,
                       file_hit_rate=value)

    monkeypatch.setattr(engine, "_search", search)
    monkeypatch.setattr(engine, "score", score)
    monkeypatch.setattr(engine, "_optuna", lambda: None)
    result = engine.loro(cases, None, {}, trials=1)
    # Each fold trained on the other two repositories only, then one search on all three.
    assert searched[:3] == [{"b/two", "c/three"}, {"a/one", "c/three"}, {"a/one", "b/two"}]
    assert searched[3] == set(default)
    assert [f.repository for f in result.folds] == sorted(default)
    assert result.accepted is accepted
    assert result.params == ({"fusion.rrf_k": 10} if accepted else {})
    assert result.default_worst == 0.5
    assert "c/three" in engine.render_loro(result)
