"""Aggregates over case results, overall and per slice, always with their case counts.

Rates are over *scored* cases (pass + fail + missing); invalid cases are counted apart
and never averaged in, because their run cannot speak for the pinned revision.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from codegold.model import Aggregates, Case, CaseResult, SliceResult
from codegold.model.budget import BUDGET_FACTORS, factor_label
from codegold.model.languages import language_of
from codegold.model.metrics import LINE_METRICS, METRICS, scored_cases, trend_figures


def aggregate(results: Sequence[CaseResult]) -> Aggregates:
    counts = {"pass": 0, "fail": 0, "invalid": 0, "missing": 0}
    for r in results:
        counts[r.status] += 1
    scored = scored_cases(results)
    figures: dict[str, Any] = {m.name: m.aggregate(scored) for m in METRICS}
    with_lines = [c.line_figures for c in scored if c.line_figures is not None]
    if with_lines:
        # Line-level figures only where some case has gold lines (else left out, so plain
        # runs keep their bytes), each with the number of cases behind it.
        figures.update({m.name: m.aggregate(scored) for m in LINE_METRICS})
        figures["line_cases"] = len(with_lines)
        figures["final_cases"] = sum(f.evidence_drop is not None for f in with_lines)
        figures["budget_trend"] = {
            f"line_recall@{label}": math.fsum(f.recall_at.get(label, 0.0) for f in with_lines)
            / len(with_lines)
            for label in (factor_label(x) for x in BUDGET_FACTORS)}
    return Aggregates(
        cases=len(results), scored=len(scored), pass_=counts["pass"], fail=counts["fail"],
        invalid=counts["invalid"], missing=counts["missing"], **figures,
        trend=trend_figures(scored),
    )


def slice_keys(case: Case) -> list[tuple[str, str]]:
    """(dimension, value) pairs a case belongs to; a case may sit in several of one kind."""
    keys: list[tuple[str, str]] = [("query_class", case.query_class)]
    keys.extend((f"tag:{name}", value) for name, value in case.tags.items())
    languages: set[str] = set()
    roles: set[str] = set()
    for group in case.groups:
        if not group.required:
            continue
        for target in group.any_of:
            language = language_of(target.file)
            if language:
                languages.add(language)
            roles.update(target.roles or ("any",))
    keys.extend(("language", lang) for lang in sorted(languages))
    keys.extend(("role", role) for role in sorted(roles))
    return keys


def slice_results(results: Iterable[CaseResult]) -> list[SliceResult]:
    members: dict[tuple[str, str], list[CaseResult]] = defaultdict(list)
    for result in results:
        for key in result.slices:
            dim, _, value = key.partition("=")
            members[(dim, value)].append(result)
    return [
        SliceResult(key=f"{dim}={value}", dimension=dim, value=value, metrics=aggregate(rows))
        for (dim, value), rows in sorted(members.items())
    ]
