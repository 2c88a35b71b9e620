"""Fusing several signals' rankings into one: reciprocal rank fusion and weighted scores.

Both return, per chunk id, the fused score and each signal's contribution to it (so that
``codegold search --explain`` can show where a score came from). Ties break on chunk id,
so fusion is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import msgspec

Ranking = Sequence[tuple[str, float]]


class Fused(msgspec.Struct, frozen=True, kw_only=True):
    chunk_id: str
    score: float
    contributions: dict[str, float]


def rrf(rankings: Mapping[str, Ranking], weights: Mapping[str, float], *, k: int = 60) -> list[Fused]:
    """Weighted reciprocal rank fusion: sum of ``weight / (k + rank)`` (rank 1-based)."""
    parts: dict[str, dict[str, float]] = {}
    for signal, ranking in rankings.items():
        weight = weights.get(signal, 1.0)
        if weight <= 0:
            continue
        for rank, (chunk_id, _score) in enumerate(ranking, start=1):
            parts.setdefault(chunk_id, {})[signal] = weight / (k + rank)
    return _finish(parts)


def weighted(rankings: Mapping[str, Ranking], weights: Mapping[str, float]) -> list[Fused]:
    """Weighted sum of min-max normalised scores (a signal's best = 1, its worst listed = 0+)."""
    parts: dict[str, dict[str, float]] = {}
    for signal, ranking in rankings.items():
        weight = weights.get(signal, 1.0)
        if weight <= 0 or not ranking:
            continue
        scores = [score for _, score in ranking]
        high, low = max(scores), min(scores)
        span = high - low
        for chunk_id, score in ranking:
            # The worst listed chunk still earns a little: being listed at all is evidence.
            norm = 1.0 if span <= 0 else 0.05 + 0.95 * (score - low) / span
            parts.setdefault(chunk_id, {})[signal] = weight * norm
    return _finish(parts)


def _finish(parts: dict[str, dict[str, float]]) -> list[Fused]:
    fused = [Fused(chunk_id=cid, score=sum(c.values()), contributions=c) for cid, c in parts.items()]
    fused.sort(key=lambda f: (-f.score, f.chunk_id))
    return fused


FUSERS: dict[str, Callable[..., list[Fused]]] = {"rrf": rrf, "weighted": weighted}
