"""Search the reference retriever's configuration on a training split, judge on held-out.

Each trial runs the reference retriever in-process over the training cases (the same
request building and scoring as ``codegold run`` and ``codegold eval``) and scores the
configuration with the evaluator. Optuna's TPE sampler, seeded, proposes the trials, so
the same cases, indexes, space and seed always choose the same configuration.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import msgspec

from codegold.errors import InputError, MissingDependency
from codegold.model import Case, CaseSet
from codegold.tune.space import Param, nested

SPLIT_TAG = "split"
TRAIN_FRACTION = 0.7
DIVERGENCE_RATIO = 2.0


class Figures(msgspec.Struct, frozen=True, kw_only=True):
    """A configuration's figures on one split."""

    cases: int
    invalid: int               # cases that could not be run or scored (e.g. no index)
    metric: float
    pass_rate: float
    file_hit_rate: float


class TuneResult(msgspec.Struct, frozen=True, kw_only=True):
    metric: str
    seed: int
    trials: int
    split_source: str          # "tags" or "hash"
    params: dict[str, Any]     # the chosen values, by dotted key
    default_train: Figures
    default_heldout: Figures
    tuned_train: Figures
    tuned_heldout: Figures
    warnings: list[str]

    def overrides(self) -> dict[str, Any]:
        return nested(self.params)


def split_cases(cases: Sequence[Case], *, train_value: str = "train", seed: int = 0,
                fraction: float = TRAIN_FRACTION) -> tuple[list[Case], list[Case], str]:
    """(train, held-out, source). Cases tagged ``split`` use their tag (``train_value``
    trains, every other value is held out); untagged case files are split by hash."""
    tagged = [c for c in cases if SPLIT_TAG in c.tags]
    if tagged:
        if len(tagged) != len(cases):
            first = next(c for c in cases if SPLIT_TAG not in c.tags)
            raise InputError(f"{len(tagged)} of {len(cases)} cases carry a 'split' tag but "
                             "some do not; tag every case (`codegold cases split --tag`) or "
                             "none", case_id=first.id, field="tags.split")
        train = [c for c in cases if c.tags[SPLIT_TAG] == train_value]
        heldout = [c for c in cases if c.tags[SPLIT_TAG] != train_value]
        source = "tags"
    else:
        from codegold.curate.split import assign

        which = assign(cases, fraction, by=None, seed=seed)
        train = [c for c in cases if which[c.id] == "train"]
        heldout = [c for c in cases if which[c.id] != "train"]
        source = "hash"
    if not train or not heldout:
        raise InputError(f"the split leaves {len(train)} training and {len(heldout)} held-out "
                         f"cases (split by {source}"
                         + (f", training tag value {train_value!r}" if source == "tags" else "")
                         + "); both must be non-empty")
    return train, heldout, source


def _file_hit(case: Case, ranked_files: list[str], k: int) -> bool:
    """A required target's file among the first ``k`` (the case's cutoff, or the entries
    that fit its budget)."""
    from codegold.evaluate.match import file_matches

    top = ranked_files[:k]
    return any(file_matches(target.file, path) for group in case.groups if group.required
               for target in group.any_of for path in top)


def score(config: Any, cases: Sequence[Case], indexes: Any, metric: str) -> Figures:
    """Run the reference retriever with ``config`` over ``cases`` in-process and score it."""
    from codegold.adapters.reference import build_reference
    from codegold.adapters.registry import close_retriever
    from codegold.adapters.runner import attempt_for
    from codegold.evaluate.engine import evaluate_attempts

    retriever = build_reference(config)
    try:
        attempts = [attempt_for(case, retriever, indexes, run_id="tune", label="reference",
                                default_k=config.candidates.default_k, require_index=True)
                    for case in cases]
    finally:
        close_retriever(retriever)
    result = evaluate_attempts(CaseSet(path="<tune>", sha256="", cases=tuple(cases)), attempts)
    value = getattr(result.summary, metric)
    hits = [_file_hit(r.case, [chunk.file for chunk in r.ranked], r.cutoff) for r in result.cases]
    return Figures(cases=len(cases), invalid=result.summary.invalid, metric=float(value or 0.0),
                   pass_rate=float(result.summary.pass_rate or 0.0),
                   file_hit_rate=sum(hits) / len(hits) if hits else 0.0)


def _suggest(trial: Any, key: str, param: Param) -> Any:
    if param.choices is not None:
        return trial.suggest_categorical(key, list(param.choices))
    if param.low is None or param.high is None:
        raise InputError(f"search space setting {key!r} has neither choices nor low and high")
    if param.int:
        return trial.suggest_int(key, round(param.low), round(param.high), log=param.log)
    return round(trial.suggest_float(key, param.low, param.high, log=param.log), 3)


def _optuna() -> Any:
    try:
        import optuna
    except ImportError:
        raise MissingDependency("optuna", "tune", "`codegold tune`") from None
    optuna.logging.set_verbosity(logging.WARNING)
    return optuna


def tune(cases: Sequence[Case], indexes: Any, space: dict[str, Param], *, metric: str = "pass_rate",
         trials: int = 50, seed: int = 0, train_value: str = "train") -> TuneResult:
    """Search ``space`` on the training split with seeded TPE; score the best and the
    default configuration on both splits."""
    from codegold.model.metrics import METRICS
    from codegold.retrieve.config import load_config

    names = [m.name for m in METRICS]
    if metric not in names:
        raise InputError(f"unknown metric {metric!r}; expected one of {', '.join(names)}",
                         field="--metric")
    if trials < 1:
        raise InputError(f"--trials must be at least 1, found {trials}")
    optuna = _optuna()
    train, heldout, source = split_cases(cases, train_value=train_value, seed=0)
    default = load_config()
    lower_is_better = metric in ("forbidden_rate", "revision_mismatch_rate")

    def configure(values: dict[str, Any]) -> Any:
        return load_config(overrides=nested(values))

    def objective(trial: Any) -> float:
        values = {key: _suggest(trial, key, param) for key, param in sorted(space.items())}
        trial.set_user_attr("values", values)
        return score(configure(values), train, indexes, metric).metric

    sampler = optuna.samplers.TPESampler(seed=seed)
    study = optuna.create_study(direction="minimize" if lower_is_better else "maximize",
                                sampler=sampler)
    study.optimize(objective, n_trials=trials)
    # The first trial among the best, so ties go to the earliest (deterministic).
    done = [t for t in study.trials if t.value is not None]
    best_value = min(t.value for t in done) if lower_is_better else max(t.value for t in done)
    best = next(t for t in done if t.value == best_value)
    params: dict[str, Any] = dict(best.user_attrs["values"])
    default_train = score(default, train, indexes, metric)
    notes: list[str] = []
    beats = best_value < default_train.metric if lower_is_better else \
        best_value > default_train.metric
    if not beats:
        params = {}
        notes.append(f"no trial beat the default configuration's {metric} on the training "
                     f"cases ({default_train.metric:.3f}); the written configuration is the "
                     "default")
    tuned = configure(params)
    default_heldout = score(default, heldout, indexes, metric)
    for name, figures in (("training", default_train), ("held-out", default_heldout)):
        if figures.invalid:
            notes.append(f"{figures.invalid} of {figures.cases} {name} cases are invalid (no "
                         "index for their revision, or unusable labels) and count as failures; "
                         "`codegold run` + `codegold eval` name them")
    result = TuneResult(
        metric=metric, seed=seed, trials=trials, split_source=source, params=params,
        default_train=default_train,
        default_heldout=default_heldout,
        tuned_train=score(tuned, train, indexes, metric),
        tuned_heldout=score(tuned, heldout, indexes, metric),
        warnings=[])
    return msgspec.structs.replace(result,
                                   warnings=notes + divergence(result, lower_is_better))


def divergence(result: TuneResult, lower_is_better: bool = False) -> list[str]:
    sign = -1.0 if lower_is_better else 1.0
    train_gain = sign * (result.tuned_train.metric - result.default_train.metric)
    heldout_gain = sign * (result.tuned_heldout.metric - result.default_heldout.metric)
    if train_gain > 0 and train_gain > DIVERGENCE_RATIO * heldout_gain:
        return [f"train and held-out diverge: {result.metric} gains {train_gain:+.3f} on train "
                f"but {heldout_gain:+.3f} on held-out; the tuned configuration may be "
                "overfitted to the training cases"]
    return []


def render_config(result: TuneResult) -> str:
    """The tuned configuration as a file ``codegold run --config`` accepts."""
    import yaml

    def line(name: str, f: Figures) -> str:
        chosen = "" if result.metric == "pass_rate" else f"{result.metric} {f.metric:.3f}  "
        return (f"#   {name:<8} {f.cases:>4} cases  {chosen}"
                f"pass_rate {f.pass_rate:.3f}  file_hit {f.file_hit_rate:.3f}")

    header = [
        "# Reference retriever configuration chosen by `codegold tune`",
        f"# metric {result.metric}, {result.trials} trials, seed {result.seed}, "
        f"split by {result.split_source}",
        "# default configuration:", line("train", result.default_train),
        line("heldout", result.default_heldout),
        "# this configuration:", line("train", result.tuned_train),
        line("heldout", result.tuned_heldout),
        *(f"# warning: {w}" for w in result.warnings),
    ]
    body = yaml.safe_dump({"format": 1, **result.overrides()}, sort_keys=True,
                          default_flow_style=False)
    return "\n".join(header) + "\n" + body
