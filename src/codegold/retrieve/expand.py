"""Neighbour expansion: bring in the header a top chunk lacks.

When a ranked chunk is a later part of a split definition (``has_signature`` false) its
signature lives in the previous part or the parent chunk; the answer stage needs both.
The added chunk goes right after the one it explains, within a per-query budget.
"""

from __future__ import annotations

from codegold.index.store import IndexReader
from codegold.retrieve.config import ExpansionConfig
from codegold.retrieve.filters import Filters
from codegold.retrieve.rerank import Scored


def expand(reader: IndexReader, ranked: list[Scored], *, k: int, config: ExpansionConfig,
           filters: Filters) -> tuple[list[Scored], list[str]]:
    """Return the ranking with neighbours inserted (cut to ``k``) and the ids added."""
    if not config.enabled or config.max_added <= 0:
        return ranked[:k], []
    out: list[Scored] = []
    seen: set[str] = set()
    added: list[str] = []
    for item in ranked:
        if len(out) >= k:
            break
        chunk = item.chunk
        if chunk.id in seen:
            continue
        out.append(item)
        seen.add(chunk.id)
        if chunk.has_signature or len(added) >= config.max_added:
            continue
        neighbour_id = chunk.prev_id or chunk.parent_id
        if neighbour_id is None or neighbour_id in seen:
            continue
        neighbour = reader.get(neighbour_id)
        if neighbour is None or not filters.accepts(neighbour):
            continue
        out.append(Scored(chunk=neighbour, score=item.score * config.score_factor,
                          factors={"expanded_from": 1.0}))
        seen.add(neighbour_id)
        added.append(neighbour_id)
    return out[:k], added
