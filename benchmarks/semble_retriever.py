#!/usr/bin/env python3
"""semble as a library behind ``command+jsonl:``: BM25 + semble's rerank, no hub.

Run with the Python of a virtual environment that has ``semble`` (never codegold's):

    PY semble_retriever.py MODEL_DIR REVISION=DIR [REVISION=DIR ...]   # serve, one JSON line per case
    PY semble_retriever.py --make-placeholder OUT_DIR

Each DIR is a work tree of that revision (``benchmarks/peers.py`` writes them from git
objects). Searches use ``alpha=0.0``: semble's hybrid score is ``alpha * semantic +
(1 - alpha) * bm25`` (each as reciprocal-rank scores), so with 0 the semantic side has no
weight, and ``rerank=True`` keeps semble's file boost, identifier boost and path
penalties. semble still embeds every chunk when it builds an index, so it needs a
model2vec model directory; ``--make-placeholder`` writes one with random vectors and a
two-token vocabulary, which satisfies the build and cannot change an ``alpha=0.0``
ranking.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def make_placeholder(out: str) -> None:
    import numpy as np
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel(vocab={"[UNK]": 0, "[PAD]": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    vectors = np.random.default_rng(0).normal(size=(2, 8)).astype(np.float32)
    StaticModel(vectors, tokenizer).save_pretrained(out)


def serve(model: str, trees: dict[str, str]) -> None:
    from semble import SembleIndex

    indexes: dict[str, Any] = {}
    for line in sys.stdin:
        request = json.loads(line)
        revision = request["revision"]
        if revision not in indexes:
            indexes[revision] = SembleIndex.from_path(trees[revision], model_path=model)
        ranked = []
        for result in indexes[revision].search(request["query"], top_k=int(request["k"]),
                                               alpha=0.0, rerank=True):
            chunk = result.chunk
            ranked.append({"chunk_id": chunk.location, "file": chunk.file_path,
                           "start_line": chunk.start_line, "end_line": chunk.end_line,
                           "revision": revision, "score": round(float(result.score), 6)})
        print(json.dumps({"format": 1, "ranked": ranked}), flush=True)


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--make-placeholder":
        make_placeholder(argv[1])
        return 0
    if len(argv) >= 2 and all("=" in a for a in argv[1:]):
        serve(argv[0], dict(a.split("=", 1) for a in argv[1:]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
