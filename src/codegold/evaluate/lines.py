"""Line-level figures of one case (docs/concepts.md, "Line-level figures").

Everything is counted in (file, line) pairs. The gold lines of a required group are the
lines of one of its targets that carry a span (``Target.lines``), since any one target
satisfies the group: the one of which the whole ranking (every depth, no budget) shows
the most lines, the first listed on a tie. Choosing on the whole ranking, not on what
fits the budget, keeps the gold lines of an attempt fixed, so line recall never falls as
the budget grows.
A case has line figures when at least one required group has a target with lines.

- ``seen`` (S): the distinct lines of the visible chunks (a chunk cut at the budget
  adds only its first lines); ``read``: the same lines counted every time a chunk holds
  them. Chunks of a file an agent created (``created``) are neither.
- recall = |S ∩ G| / |G|; precision = |S ∩ G| / |S| (0 when nothing was seen);
  F1 = 2PR / (P + R) (0 when both are 0); efficiency = |S ∩ G| / read (0 when nothing was
  read); redundancy = 1 - |S| / read (0 when nothing was read).
- evidence drop (only when the attempt records ``final``): the gold lines seen that no
  carried target holds, over the gold lines seen. A patch (``final``
  holding ``diff --git`` / ``+++`` headers) carries a target when it changes the target's
  file; an answer (any other text) carries it when it names the target's file path, its
  file name, or its symbol (the last part of a dotted name). None when no gold line was
  seen (nothing could be dropped).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from codegold.model import Attempt, Case, Chunk, EvidenceGroup, Target
from codegold.model.budget import (
    BUDGET_FACTORS,
    Visible,
    at_cutoff,
    factor_label,
    scaled_visible,
)
from codegold.model.paths import normalize_path
from codegold.model.results import LineFigures

Line = tuple[str, int]

_PATCH_FILE = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?(\S+)|^diff --git a/(\S+) b/(\S+)",
                         re.MULTILINE)


def seen_lines(visible: Visible) -> tuple[set[Line], int]:
    """The distinct (file, line) pairs seen, and how many lines were read in all."""
    seen: set[Line] = set()
    read = 0
    for part in visible.seen:
        if part.size == 0 or part.chunk.created:  # the agent's own files: no context
            continue
        path = normalize_path(part.chunk.file)
        read += part.size
        seen.update((path, line) for line in range(part.first, part.last + 1))
    return seen, read


def target_lines(target: Target) -> set[Line]:
    if target.lines is None:
        return set()
    path = normalize_path(target.file)
    first, last = target.lines
    return {(path, line) for line in range(first, last + 1)}


def gold_groups(case: Case) -> list[EvidenceGroup]:
    """The required groups that have gold lines."""
    return [g for g in case.groups
            if g.required and any(t.lines is not None for t in g.any_of)]


def chosen_targets(groups: Sequence[EvidenceGroup], seen: set[Line]) -> list[Target]:
    """Per group, the target with lines of which most were seen (first on a tie)."""
    chosen = []
    for group in groups:
        best: Target | None = None
        best_seen = -1
        for target in group.any_of:
            if target.lines is None:
                continue
            count = len(target_lines(target) & seen)
            if count > best_seen:
                best, best_seen = target, count
        if best is not None:
            chosen.append(best)
    return chosen


def _recall(gold: set[Line], seen: set[Line]) -> float:
    return len(gold & seen) / len(gold) if gold else 0.0


def patch_files(final: str) -> set[str] | None:
    """The files a patch changes; None when ``final`` is not a patch."""
    found: set[str] = set()
    for match in _PATCH_FILE.finditer(final):
        for path in match.groups():
            if path and path != "/dev/null":
                found.add(normalize_path(path))
    return found or None


def carried(target: Target, final: str, files: set[str] | None) -> bool:
    """Whether the final patch or answer carries ``target`` (module docstring)."""
    path = normalize_path(target.file)
    if files is not None:
        return path in files
    names = [path, path.rsplit("/", 1)[-1]]
    if target.symbol:
        names.append(re.split(r"[.#:]+", target.symbol)[-1])
    return any(name and name in final for name in names)


def line_figures(case: Case, attempt: Attempt | None, visible: Visible,
                 ranked: Sequence[Chunk]) -> LineFigures | None:
    """The case's line-level figures; None when no required group has gold lines."""
    groups = gold_groups(case)
    if not groups:
        return None
    seen, read = seen_lines(visible)
    shown, _ = seen_lines(at_cutoff(len(ranked), ranked))
    targets = chosen_targets(groups, shown)
    gold: set[Line] = set()
    for target in targets:
        gold |= target_lines(target)
    hit = gold & seen
    recall = len(hit) / len(gold) if gold else 0.0
    precision = len(hit) / len(seen) if seen else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    recall_at = {factor_label(f): _recall(gold, seen_lines(scaled_visible(case, ranked, f))[0])
                 for f in BUDGET_FACTORS}
    drop: float | None = None
    dropped: list[str] = []
    final = attempt.final if attempt is not None else None
    if final is not None and hit:
        files = patch_files(final)
        kept: set[Line] = set()
        for target in targets:
            got = target_lines(target) & seen
            if not got:
                continue
            if carried(target, final, files):
                kept |= got
            else:
                first, last = target.lines or (0, 0)
                dropped.append(f"{target.file}:{first}-{last}"
                               + (f" ({target.symbol})" if target.symbol else ""))
        # A line two targets share is kept when either is carried.
        drop = len(hit - kept) / len(hit)
    return LineFigures(
        recall=recall, precision=precision, f1=f1,
        efficiency=len(hit) / read if read else 0.0,
        redundancy=1 - len(seen) / read if read else 0.0,
        gold=len(gold), seen=len(seen), gold_seen=len(hit), read=read,
        groups=[g.id for g in groups], recall_at=recall_at, evidence_drop=drop, dropped=dropped)
