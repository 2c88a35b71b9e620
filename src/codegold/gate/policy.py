"""Gate policy files (``policy.yaml``, ``format: 1``).

::

    format: 1
    rules:                                  # floors (min) and ceilings (max)
      - {metric: hit_rate, min: 0.80}                        # overall
      - {metric: pass_rate, min: 0.90, slice: "query_class=exact_identifier"}
      - {metric: forbidden_rate, max: 0.0, slice: "tag:risk=high", min_cases: 3}
      - {metric: hit_rate@5, min: 0.80}                      # only when cases use cutoff 5
    max_failed_cases: 0                     # fail + missing cases allowed overall
    zero_tolerance: [forbidden_sources, revision_mismatches, invalid_cases]
    baseline: {results: baseline-results.json, max_new_failures: 0, allow_dropped_cases: false}

``metric`` names a metric of the registry (:mod:`codegold.model.metrics`), optionally
with ``@k``: the gate gates at each case's own cutoff, so ``@k`` asserts that cutoff.
``slice`` uses the keys of results.json (``query_class=…``, ``tag:NAME=…``,
``language=…``, ``role=…``); omitted means all cases; a slice the results do not hold is
bad input. A rule whose slice has fewer scored cases than ``min_cases`` (default 1)
fails, because a floor nobody can measure is not a guarantee. The baseline path is
relative to the policy file.
"""

from __future__ import annotations

import math
import os
from typing import Literal

import msgspec

from codegold.errors import InputError, SchemaError
from codegold.model.io import LoadedDocument, load_versioned, located_error
from codegold.model.metrics import Metric, metric_names, parse_metric

POLICY_FORMAT = 1
ZeroTolerance = Literal["forbidden_sources", "revision_mismatches", "invalid_cases",
                        "missing_cases"]


class Rule(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    metric: str  # a registry name, optionally NAME@K (checked when the policy is loaded)
    min: float | None = None
    max: float | None = None
    slice: str | None = None
    min_cases: int = 1

    @property
    def measure(self) -> Metric:
        return parse_metric(self.metric)

    def threshold(self) -> str:
        return " and ".join(
            part for part in (f">= {self.min:g}" if self.min is not None else "",
                              f"<= {self.max:g}" if self.max is not None else "") if part)

    def describe(self) -> str:
        return f"{self.metric} {self.threshold()} on {self.slice or 'all cases'}"


class Baseline(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    results: str
    max_new_failures: int = 0
    # Cases in the baseline but not in this run fail the check unless allowed: a shrunk
    # case set must never read as "0 new failures".
    allow_dropped_cases: bool = False


class Policy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    format: int
    rules: list[Rule] = msgspec.field(default_factory=list)
    max_failed_cases: int | None = None
    zero_tolerance: list[ZeroTolerance] = msgspec.field(default_factory=list)
    baseline: Baseline | None = None


_SLICE_DIMENSIONS = ("query_class=", "tag:", "language=", "role=")


def _bad(doc: LoadedDocument, where: str, message: str) -> SchemaError:
    return located_error(doc, doc.data, f"{message} - at `{where}`")


def _check_rule(doc: LoadedDocument, index: int, rule: Rule) -> None:
    where = f"$.rules[{index}]"
    try:
        measure = rule.measure
    except InputError:
        raise _bad(doc, f"{where}.metric",
                   f"unknown metric {rule.metric!r}; expected one of: {', '.join(metric_names())} "
                   "(optionally NAME@K)") from None
    if rule.min is None and rule.max is None:
        raise _bad(doc, where, f"rule on {measure} sets neither 'min' nor 'max'")
    rate = measure.render in ("rate", "percent")
    for name, bound in (("min", rule.min), ("max", rule.max)):
        if bound is None:
            continue
        if rate and not 0.0 <= bound <= 1.0:
            raise _bad(doc, f"{where}.{name}",
                       f"rule on {measure}: bounds are rates in [0, 1], found {bound}")
        if not rate and not (math.isfinite(bound) and bound >= 0.0):
            unit = "milliseconds" if measure.render == "ms" else "amounts"
            raise _bad(doc, f"{where}.{name}",
                       f"rule on {measure}: bounds are {unit}, a finite number >= 0, "
                       f"found {bound}")
    if rule.min is not None and rule.max is not None and rule.min > rule.max:
        raise _bad(doc, f"{where}.min",
                   f"rule on {measure}: min {rule.min:g} is above max {rule.max:g}; "
                   "no figure can hold both")
    if rule.min_cases < 1:
        raise _bad(doc, f"{where}.min_cases",
                   f"rule on {measure}: min_cases must be at least 1, found {rule.min_cases}")
    if rule.slice is not None and not (rule.slice.startswith(_SLICE_DIMENSIONS) and "=" in rule.slice):
        raise _bad(doc, f"{where}.slice",
                   f"slice {rule.slice!r} is not a slice key; expected e.g. "
                   "'query_class=descriptive', 'tag:risk=high', 'language=python' or "
                   "'role=definition'")


def load_policy(path: str) -> Policy:
    """Read a gate policy through the one loader; rule checks beyond the types are located too."""
    loaded = load_versioned(path, Policy, what="gate policy",
                            hint="see `codegold schema gate-policy`")
    doc, policy = loaded.doc, loaded.value
    for index, rule in enumerate(policy.rules):
        _check_rule(doc, index, rule)
    if policy.max_failed_cases is not None and policy.max_failed_cases < 0:
        raise _bad(doc, "$.max_failed_cases",
                   f"max_failed_cases must be 0 or more, found {policy.max_failed_cases}")
    if policy.baseline is not None and policy.baseline.max_new_failures < 0:
        raise _bad(doc, "$.baseline.max_new_failures",
                   f"max_new_failures must be 0 or more, found {policy.baseline.max_new_failures}")
    if policy.baseline is not None and not os.path.isabs(policy.baseline.results):
        base = os.path.join(os.path.dirname(os.path.abspath(path)), policy.baseline.results)
        policy = msgspec.structs.replace(
            policy, baseline=msgspec.structs.replace(policy.baseline, results=base))
    return policy
