"""The search space of ``codegold tune``: which reference-retriever settings vary, and how.

A space file names config keys by their dotted path (``fusion.rrf_k``,
``rerank.open_file.same_file``, ``fusion.weights.symbol``) and gives each either a range
(``low``/``high``, ``int: true`` for whole numbers, ``log: true`` for a log scale) or a
list of ``choices``. Every key must be one the retriever config accepts.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

import msgspec

from codegold.errors import InputError
from codegold.model.io import load_versioned

SPACE_FORMAT = 1


class Param(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One setting to search: a range (``low``..``high``) or a list of ``choices``."""

    low: float | None = None
    high: float | None = None
    int: bool = False
    log: bool = False
    choices: list[str | float | bool] | None = None


class SpaceFile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    format: Literal[1] = 1
    params: dict[str, Param] = msgspec.field(default_factory=dict)


def _range(low: float, high: float, *, whole: bool = False, log: bool = False) -> Param:
    return Param(low=low, high=high, int=whole, log=log)


# The default space: signal weights, candidate depths, rerank multipliers, fusion, short
# questions' own settings, and which ranker orders the candidates (learnt or fused) from
# what query length.
DEFAULT_SPACE: dict[str, Param] = {
    "fusion.method": Param(choices=["rrf", "weighted"]),
    "fusion.rrf_k": _range(5, 120, whole=True),
    "fusion.weights.lexical": _range(0.1, 3.0),
    "fusion.weights.identifier": _range(0.1, 3.0),
    "fusion.weights.symbol": _range(0.1, 3.0),
    "fusion.weights.path": _range(0.1, 3.0),
    "fusion.weights.file": _range(0.1, 3.0),
    "candidates.per_signal": _range(50, 400, whole=True),
    "signals.file.max_files": _range(10, 100, whole=True),
    "signals.file.chunks_per_file": _range(1, 4, whole=True),
    "signals.symbol.max_definitions": _range(2, 16, whole=True),
    "signals.symbol.weight_frame": _range(0.5, 5.0),
    "signals.path.weight_frame": _range(0.5, 5.0),
    "rerank.same_file_decay": _range(0.5, 1.0),
    "rerank.no_signature": _range(0.5, 1.0),
    "rerank.open_file.same_file": _range(1.0, 2.0),
    "rerank.open_file.same_dir": _range(1.0, 1.5),
    "expansion.max_added": _range(0, 5, whole=True),
    "rerank.domain_word_share": _range(0.05, 0.5),
    "short_query.stem": Param(choices=[True, False]),
    "short_query.weights.file": _range(0.0, 3.0),
    "ranker.method": Param(choices=["ltr", "fusion"]),
    "ranker.min_query_chars": _range(0, 1000, whole=True),
}


def check_space(params: dict[str, Param], where: str) -> dict[str, Param]:
    """Refuse an empty space, a range with low > high, or a key the config does not take."""
    from codegold.retrieve.config import load_config

    if not params:
        raise InputError("the search space names no settings; give at least one under "
                         "'params'", path=where)
    for key, param in params.items():
        if param.choices is not None:
            if not param.choices or param.low is not None or param.high is not None:
                raise InputError("give either a non-empty 'choices' list or 'low' and 'high'",
                                 path=where, field=f"params.{key}")
            samples = list(param.choices)
        else:
            if (param.low is None or param.high is None or not math.isfinite(param.low)
                    or not math.isfinite(param.high) or not param.low <= param.high):
                raise InputError(f"expected finite numbers low <= high, found low={param.low} "
                                 f"high={param.high}", path=where, field=f"params.{key}")
            if param.log and param.low <= 0:
                raise InputError("a log-scale range needs low > 0", path=where,
                                 field=f"params.{key}")
            if param.int and param.log and round(param.low) < 1:
                raise InputError(f"a whole-number log-scale range needs low >= 1; low={param.low} "
                                 f"rounds to {round(param.low)}", path=where,
                                 field=f"params.{key}")
            samples = [param.low, param.high]
        for sample in samples:
            value = round(sample) if param.int and isinstance(sample, float) else sample
            try:
                load_config(overrides=nested({key: value}))
            except InputError as err:
                raise InputError(f"the retriever config does not take {key} = {value!r}: "
                                 f"{err.message}", path=where, field=f"params.{key}",
                                 settings=err.settings) from None
    return params


def load_space(path: str | Path | None) -> dict[str, Param]:
    """The space in the YAML/JSON file at ``path``, or :data:`DEFAULT_SPACE`."""
    if path is None:
        return DEFAULT_SPACE
    loaded = load_versioned(path, SpaceFile, what="search space",
                            hint="keys: format, params")
    return check_space(dict(loaded.value.params), str(path))


def nested(flat: dict[str, Any]) -> dict[str, Any]:
    """``{"a.b": 1, "a.c": 2}`` -> ``{"a": {"b": 1, "c": 2}}``, keys sorted."""
    out: dict[str, Any] = {}
    for key in sorted(flat):
        parts = key.split(".")
        node = out
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise InputError(f"search space key {key!r} goes inside {part!r}, which "
                                 "another key sets to a value")
            node = child
        node[parts[-1]] = flat[key]
    return out
