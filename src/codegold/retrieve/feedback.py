"""Pseudo-relevance feedback: the words of the best first answers, searched again.

A question and the code that answers it often share few words ("why does the worker hang
on shutdown" against `drain_queue`, `join`, `sentinel`), yet the chunks that the
question's own words rank first sit beside the answer and use its vocabulary. Feedback
takes the best ``documents`` chunks of a first BM25 search, weighs each of their terms by
its share of each chunk's tokens (scaled by the chunk's score relative to the best) times
its inverse document frequency in the index, and searches again with the ``terms`` best
of them added at a fraction of a question word's weight. It is the relevance-model
expansion of text retrieval (RM3), read over the index's own tokens; nothing is learnt
outside the repository.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence


def expansion_terms(first: Sequence[tuple[str, float]],
                    tokens: Mapping[str, tuple[list[str], list[str]]], *,
                    asked: Collection[str], document_frequency: Callable[[str], int],
                    indexed: int, skip: Collection[str], count: int, limit: int,
                    fold: Callable[[str], str] = lambda w: w) -> list[str]:
    """The ``limit`` best feedback terms from the ``count`` best hits of ``first`` (chunk
    id, score; best first) in an index of ``indexed`` chunks. ``tokens``: each chunk's
    (symbol, body) tokens; ``fold`` maps a token to the engine's term; ``asked``: the
    question's terms (in that form), never returned; ``skip``: words that carry no
    meaning (stop words); terms the index holds in fewer than two chunks are left out
    (a typo, a hash)."""
    top = [(chunk_id, score) for chunk_id, score in first[:count] if score > 0]
    if not top or limit <= 0 or indexed <= 0:
        return []
    best = top[0][1]
    weight: dict[str, float] = {}
    for chunk_id, score in top:
        symbols, body = tokens.get(chunk_id, ([], []))
        kept = [fold(t) for t in (*symbols, *body)
                if len(t) > 2 and t.isalpha() and t not in skip]
        if not kept:
            continue
        for term, n in Counter(kept).items():
            if term not in asked:
                weight[term] = weight.get(term, 0.0) + n / len(kept) * score / best
    scored: list[tuple[float, str]] = []
    for term, value in weight.items():
        df = document_frequency(term)
        if df >= 2:
            scored.append((value * math.log(indexed / df), term))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [term for _, term in scored[:limit]]
