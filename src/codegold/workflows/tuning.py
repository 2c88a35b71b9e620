"""The tune workflow: the reference retriever's settings searched on a training split and
judged on the held-out cases (or leaving one repository out), the chosen configuration
written. The caller has guarded the output against overwriting an input."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from codegold.errors import InputError
from codegold.index.catalog import IndexSet
from codegold.model import load_cases
from codegold.plumbing.outputs import write_text_atomic
from codegold.tune import LoroResult, TuneResult, load_space, loro, render_config, render_loro
from codegold.tune import tune as search_settings

# trials done, of trials + the 4 final scorings
TuneProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class TuneRequest:
    cases: tuple[str, ...]  # one or more case files
    index: str | None  # an index directory or a folder of them
    output: str  # the tuned configuration (YAML) to write
    space: str | None = None  # search space file (None: the built-in space)
    split: str = "train"  # the `split` tag value of training cases
    trials: int = 50
    metric: str = "pass_rate"
    seed: int = 0
    by_repository: bool = False  # leave one repository out instead


@dataclass(frozen=True)
class Tuned:
    text: str  # what was written to the output
    result: TuneResult | None = None  # a tuning on the training split
    folds: LoroResult | None = None  # or: leave one repository out


def tune(request: TuneRequest, progress: TuneProgressFn | None = None) -> Tuned:
    """Tune and write the configuration; ``progress`` hears the trials and final scorings
    of a tuning on the training split (from 0 of them)."""
    if request.index is None:
        raise InputError("tune runs the reference retriever and needs {index} (an index "
                         "directory or a folder of them); build one with `codegold index`",
                         settings=("index",))
    loaded = [case for path in request.cases for case in load_cases(path).cases]
    space = load_space(request.space)
    indexes = IndexSet.from_path(request.index)
    if request.by_repository:
        folds = loro(loaded, indexes, space, metric=request.metric, trials=request.trials,
                     seed=request.seed)
        text = render_loro(folds)
        write_text_atomic(request.output, text)
        return Tuned(text=text, folds=folds)
    if progress is not None:
        progress(0, request.trials + 4)
    result = search_settings(loaded, indexes, space, metric=request.metric,
                             trials=request.trials, seed=request.seed,
                             train_value=request.split, progress=progress)
    text = render_config(result)
    write_text_atomic(request.output, text)
    return Tuned(text=text, result=result)
