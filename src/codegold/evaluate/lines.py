"""Line-level figures of one case (docs/concepts.md, "Line-level figures").

Everything is counted in (file, line) pairs, held as merged runs of lines per file
(:class:`LineSet`), so a chunk or a label spanning millions of lines costs one run, not a
million pairs. The gold lines of a required group are the lines of one of its targets
that carry a span (``Target.lines``), since any one target satisfies the group: the one
of which the whole ranking (every depth, no budget) shows the most lines, the first
listed on a tie. Choosing on the whole ranking, not on what fits the budget, keeps the
gold lines of an attempt fixed, so line recall never falls as the budget grows.
A case has line figures when at least one required group has a target with lines.

- ``seen`` (S): the distinct lines of the visible chunks (a chunk cut at the budget
  adds only its first lines); ``read``: the same lines counted every time a chunk holds
  them. A chunk outside the repository (``outside_repo``) was read, but its lines are
  never repository lines: they count in S and ``read``, never in S ∩ G. Chunks of a file
  an agent created (``created``) are neither.
- recall = |S ∩ G| / |G|; precision = |S ∩ G| / |S| (0 when nothing was seen);
  F1 = 2PR / (P + R) (0 when both are 0); efficiency = |S ∩ G| / read (0 when nothing was
  read); redundancy = 1 - |S| / read (0 when nothing was read).
- evidence drop (only when the attempt records ``final``) concerns only the groups a fix
  must change (``edit: true``): the gold lines of those groups seen that no carried
  target holds, over the gold lines of those groups seen. A patch (``final`` holding
  ``diff --git`` / ``+++`` headers) carries a target when it changes code in the target's
  file (:mod:`codegold.evaluate.patches`: a comment- or whitespace-only change is none);
  an answer (any other text) carries it when it names the target's file path, its file
  name, or its symbol (the last part of a dotted name). None when no gold line of such a
  group was seen (nothing could be dropped); read-only groups are never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from codegold.evaluate.patches import code_changed_files
from codegold.evaluate.patches import patch_files as patch_files
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

Run = tuple[int, int]  # first, last (inclusive)
# Outside-repository chunks are keyed apart: no repository path starts with a NUL.
_OUTSIDE = "\0outside:"


def _merged(runs: list[Run]) -> list[Run]:
    runs.sort()
    out: list[Run] = []
    for first, last in runs:
        if out and first <= out[-1][1] + 1:
            if last > out[-1][1]:
                out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))
    return out


def _meet(a: list[Run], b: list[Run]) -> list[Run]:
    out: list[Run] = []
    i = j = 0
    while i < len(a) and j < len(b):
        first, last = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if first <= last:
            out.append((first, last))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _minus(a: list[Run], b: list[Run]) -> list[Run]:
    out: list[Run] = []
    j = 0
    for first, last in a:
        while j < len(b) and b[j][1] < first:
            j += 1
        k = j
        while first <= last and k < len(b) and b[k][0] <= last:
            if b[k][0] > first:
                out.append((first, b[k][0] - 1))
            first = max(first, b[k][1] + 1)
            k += 1
        if first <= last:
            out.append((first, last))
    return out


class LineSet:
    """A set of (file, line) pairs as sorted, disjoint, non-adjacent runs per file."""

    __slots__ = ("runs",)

    def __init__(self, runs: dict[str, list[Run]] | None = None) -> None:
        self.runs: dict[str, list[Run]] = runs or {}

    @classmethod
    def of(cls, spans: Iterable[tuple[str, int, int]]) -> LineSet:
        """The lines of ``(file, first, last)`` spans (an empty span adds nothing)."""
        pending: dict[str, list[Run]] = {}
        for path, first, last in spans:
            if first <= last:
                pending.setdefault(path, []).append((first, last))
        return cls({path: _merged(runs) for path, runs in pending.items()})

    def __len__(self) -> int:
        return sum(last - first + 1 for runs in self.runs.values() for first, last in runs)

    def __bool__(self) -> bool:
        return bool(self.runs)

    def __and__(self, other: LineSet) -> LineSet:
        out = {}
        for path, runs in self.runs.items():
            theirs = other.runs.get(path)
            if theirs:
                met = _meet(runs, theirs)
                if met:
                    out[path] = met
        return LineSet(out)

    def __or__(self, other: LineSet) -> LineSet:
        out = dict(self.runs)
        for path, runs in other.runs.items():
            out[path] = _merged([*out[path], *runs]) if path in out else runs
        return LineSet(out)

    def __sub__(self, other: LineSet) -> LineSet:
        out = {}
        for path, runs in self.runs.items():
            theirs = other.runs.get(path)
            rest = _minus(runs, theirs) if theirs else runs
            if rest:
                out[path] = rest
        return LineSet(out)

    def pairs(self) -> set[tuple[str, int]]:
        """Every (file, line) pair: for tests of small sets only."""
        return {(path, line) for path, runs in self.runs.items()
                for first, last in runs for line in range(first, last + 1)}


def _chunk_key(chunk: Chunk) -> str:
    return _OUTSIDE + chunk.file if chunk.outside_repo else normalize_path(chunk.file)


def seen_lines(visible: Visible) -> tuple[LineSet, int]:
    """The distinct (file, line) pairs seen, and how many lines were read in all."""
    read = 0
    spans = []
    for part in visible.seen:
        if part.size == 0 or part.chunk.created:  # the agent's own files: no context
            continue
        read += part.size
        spans.append((_chunk_key(part.chunk), part.first, part.last))
    return LineSet.of(spans), read


def target_lines(target: Target) -> LineSet:
    if target.lines is None:
        return LineSet()
    first, last = target.lines
    return LineSet.of([(normalize_path(target.file), first, last)])


def gold_groups(case: Case) -> list[EvidenceGroup]:
    """The required groups that have gold lines."""
    return [g for g in case.groups
            if g.required and any(t.lines is not None for t in g.any_of)]


def chosen_targets(groups: Sequence[EvidenceGroup], seen: LineSet) -> list[Target]:
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


def _recall(gold: LineSet, seen: LineSet, total: int) -> float:
    return len(gold & seen) / total if total else 0.0


def carried(target: Target, final: str, files: set[str] | None) -> bool:
    """Whether the final patch or answer carries ``target`` (module docstring): ``files``
    are the files in which a patch changes code, None for an answer."""
    path = normalize_path(target.file)
    if files is not None:
        return path in files
    names = [path, path.rsplit("/", 1)[-1]]
    if target.symbol:
        names.append(re.split(r"[.#:]+", target.symbol)[-1])
    return any(name and name in final for name in names)


def _evidence_drop(groups: Sequence[EvidenceGroup], targets: Sequence[Target], seen: LineSet,
                   final: str) -> tuple[float | None, list[str]]:
    """The share of the edit groups' gold lines seen that the final leaves out, and the
    targets it leaves out (module docstring)."""
    edited = [t for g, t in zip(groups, targets, strict=True) if g.edit]
    if not edited:
        return None, []
    files = code_changed_files(final)
    hit = LineSet()
    kept = LineSet()
    dropped: list[str] = []
    for target in edited:
        got = target_lines(target) & seen
        if not got:
            continue
        hit |= got
        if carried(target, final, files):
            kept |= got
        else:
            first, last = target.lines or (0, 0)
            dropped.append(f"{target.file}:{first}-{last}"
                           + (f" ({target.symbol})" if target.symbol else ""))
    if not hit:
        return None, []
    # A line two targets share is kept when either is carried.
    return len(hit - kept) / len(hit), dropped


def line_figures(case: Case, attempt: Attempt | None, visible: Visible,
                 ranked: Sequence[Chunk]) -> LineFigures | None:
    """The case's line-level figures; None when no required group has gold lines."""
    groups = gold_groups(case)
    if not groups:
        return None
    seen, read = seen_lines(visible)
    shown, _ = seen_lines(at_cutoff(len(ranked), ranked))
    targets = chosen_targets(groups, shown)
    gold = LineSet()
    for target in targets:
        gold |= target_lines(target)
    total = len(gold)
    hit = gold & seen
    gold_seen, seen_count = len(hit), len(seen)
    recall = gold_seen / total if total else 0.0
    precision = gold_seen / seen_count if seen_count else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    recall_at = {factor_label(f): _recall(gold, seen_lines(scaled_visible(case, ranked, f))[0],
                                          total)
                 for f in BUDGET_FACTORS}
    drop: float | None = None
    dropped: list[str] = []
    final = attempt.final if attempt is not None else None
    if final is not None and gold_seen:
        drop, dropped = _evidence_drop(groups, targets, seen, final)
    return LineFigures(
        recall=recall, precision=precision, f1=f1,
        efficiency=gold_seen / read if read else 0.0,
        redundancy=1 - seen_count / read if read else 0.0,
        gold=total, seen=seen_count, gold_seen=gold_seen, read=read,
        groups=[g.id for g in groups], recall_at=recall_at, evidence_drop=drop, dropped=dropped)
