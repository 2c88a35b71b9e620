"""What dense retrieval costs next to the lexical build, option by option.

One repository revision (default: pytest 8.3.0, every file the default path policy keeps)
is indexed; then, side by side on the same machine:

- ``lexical build``: ``build_index`` plus the BM25 cache (what a lexical-only index costs);
- ``full, today``: every chunk embedded as before (256 tokens, batches of 32 in index
  order, each padded to its longest text);
- ``full, sorted tNNN``: every chunk, batches sorted by token length (little padding),
  cut at NNN tokens;
- ``full t128, 2nd revision``: a second revision (``--next``) with the vector store of the
  first: only texts that changed are embedded;
- ``lazy t128, N queries``: only the candidates the other signals reach for ``--queries``
  (the issue texts of the SWE-bench development instances of that repository, when
  given), each distinct text once.

Embedding throughput is measured on a seeded sample of ``--sample`` chunks (median of
``--repeats`` rounds, interleaved) and extrapolated to the chunks each option embeds; a
2-core machine shared with other work gives noisy seconds, so compare the ratios.

Usage::

    python benchmarks/dense_cost.py --repo /work/.mirror/pytest-dev+pytest/repo \\
        --revision 8.3.0 --next 8.3.1 --sample 256 --repeats 3 \\
        --queries /work/shared/data/swebench-dev/instances.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from codegold.index import IndexReader, build_index
from codegold.retrieve.caches import VectorStore
from codegold.retrieve.config import load_config
from codegold.retrieve.dense import (
    LazyDense,
    OnnxEmbedder,
    Vectors,
    chunk_text,
    minilm_int8_embedder,
)
from codegold.retrieve.lexindex import LexicalIndex
from codegold.retrieve.reference import ReferenceRetriever


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def lexical_build(repo: Path, revision: str, out: Path) -> float:
    def build() -> None:
        build_index(repo, revision, out)
        lexical = load_config().signals.lexical
        with IndexReader.open(out) as reader:
            LexicalIndex.for_reader(reader, weights=lexical.field_weights, k1=lexical.k1,
                                    b=lexical.b)
    return _timed(build)


def today(embedder: OnnxEmbedder, texts: list[str]) -> None:
    """The embedding pass as it was: 256 tokens, batches of 32 in index order."""
    rows = embedder.token_rows(texts, 256)
    for start in range(0, len(rows), 32):
        embedder._run(rows[start:start + 32])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=Path("/work/.mirror/pytest-dev+pytest/repo"))
    parser.add_argument("--revision", default="8.3.0")
    parser.add_argument("--next", default="8.3.1", help="a later revision (store reuse)")
    parser.add_argument("--sample", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--queries", type=Path, default=None,
                        help="instances.jsonl: issue texts of this repository as queries")
    parser.add_argument("--repository", default="pytest-dev/pytest")
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--work", type=Path, default=None, help="folder for the indexes")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="dense-cost-"))

    builds = [lexical_build(args.repo, args.revision, work / f"a{n}")
              for n in range(args.repeats)]
    build_s = statistics.median(builds)
    index_a = work / "a0"
    with IndexReader.open(index_a) as reader:
        chunks = list(reader.iter_chunks())
    log(f"lexical build of {args.revision}: {build_s:.1f}s, {len(chunks)} chunks")

    embedders = {tokens: minilm_int8_embedder(max_tokens=tokens, batch_size=32)
                 for tokens in (256, 128, 96, 64)}
    sample = random.Random(0).sample([chunk_text(c) for c in chunks],
                                     min(args.sample, len(chunks)))
    per_chunk: dict[str, list[float]] = {}
    for _ in range(args.repeats):  # interleaved rounds: load changes hit every option alike
        per_chunk.setdefault("full, today (t256, b32 unsorted)", []).append(
            _timed(lambda: today(embedders[256], sample)) / len(sample))
        for tokens, embedder in embedders.items():
            per_chunk.setdefault(f"full, sorted t{tokens}", []).append(
                _timed(lambda e=embedder: e.embed(sample)) / len(sample))  # type: ignore[misc]
        log("round: " + ", ".join(f"{name} {1 / v[-1]:.1f}/s" for name, v in per_chunk.items()))
    seconds = {name: statistics.median(v) for name, v in per_chunk.items()}
    rows: list[tuple[str, int, float]] = [
        (name, len(chunks), s * len(chunks)) for name, s in seconds.items()]

    t128 = seconds["full, sorted t128"]
    if args.next:
        build_index(args.repo, args.next, work / "b", reuse_from=index_a)
        with IndexReader.open(work / "b") as reader_b:
            b_chunks = list(reader_b.iter_chunks())
        known = {chunk_text(c) for c in chunks}
        changed = len({chunk_text(c) for c in b_chunks} - known)
        rows.append((f"full t128, {args.next} after {args.revision} (store)", changed,
                     changed * t128))

    if args.queries is not None:
        issues = [json.loads(line) for line in args.queries.read_text().splitlines() if line.strip()]
        queries = [r["query"] for r in issues if r["repo"] == args.repository]
        config = load_config(overrides={"signals": {"dense": {
            "enabled": True, "mode": "lazy", "candidates": args.candidates}}})
        counting = _CountingEmbedder(embedders[128].dimensions)
        with IndexReader.open(index_a) as reader:
            lazy = LazyDense(reader, counting, VectorStore(work / "lazy-store"))
            retriever = ReferenceRetriever(reader, config, dense=lazy)
            for query in queries:
                retriever.retrieve(query, k=10)
        rows.append((f"lazy t128, {len(queries)} queries, top {args.candidates}",
                     lazy.embedded, lazy.embedded * t128))
        rows.append((f"lazy t128, per query (first touch, mean of {len(queries)})",
                     round(lazy.embedded / max(len(queries), 1)),
                     lazy.embedded / max(len(queries), 1) * t128))

    print(f"\nDense cost on {args.repository}@{args.revision}: {len(chunks)} chunks, "
          f"lexical build {build_s:.1f}s (median of {args.repeats}); embedding rates from a "
          f"sample of {len(sample)} chunks, median of {args.repeats} rounds\n")
    print("| option | chunks embedded | seconds | x lexical build | chunks/s |")
    print("|---|---|---|---|---|")
    print(f"| lexical build (index + BM25 cache) | - | {build_s:.1f} | 1.00 | - |")
    for name, count, secs in rows:
        rate = count / secs if secs else 0.0
        print(f"| {name} | {count} | {secs:.1f} | {secs / build_s:.2f} | {rate:.1f} |")
    return 0


class _CountingEmbedder:
    """Counts what lazy mode would embed without paying for it (the rate comes from the
    sample above); vectors are a fixed function of the text."""

    id = "count"
    version = "1"

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, hash(text) % self.dimensions] = 1.0
        return out


if __name__ == "__main__":
    sys.exit(main())
