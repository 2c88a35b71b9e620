"""Gate policy files (``policy.yaml``, ``format: 1``).

::

    format: 1
    rules:                                  # floors (min) and ceilings (max)
      - {metric: hit_rate, min: 0.80}                        # overall
      - {metric: hit_rate, min: 0.90, slice: "query_class=exact_identifier"}
      - {metric: forbidden_rate, max: 0.0, slice: "tag:risk=high", min_cases: 3}
    zero_tolerance: [forbidden_sources, revision_mismatches, invalid_cases]
    baseline: {results: baseline-results.json, max_new_failures: 0}

``slice`` uses the keys of results.json (``query_class=…``, ``tag:NAME=…``,
``language=…``, ``role=…``); omitted means all cases. A rule whose slice has fewer
scored cases than ``min_cases`` (default 1) fails, because a floor nobody can measure is
not a guarantee. The baseline path is relative to the policy file.
"""

from __future__ import annotations

import os
from typing import Literal

import msgspec

from codegold.errors import SchemaError
from codegold.model._files import load_structured, located_error

POLICY_FORMAT = 1
Metric = Literal["hit_rate", "mean_group_recall", "mrr", "ndcg", "forbidden_rate",
                 "revision_mismatch_rate"]
ZeroTolerance = Literal["forbidden_sources", "revision_mismatches", "invalid_cases",
                        "missing_cases"]


class Rule(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    metric: Metric
    min: float | None = None
    max: float | None = None
    slice: str | None = None
    min_cases: int = 1

    def describe(self) -> str:
        bound = " and ".join(
            part for part in (f">= {self.min:g}" if self.min is not None else "",
                              f"<= {self.max:g}" if self.max is not None else "") if part)
        return f"{self.metric} {bound} on {self.slice or 'all cases'}"


class Baseline(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    results: str
    max_new_failures: int = 0


class Policy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    format: int
    rules: list[Rule] = msgspec.field(default_factory=list)
    zero_tolerance: list[ZeroTolerance] = msgspec.field(default_factory=list)
    baseline: Baseline | None = None


_SLICE_DIMENSIONS = ("query_class=", "tag:", "language=", "role=")


def load_policy(path: str) -> Policy:
    doc = load_structured(path, "gate policy")
    if not isinstance(doc.data, dict):
        raise SchemaError("expected a mapping with 'format: 1' and 'rules'", path=path)
    try:
        policy = msgspec.convert(doc.data, Policy)
    except msgspec.ValidationError as err:
        raise located_error(doc, doc.data, str(err)) from None
    if policy.format != POLICY_FORMAT:
        raise SchemaError(f"unsupported policy format {policy.format}; expected {POLICY_FORMAT}",
                          path=path, field="format")
    rules_raw = doc.data.get("rules") or []
    for index, rule in enumerate(policy.rules):
        line = doc.line_of(rules_raw[index]) if index < len(rules_raw) else None
        if rule.min is None and rule.max is None:
            raise SchemaError(f"rule on {rule.metric} sets neither 'min' nor 'max'",
                              path=path, line=line, field="rules")
        for bound in (rule.min, rule.max):
            if bound is not None and not 0.0 <= bound <= 1.0:
                raise SchemaError(f"rule on {rule.metric}: bounds are rates in [0, 1], found {bound}",
                                  path=path, line=line, field="rules")
        if rule.slice is not None and not (rule.slice.startswith(_SLICE_DIMENSIONS) and "=" in rule.slice):
            raise SchemaError(
                f"slice {rule.slice!r} is not a slice key; expected e.g. 'query_class=descriptive', "
                "'tag:risk=high', 'language=python' or 'role=definition'",
                path=path, line=line, field="slice")
    if policy.baseline is not None and not os.path.isabs(policy.baseline.results):
        base = os.path.join(os.path.dirname(os.path.abspath(path)), policy.baseline.results)
        policy = msgspec.structs.replace(
            policy, baseline=msgspec.structs.replace(policy.baseline, results=base))
    return policy
