"""Deterministic train / held-out splits and label diffs of case files."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import msgspec

from codegold.errors import InputError
from codegold.model import Case
from codegold.model.cases import PriorLabel
from codegold.model.io import load_structured

SPLITS = ("train", "heldout")


def case_hash(case_id: str, seed: int) -> float:
    """A number in [0, 1) fixed by the case id and the seed alone."""
    digest = hashlib.sha256(f"{seed}:{case_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def assign(cases: Sequence[Case], train: float, *, by: str | None, seed: int) -> dict[str, str]:
    """Case id -> ``train`` or ``heldout``.

    Without ``by``, a case is in train when its hash is below ``train``: adding cases never
    moves an existing one. With ``by`` (``repository`` or ``query_class``), each stratum is
    ordered by hash and its first ``round(train * n)`` cases train, so every stratum is
    split in the same proportion; adding a case to a stratum moves at most one other.
    """
    if not 0.0 < train < 1.0:
        raise InputError(f"{{train}} must be between 0 and 1 (exclusive), found {train}",
                         settings=("train",))
    if by is None:
        return {c.id: "train" if case_hash(c.id, seed) < train else "heldout" for c in cases}
    strata: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        value = getattr(case, by)
        strata[str(value)].append(case)
    result: dict[str, str] = {}
    for members in strata.values():
        ordered = sorted(members, key=lambda c: (case_hash(c.id, seed), c.id))
        cut = round(train * len(ordered))
        for index, case in enumerate(ordered):
            result[case.id] = "train" if index < cut else "heldout"
    return result


def raw_cases(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(defaults, case stanzas) of a case file exactly as written (no defaults applied)."""
    data = load_structured(path, "cases").data
    if isinstance(data, list):
        header = [d for d in data if isinstance(d, dict) and "id" not in d]
        stanzas = [d for d in data if isinstance(d, dict) and "id" in d]
        defaults = next((h.get("defaults") for h in header if h.get("defaults")), None) or {}
        return dict(defaults), stanzas
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise InputError("expected a case file with 'cases'", path=path)
    return dict(data.get("defaults") or {}), [c for c in data["cases"] if isinstance(c, dict)]


class CaseChange(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    case_id: str
    change: str                       # added | removed | relabelled | changed
    fields: list[str] = msgspec.field(default_factory=list)
    rationale: str | None = None
    supersedes: str | None = None
    # Label versions the new file added to the case's ``supersedes`` history.
    prior_labels: list[PriorLabel] = msgspec.field(default_factory=list)
    # A relabelled case whose new version keeps no record of the label it replaced.
    history_missing: bool = False


_LABEL_FIELDS = ("groups", "forbidden", "revision", "cutoff")
_OTHER_FIELDS = ("query", "query_class", "context", "tags", "repository", "supersedes")


def describe_prior(prior: PriorLabel) -> str:
    """One line for a superseded label version: when, at which revision, what was accepted."""
    groups = "; ".join(
        f"{g.id}{'' if g.required else ' (supporting)'}: " + " | ".join(
            t.file + (f" {t.symbol}" if t.symbol else "") for t in g.any_of)
        for g in prior.groups)
    why = f" — {prior.rationale}" if prior.rationale else ""
    return f"{prior.changed_at} at {prior.revision[:12]}: {groups}{why}"


def diff_cases(old: Sequence[Case], new: Sequence[Case]) -> list[CaseChange]:
    """What changed between two versions of a case set, case by case."""
    before = {c.id: c for c in old}
    after = {c.id: c for c in new}
    changes: list[CaseChange] = []
    for case in new:
        previous = before.get(case.id)
        if previous is None:
            changes.append(CaseChange(case_id=case.id, change="added", rationale=case.rationale,
                                      prior_labels=list(case.supersedes)))
            continue
        label = [f for f in _LABEL_FIELDS if getattr(previous, f) != getattr(case, f)]
        other = [f for f in _OTHER_FIELDS if getattr(previous, f) != getattr(case, f)]
        if label or other:
            added = [p for p in case.supersedes if p not in previous.supersedes]
            relabelled = previous.groups != case.groups or previous.revision != case.revision
            changes.append(CaseChange(case_id=case.id,
                                      change="relabelled" if label else "changed",
                                      fields=label + other, rationale=case.rationale,
                                      supersedes=previous.rationale, prior_labels=added,
                                      history_missing=relabelled and not added))
    changes.extend(CaseChange(case_id=c.id, change="removed", rationale=c.rationale)
                   for c in old if c.id not in after)
    return changes
