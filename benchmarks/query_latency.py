"""Query latency of the reference retriever on a large index, beside bm25s alone.

Builds (or takes, with ``--index``) an index of at least ``--chunks`` chunks: by default a
generated Python repository whose functions use a shared vocabulary of identifiers, so
that queries match many chunks the way they do in real code. Then times, per query:

- ``bm25s``: bm25s alone over the same chunks (tokens from ``codegold.index.tokens``),
  index held in memory: the floor for a lexical search;
- ``reference``: the reference retriever without dense (analysis, four signals, fusion,
  filters, rerank, expansion), with its default in-memory BM25 (cached beside the index);
- ``reference/ltr``: the same with the learnt ranker on every query (by default it ranks
  only issue-length queries, ``ranker.min_query_chars``);
- ``reference/fts5``: the same with the SQLite FTS5 lexical backend (its in-memory FTS5
  table is built by the first query, timed apart);
- ``reference+dense``: the same with the MiniLM dense signal (``--dense``; vectors are
  computed once and cached beside the index; their build time is reported apart).

Queries mix exact identifiers, qualified names, descriptive questions and stack traces.
Prints p50/p95/max in milliseconds.

Usage::

    python benchmarks/query_latency.py --chunks 50000 --queries 300
    python benchmarks/query_latency.py --index path/to/index --dense
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from codegold.index import IndexReader, build_index
from codegold.index.tokens import code_tokens
from codegold.retrieve.config import load_config
from codegold.retrieve.reference import ReferenceRetriever

FUNCTIONS_PER_FILE = 25
WORDS = ["session", "token", "refresh", "user", "account", "invoice", "cart", "order", "payment", "price", "tax", "total", "parse", "render", "cache", "store", "load", "save", "fetch", "update", "delete", "create", "validate", "check", "config", "setting", "option", "handler", "request", "response", "route", "client", "server", "queue", "job", "retry", "timeout", "error", "message", "event", "stream", "buffer", "record", "index", "search", "rank", "score", "chunk", "symbol", "file", "path", "report", "metric", "limit", "window", "batch", "worker", "lock", "state"]


def _name(rng: random.Random) -> str:
    return "_".join(rng.sample(WORDS, rng.choice((2, 3))))


def generate_repo(root: Path, chunks: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    files = chunks // FUNCTIONS_PER_FILE + 1
    for f in range(files):
        folder = root / "src" / f"pkg{f % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        body = [f'"""Module {f}: {" ".join(rng.sample(WORDS, 6))}."""', ""]
        for n in range(FUNCTIONS_PER_FILE):
            name = f"{_name(rng)}_{f}_{n}"
            callee = _name(rng)
            body += [
                f"def {name}({rng.choice(WORDS)}, {rng.choice(WORDS)}):",
                f'    """{" ".join(rng.sample(WORDS, 8)).capitalize()}."""',
                f"    value = {callee}({rng.choice(WORDS)})",
                f"    if value.{rng.choice(WORDS)} > {rng.randint(1, 99)}:",
                f"        raise {rng.choice(WORDS).capitalize()}Error('{' '.join(rng.sample(WORDS, 4))}')",
                f"    return value.{rng.choice(WORDS)}",
                "",
            ]
        (folder / f"mod_{f}.py").write_text("\n".join(body) + "\n")
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "-c", "user.email=b@example.com", "-c", "user.name=bench", "commit",
                    "-q", "-m", "synthetic"], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def make_queries(reader: IndexReader, count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    symbols = [c.symbol for c in reader.iter_chunks() if c.symbol]
    files = sorted({c.file for c in reader.iter_chunks()})
    queries: list[str] = []
    for i in range(count):
        kind = i % 4
        if kind == 0:
            queries.append(rng.choice(symbols))
        elif kind == 1:
            queries.append(f"how does {' '.join(rng.sample(WORDS, 3))} handle an expired "
                           f"{rng.choice(WORDS)}?")
        elif kind == 2:
            queries.append(f"where is {rng.choice(symbols)} called with {rng.choice(WORDS)} "
                           f"{rng.choice(WORDS)}")
        else:
            queries.append("Traceback (most recent call last):\n"
                           f'  File "/srv/{rng.choice(files)}", line 12, in {rng.choice(symbols)}\n'
                           f"{rng.choice(WORDS).capitalize()}Error: {' '.join(rng.sample(WORDS, 5))}")
    return queries


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (f"p50 {statistics.median(ordered):7.2f}  p95 {p95:7.2f}  "
            f"max {ordered[-1]:7.2f}  (n={len(ordered)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, default=None, help="use this index instead")
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--dense", action="store_true")
    parser.add_argument("--dense-sample", type=int, default=0,
                        help="embed only N chunks for real and repeat them (timing only; "
                             "marked * in the output)")
    parser.add_argument("--run-cases", type=int, default=0,
                        help="also time `codegold run` (reference, no dense) over N cases")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the generated repo here")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    index = args.index
    if index is None:
        work = args.workdir or Path(tempfile.mkdtemp(prefix="cg-latency-"))
        index = work / "index"
        if not (index / "manifest.json").is_file():
            repo = work / "repo"
            repo.mkdir(parents=True, exist_ok=True)
            started = time.perf_counter()
            revision = generate_repo(repo, args.chunks)
            log(f"generated repository in {time.perf_counter() - started:.1f}s")
            started = time.perf_counter()
            build_index(repo, revision, index, repository="bench/synthetic")
            log(f"indexed in {time.perf_counter() - started:.1f}s")
    with IndexReader.open(index) as reader:
        total = reader.chunk_count()
        log(f"index {index}: {total} chunks")
        queries = make_queries(reader, args.queries)

        import bm25s

        ids: list[str] = []
        corpus: list[list[str]] = []
        for chunk in reader.iter_chunks():
            ids.append(chunk.id)
            corpus.append(code_tokens(chunk.file + " " + " ".join(chunk.symbols) + " " + chunk.text))
        started = time.perf_counter()
        bm25 = bm25s.BM25()
        bm25.index(bm25s.tokenization.Tokenized(*_vocab_ids(corpus)), show_progress=False)
        log(f"bm25s indexed in {time.perf_counter() - started:.1f}s")
        vocab = _VOCAB
        timings: dict[str, list[float]] = {"bm25s": [], "reference": []}
        for query in queries:
            started = time.perf_counter()
            tokens = [vocab[t] for t in code_tokens(query) if t in vocab]
            if tokens:
                bm25.retrieve([tokens], k=args.k, show_progress=False, n_threads=1)
            timings["bm25s"].append((time.perf_counter() - started) * 1000)
        retriever = ReferenceRetriever(reader, load_config())
        started = time.perf_counter()
        retriever.retrieve(queries[0], k=args.k)  # warm: lexical cache, path table, pages
        log(f"first query (loads or builds the lexical cache) {time.perf_counter() - started:.2f}s")
        for query in queries:
            started = time.perf_counter()
            retriever.retrieve(query, k=args.k)
            timings["reference"].append((time.perf_counter() - started) * 1000)
        # The learnt ranker runs on issue-length queries only (ranker.min_query_chars);
        # here it ranks every query, so its cost shows whatever the query's length.
        learnt = ReferenceRetriever(reader, load_config(overrides={
            "ranker": {"method": "ltr", "min_query_chars": 0}}))
        learnt.retrieve(queries[0], k=args.k)  # warm: the file-level lexical cache
        timings["reference/ltr"] = []
        for query in queries:
            started = time.perf_counter()
            learnt.retrieve(query, k=args.k)
            timings["reference/ltr"].append((time.perf_counter() - started) * 1000)
        fts = ReferenceRetriever(reader, load_config(overrides={
            "signals": {"lexical": {"backend": "fts5"}, "identifier": {"backend": "fts5"}}}))
        timings["reference/fts5"] = []
        started = time.perf_counter()
        fts.retrieve(queries[0], k=args.k)  # warm: builds the reader's in-memory FTS5 table
        log(f"first fts5 query (builds the in-memory FTS5 table) "
            f"{time.perf_counter() - started:.2f}s")
        for query in queries[: max(1, len(queries) // 3)]:
            started = time.perf_counter()
            fts.retrieve(query, k=args.k)
            timings["reference/fts5"].append((time.perf_counter() - started) * 1000)
        if args.dense:
            from codegold.retrieve.dense import DenseIndex, chunk_text, minilm_int8_embedder

            embedder = minilm_int8_embedder()
            started = time.perf_counter()
            if args.dense_sample:
                # Timing only: embed a sample for real and repeat it to every row. A query
                # costs the same (one query embedding + one exact matrix-vector product
                # over all rows) whatever the stored vectors hold.
                chunks = list(reader.iter_chunks())
                sample = embedder.embed([chunk_text(c) for c in chunks[: args.dense_sample]])
                reps = -(-len(chunks) // len(sample))
                vectors = np.tile(sample, (reps, 1))[: len(chunks)]
                dense = DenseIndex(embedder, [c.id for c in chunks], vectors)
                note = f" (vectors: {len(sample)} real, repeated to {len(chunks)} rows)"
            else:
                dense = DenseIndex.open(reader, embedder, progress=lambda done, all_: log(
                    f"  embedded {done}/{all_}") if done % 5120 == 0 or done == all_ else None)
                note = ""
            log(f"dense vectors ready in {time.perf_counter() - started:.1f}s{note}")
            config = load_config(overrides={"signals": {"dense": {"enabled": True}}})
            hybrid = ReferenceRetriever(reader, config, dense=dense)
            hybrid.retrieve(queries[0], k=args.k)
            name = "reference+dense" + ("*" if args.dense_sample else "")
            timings[name] = []
            for query in queries:
                started = time.perf_counter()
                hybrid.retrieve(query, k=args.k)
                timings[name].append((time.perf_counter() - started) * 1000)
    if args.run_cases:
        print(_time_run(index, args.run_cases, args.workers))
    print(f"\nquery latency, {total} chunks, {len(queries)} queries, k={args.k} (ms)")
    for name, samples in timings.items():
        print(f"  {name:<16} {percentiles(samples)}")
    if args.dense and args.dense_sample:
        print(f"  * dense vectors: {args.dense_sample} chunks embedded for real, repeated to "
              "every row (same per-query work, timing only)")
    return 0


def _time_run(index: Path, count: int, workers: int) -> str:
    """Write N cases for this index, run them like `codegold run`, report the wall time."""
    import json

    from codegold.adapters.registry import RetrieverOptions, close_retriever, make_retriever
    from codegold.adapters.runner import run_cases
    from codegold.index.catalog import IndexSet
    from codegold.model import load_cases

    work = Path(tempfile.mkdtemp(prefix="cg-run-"))
    with IndexReader.open(index) as reader:
        revision = reader.manifest.revision
        queries = make_queries(reader, count, seed=23)
        files = [c.file for c in reader.iter_chunks()]
    lines = [json.dumps({"format": 1, "defaults": {"revision": revision, "cutoff": 10}})]
    for i, query in enumerate(queries):
        lines.append(json.dumps({"id": f"q{i}", "query": query,
                                 "accepted": [{"file": files[(i * 7919) % len(files)]}]}))
    cases_path = work / "cases.jsonl"
    cases_path.write_text("\n".join(lines) + "\n")
    cases = load_cases(str(cases_path)).cases
    retriever = make_retriever("reference", RetrieverOptions(config=load_config()))
    started = time.perf_counter()
    summary = run_cases(cases, retriever, IndexSet.from_path(index), work / "attempts.jsonl",
                        label="reference", workers=workers)
    took = time.perf_counter() - started
    close_retriever(retriever)
    return (f"codegold run: {summary.written} cases, {workers} workers, {took:.1f}s "
            f"({summary.errors} errors; lexical cache already built)")


_VOCAB: dict[str, int] = {}


def _vocab_ids(corpus: list[list[str]]) -> tuple[list[list[int]], dict[str, int]]:
    rows = [[_VOCAB.setdefault(t, len(_VOCAB)) for t in doc] for doc in corpus]
    return rows, _VOCAB


if __name__ == "__main__":
    sys.exit(main())
