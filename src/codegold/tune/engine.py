"""Search the reference retriever's configuration on a training split, judge on held-out.

Each trial runs the reference retriever in-process over the training cases (the same
request building and scoring as ``codegold run`` and ``codegold eval``) and scores the
configuration with the evaluator. Optuna's TPE sampler, seeded, proposes the trials, so
the same cases, indexes, space and seed always choose the same configuration.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
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
         trials: int = 50, seed: int = 0, train_value: str = "train",
         progress: Callable[[int, int], None] | None = None) -> TuneResult:
    """Search ``space`` on the training split with seeded TPE; score the best and the
    default configuration on both splits. ``progress(done, total)`` is called after each
    trial and each final scoring (``total`` is ``trials + 4``)."""
    from codegold.retrieve.config import load_config

    _check_search(metric, trials)
    optuna = _optuna()
    train, heldout, source = split_cases(cases, train_value=train_value, seed=0)
    default = load_config()
    lower_is_better = metric in ("forbidden_rate", "revision_mismatch_rate")

    def configure(values: dict[str, Any]) -> Any:
        return load_config(overrides=nested(values))

    total = trials + 4
    steps = [0]

    def step() -> None:
        steps[0] += 1
        if progress is not None:
            progress(steps[0], total)

    def objective(trial: Any) -> float:
        values = {key: _suggest(trial, key, param) for key, param in sorted(space.items())}
        trial.set_user_attr("values", values)
        value = score(configure(values), train, indexes, metric).metric
        step()
        return value

    def scored(config: Any, split: Any) -> Any:
        figures = score(config, split, indexes, metric)
        step()
        return figures

    sampler = optuna.samplers.TPESampler(seed=seed)
    study = optuna.create_study(direction="minimize" if lower_is_better else "maximize",
                                sampler=sampler)
    study.optimize(objective, n_trials=trials)
    # The first trial among the best, so ties go to the earliest (deterministic).
    done = [t for t in study.trials if t.value is not None]
    best_value = min(t.value for t in done) if lower_is_better else max(t.value for t in done)
    best = next(t for t in done if t.value == best_value)
    params: dict[str, Any] = dict(best.user_attrs["values"])
    default_train = scored(default, train)
    notes: list[str] = []
    beats = best_value < default_train.metric if lower_is_better else \
        best_value > default_train.metric
    if not beats:
        params = {}
        notes.append(f"no trial beat the default configuration's {metric} on the training "
                     f"cases ({default_train.metric:.3f}); the written configuration is the "
                     "default")
    tuned = configure(params)
    default_heldout = scored(default, heldout)
    for name, figures in (("training", default_train), ("held-out", default_heldout)):
        if figures.invalid:
            notes.append(f"{figures.invalid} of {figures.cases} {name} cases are invalid (no "
                         "index for their revision, or unusable labels) and count as failures; "
                         "`codegold run` + `codegold eval` name them")
    result = TuneResult(
        metric=metric, seed=seed, trials=trials, split_source=source, params=params,
        default_train=default_train,
        default_heldout=default_heldout,
        tuned_train=scored(tuned, train),
        tuned_heldout=scored(tuned, heldout),
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


# A configuration that raises the mean by costing any one held-out repository more than
# this (a share of its cases, on the tuned metric) is rejected.
MAX_REPOSITORY_LOSS = 0.05


class Fold(msgspec.Struct, frozen=True, kw_only=True):
    """One repository held out: the others were tuned on, this one judged."""

    repository: str
    params: dict[str, Any]     # chosen on the other repositories' cases
    default: Figures           # on this repository
    tuned: Figures             # on this repository


class LoroResult(msgspec.Struct, frozen=True, kw_only=True):
    """Leave-one-repository-out: the figure on each repository when the others are tuned
    on, the mean and the worst beside it, and what ships."""

    metric: str
    seed: int
    trials: int
    folds: list[Fold]
    default_mean: float
    tuned_mean: float
    default_worst: float
    tuned_worst: float
    worst_repository: str      # of the tuned configurations
    largest_loss: float        # the most one repository lost (tuned minus default, >= 0)
    accepted: bool             # the mean rose and no repository lost more than the limit
    candidate: dict[str, Any]  # tuned on every repository's cases
    params: dict[str, Any]     # what is written: the candidate when accepted, else {}
    warnings: list[str]

    def overrides(self) -> dict[str, Any]:
        return nested(self.params)


def _search(optuna: Any, cases: Sequence[Case], indexes: Any, space: dict[str, Param],
            metric: str, trials: int, seed: int, lower_is_better: bool) -> dict[str, Any]:
    """The best values TPE finds on ``cases``; {} when none beats the default there."""
    from codegold.retrieve.config import load_config

    def objective(trial: Any) -> float:
        values = {key: _suggest(trial, key, param) for key, param in sorted(space.items())}
        trial.set_user_attr("values", values)
        return score(load_config(overrides=nested(values)), cases, indexes, metric).metric

    study = optuna.create_study(direction="minimize" if lower_is_better else "maximize",
                                sampler=optuna.samplers.TPESampler(seed=seed))
    study.optimize(objective, n_trials=trials)
    done = [t for t in study.trials if t.value is not None]
    best_value = min(t.value for t in done) if lower_is_better else max(t.value for t in done)
    default = score(load_config(), cases, indexes, metric).metric
    if not (best_value < default if lower_is_better else best_value > default):
        return {}
    best = next(t for t in done if t.value == best_value)
    return dict(best.user_attrs["values"])


def _check_search(metric: str, trials: int) -> None:
    """Refuse a metric codegold does not compute and a search of no trial."""
    from codegold.model.metrics import METRICS

    names = [m.name for m in METRICS]
    if metric not in names:
        raise InputError(f"unknown metric {metric!r}; expected one of {', '.join(names)}",
                         field="metric", settings=("metric",))
    if trials < 1:
        raise InputError(f"{{trials}} must be at least 1, found {trials}",
                         settings=("trials",))


def loro(cases: Sequence[Case], indexes: Any, space: dict[str, Param], *,
         metric: str = "pass_rate", trials: int = 50, seed: int = 0,
         max_loss: float = MAX_REPOSITORY_LOSS) -> LoroResult:
    """Leave one repository out: for each repository, tune on the others' cases and judge
    on its own; then tune on all of them. The configuration tuned on all ships only when,
    held out, it raised the mean over repositories and cost no repository more than
    ``max_loss``; otherwise the default is written."""
    from codegold.retrieve.config import load_config

    _check_search(metric, trials)
    by_repo: dict[str, list[Case]] = {}
    for case in cases:
        by_repo.setdefault(case.repository or "?", []).append(case)
    if len(by_repo) < 2:
        raise InputError(f"leave-one-repository-out needs cases of at least two repositories, "
                         f"found {len(by_repo)}")
    optuna = _optuna()
    lower_is_better = metric in ("forbidden_rate", "revision_mismatch_rate")
    sign = -1.0 if lower_is_better else 1.0
    default = load_config()
    folds: list[Fold] = []
    for repository in sorted(by_repo):
        held = by_repo[repository]
        others = [c for c in cases if (c.repository or "?") != repository]
        params = _search(optuna, others, indexes, space, metric, trials, seed, lower_is_better)
        folds.append(Fold(repository=repository, params=params,
                          default=score(default, held, indexes, metric),
                          tuned=score(load_config(overrides=nested(params)), held, indexes,
                                      metric)))
    candidate = _search(optuna, cases, indexes, space, metric, trials, seed, lower_is_better)

    def mean(values: list[float]) -> float:
        return sum(values) / len(values)

    default_mean = mean([f.default.metric for f in folds])
    tuned_mean = mean([f.tuned.metric for f in folds])
    losses = {f.repository: sign * (f.default.metric - f.tuned.metric) for f in folds}
    largest = max(0.0, *losses.values())
    pick = min if not lower_is_better else max
    worst_fold = pick(folds, key=lambda f: (f.tuned.metric, f.repository))
    gained = sign * (tuned_mean - default_mean) > 0
    accepted = bool(candidate) and gained and largest <= max_loss
    notes: list[str] = []
    if not candidate:
        notes.append("no trial beat the default configuration on every repository's cases; "
                     "the written configuration is the default")
    elif not gained:
        notes.append(f"held out, the tuned configurations did not raise the mean {metric} "
                     f"over repositories ({default_mean:.3f} -> {tuned_mean:.3f}); the "
                     "default is written")
    elif largest > max_loss:
        loser = max(losses, key=lambda r: (losses[r], r))
        notes.append(f"held out, {loser} lost {largest:.3f} of {metric} (more than "
                     f"{max_loss:.3f}) for a mean gain of {sign * (tuned_mean - default_mean):+.3f}; "
                     "the default is written")
    for fold in folds:
        if fold.default.invalid:
            notes.append(f"{fold.default.invalid} of {fold.default.cases} cases of "
                         f"{fold.repository} are invalid (no index for their revision, or "
                         "unusable labels) and count as failures")
    return LoroResult(
        metric=metric, seed=seed, trials=trials, folds=folds, default_mean=default_mean,
        tuned_mean=tuned_mean,
        default_worst=pick(f.default.metric for f in folds),
        tuned_worst=worst_fold.tuned.metric, worst_repository=worst_fold.repository,
        largest_loss=largest, accepted=accepted, candidate=candidate,
        params=candidate if accepted else {}, warnings=notes)


def render_loro(result: LoroResult) -> str:
    """The configuration leave-one-repository-out chose, with its per-repository figures."""
    import yaml

    header = [
        "# Reference retriever configuration chosen by `codegold tune --by-repository`",
        f"# metric {result.metric}, {result.trials} trials, seed {result.seed}; each "
        "repository held out, the others tuned on:",
        f"#   {'repository':<28} {'cases':>5} {'default':>8} {'tuned':>8}",
        *(f"#   {f.repository:<28} {f.default.cases:>5} {f.default.metric:>8.3f} "
          f"{f.tuned.metric:>8.3f}" for f in result.folds),
        f"#   {'mean':<28} {'':>5} {result.default_mean:>8.3f} {result.tuned_mean:>8.3f}",
        f"#   {'worst':<28} {'':>5} {result.default_worst:>8.3f} {result.tuned_worst:>8.3f}"
        f"  ({result.worst_repository})",
        f"# {'accepted' if result.accepted else 'rejected'}: largest loss on one repository "
        f"{result.largest_loss:.3f} (limit {MAX_REPOSITORY_LOSS:.3f})",
        *(f"# warning: {w}" for w in result.warnings),
    ]
    if result.candidate and not result.accepted:
        header.append(f"# the rejected candidate (tuned on every repository): {result.candidate}")
    body = yaml.safe_dump({"format": 1, **result.overrides()}, sort_keys=True,
                          default_flow_style=False)
    return "\n".join(header) + "\n" + body
