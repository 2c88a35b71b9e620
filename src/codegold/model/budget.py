"""What the answer stage (or an agent's model) saw: the visible prefix at a cutoff or budget.

A case is judged at a chunk cutoff ``k`` (visible = ``ranked[:k]``) or at a budget of
lines, tokens or steps (docs/concepts.md, "Budgets"): visible is then the longest prefix
of ``ranked`` within the budget.

- ``lines``: each chunk costs its lines (``end_line - start_line + 1``; without a span,
  the lines of its excerpt; else nothing). The chunk that crosses the budget is cut
  there: it is visible, and only its first lines (as many as the budget has left) count
  as seen.
- ``tokens``: each chunk costs its ``tokens``, else ``ceil(len(excerpt) / 4)``, else
  nothing. The crossing chunk is cut in proportion: of its ``L`` lines, the first
  ``floor(L * left / tokens)`` count; when none would, it is not visible.
- ``steps``: a chunk is visible while its ``step`` (the turn that put it in the context;
  none counts as 0, a one-shot retriever's single turn) is at most the limit; the first
  chunk of a later step ends the prefix (chunks are never cut).

Pure functions over :mod:`codegold.model` records, shared by the scorer, diagnosis and
the flakiness check so that all of them see the same prefix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from codegold.model.attempts import Chunk
from codegold.model.cases import Budget, Case

# Multipliers of a case's budget (or cutoff) at which line recall is also reported, so a
# run shows how much more (or less) context would have bought.
BUDGET_FACTORS: tuple[float, ...] = (0.5, 1.0, 2.0)


def factor_label(factor: float) -> str:
    """``0.5`` -> ``"0.5x"``, ``2.0`` -> ``"2x"``."""
    return f"{factor:g}x"


def scaled(limit: int, factor: float) -> int:
    """``limit`` times ``factor``, rounded down, at least 1."""
    return max(1, math.floor(limit * factor))


def chunk_lines(chunk: Chunk) -> int:
    """How many lines a chunk puts in the context (0 when it says nothing of its size)."""
    if chunk.start_line is not None and chunk.end_line is not None:
        return max(0, chunk.end_line - chunk.start_line + 1)
    if chunk.excerpt:
        return len(chunk.excerpt.splitlines())
    return 0


def chunk_tokens(chunk: Chunk) -> int:
    """A chunk's size in tokens: its ``tokens``, else a quarter of its excerpt's length."""
    if chunk.tokens is not None:
        return chunk.tokens
    if chunk.excerpt:
        return math.ceil(len(chunk.excerpt) / 4)
    return 0


@dataclass(frozen=True)
class Seen:
    """One visible chunk and the lines of it that count as seen: ``first``..``last``
    (``last < first`` when none), in its file."""

    chunk: Chunk
    first: int
    last: int
    cut: bool  # crossed the budget: only its first lines count

    @property
    def size(self) -> int:
        return max(0, self.last - self.first + 1)


@dataclass(frozen=True)
class Visible:
    """The visible prefix of a ranking: ``count`` chunks, the units they used, and per
    chunk the lines that count."""

    count: int
    used: int
    seen: tuple[Seen, ...]

    @property
    def cut(self) -> Seen | None:
        return self.seen[-1] if self.seen and self.seen[-1].cut else None


def _whole(chunk: Chunk) -> Seen:
    if chunk.start_line is None or chunk.end_line is None:
        return Seen(chunk, 1, 0, False)
    return Seen(chunk, chunk.start_line, chunk.end_line, False)


def _first_lines(chunk: Chunk, count: int) -> Seen:
    if chunk.start_line is None or chunk.end_line is None:
        return Seen(chunk, 1, 0, True)
    return Seen(chunk, chunk.start_line, chunk.start_line + count - 1, True)


def within_budget(budget: Budget, ranked: Sequence[Chunk]) -> Visible:
    """The longest prefix of ``ranked`` within ``budget`` (module docstring)."""
    seen: list[Seen] = []
    used = 0
    limit = budget.limit
    for chunk in ranked:
        if budget.unit == "steps":
            if (chunk.step or 0) > limit:
                break
            seen.append(_whole(chunk))
            used = max(used, chunk.step or 0)
            continue
        cost = chunk_lines(chunk) if budget.unit == "lines" else chunk_tokens(chunk)
        if used + cost <= limit:
            seen.append(_whole(chunk))
            used += cost
            continue
        left = limit - used
        lines = chunk_lines(chunk)
        fits = left if budget.unit == "lines" else math.floor(lines * left / cost)
        if fits >= 1 and chunk.start_line is not None and chunk.end_line is not None:
            seen.append(_first_lines(chunk, min(fits, lines)))
            used = limit
        break
    return Visible(count=len(seen), used=used, seen=tuple(seen))


def at_cutoff(k: int, ranked: Sequence[Chunk]) -> Visible:
    """``ranked[:k]``, every chunk whole."""
    seen = tuple(_whole(c) for c in ranked[:k])
    return Visible(count=len(seen), used=len(seen), seen=seen)


def visible_of(case: Case, ranked: Sequence[Chunk]) -> Visible:
    """What ``case`` counts as visible of ``ranked``: at its budget, else at its cutoff."""
    budget = case.budget_or_none
    return at_cutoff(case.cutoff, ranked) if budget is None else within_budget(budget, ranked)


def scaled_visible(case: Case, ranked: Sequence[Chunk], factor: float) -> Visible:
    """The visible prefix at the case's budget (or cutoff) times ``factor``."""
    budget = case.budget_or_none
    if budget is None:
        return at_cutoff(scaled(case.cutoff, factor), ranked)
    return within_budget(Budget(unit=budget.unit, limit=scaled(budget.limit, factor)), ranked)
