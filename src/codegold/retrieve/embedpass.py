"""The full dense pass: every chunk of one or many indexes embedded once, ahead of runs.

``codegold index embed`` runs it. The chunk texts of all the indexes are read first;
texts the vector store already holds (any revision embedded them before) and repeated
texts are left out; the rest are embedded in batches, each batch a job on an executor:
in this process, or Ray tasks (``--executor ray[://ADDRESS]``), each on a GPU when asked
(``gpus`` per task; the ONNX embedders then run on CUDA where the worker's onnxruntime
can). Workers return vectors; this process alone writes them, to the content-addressed
vector store, and then each index's full vector cache (what ``dense.mode: full`` loads),
so a later run embeds nothing, in either dense mode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from codegold.errors import CodeIndexError
from codegold.execute.base import Executor, LocalExecutor
from codegold.index.store import IndexReader
from codegold.retrieve.caches import VectorStore, vector_key
from codegold.retrieve.config import CHUNK_TOKENS
from codegold.retrieve.dense import DenseIndex, Embedder, chunk_text, default_store, make_embedder

BATCH_TEXTS = 256


@dataclass(frozen=True)
class EmbedJob:
    """One batch of texts for a worker (picklable)."""

    spec: str
    max_tokens: int
    batch_size: int
    device: str
    texts: tuple[str, ...]


@dataclass(frozen=True)
class EmbedOutput:
    """A worker's vectors for an :class:`EmbedJob`, in its texts' order, and the id of
    the embedder that made them (the driver checks it is its own)."""

    embedder_id: str
    vectors: np.ndarray[Any, np.dtype[np.float32]]


# One embedder per worker process and settings: loading a model costs seconds.
_LOADED: dict[tuple[str, int, int, str], Embedder] = {}


def embed_job(job: EmbedJob) -> EmbedOutput:
    """What a worker runs: the job's texts embedded (model loaded once per process)."""
    key = (job.spec, job.max_tokens, job.batch_size, job.device)
    embedder = _LOADED.get(key)
    if embedder is None:
        embedder = _LOADED[key] = make_embedder(job.spec, max_tokens=job.max_tokens,
                                                batch_size=job.batch_size, device=job.device)
    vectors = np.ascontiguousarray(embedder.embed(list(job.texts)), dtype=np.float32)
    return EmbedOutput(embedder.id, vectors)


@dataclass(frozen=True)
class EmbedProgress:
    """``done`` of ``total`` texts embedded (``stage`` ``embedding``), or ``done`` of
    ``total`` indexes given their vector cache (``stage`` ``caching``)."""

    stage: str
    done: int
    total: int


@dataclass(frozen=True)
class EmbedSummary:
    """What :func:`embed_indexes` did."""

    embedder: str
    indexes: int
    chunks: int
    embedded: int  # distinct texts embedded now
    reused: int    # chunks whose vector the store already held (or a repeated text)
    store: Path


def embed_indexes(index_dirs: Sequence[Path], spec: str, *, max_tokens: int = CHUNK_TOKENS,
                  batch_size: int = 32, store: Path | None = None,
                  executor: Executor | None = None, gpus: float = 0.0,
                  batch_texts: int = BATCH_TEXTS,
                  progress: Callable[[EmbedProgress], None] | None = None) -> EmbedSummary:
    """Embed every chunk of ``index_dirs`` with the embedder ``spec`` (as the reference
    retriever's ``signals.dense`` settings name it), on ``executor`` (None: here), and
    write the vectors to ``store`` (default: where the retriever looks for them) and each
    index's vector cache."""
    if not index_dirs:
        raise CodeIndexError("no index to embed")
    pool = executor or LocalExecutor()
    device = "gpu" if gpus > 0 else "cpu"
    first = IndexReader.open(index_dirs[0])
    try:
        folder = store if store is not None else default_store(first)
    finally:
        first.close()
    vectors = VectorStore(folder)
    # Filling the store is the point of this pass: one that cannot be written is an error
    # here, where a run would quietly keep its vectors in memory.
    if not vectors.writable():
        raise CodeIndexError(f"cannot write the vector store at {folder}: expected a folder "
                             "this user can create and write (give another with {store})",
                             settings=("store",))
    # The driver's embedder names the vectors (and loads the model once when local).
    local = make_embedder(spec, max_tokens=max_tokens, batch_size=batch_size)
    if pool.in_process:
        _LOADED[(spec, max_tokens, batch_size, device)] = local
    wanted: dict[bytes, str] = {}  # key -> text, the texts no store row holds yet
    chunks = 0
    for index_dir in index_dirs:
        with IndexReader.open(index_dir) as reader:
            texts: dict[bytes, str] = {}
            for chunk in reader.iter_chunks():
                text = chunk_text(chunk)
                texts[vector_key(local.id, text)] = text
                chunks += 1
        held = vectors.get_many([k for k in texts if k not in wanted], local.dimensions)
        wanted.update((k, t) for k, t in texts.items() if k not in held)
    # Sorted by length, so each batch pads little; the order is fixed for a given input.
    todo = sorted(wanted.items(), key=lambda item: (len(item[1]), item[0]))
    jobs = [EmbedJob(spec, max_tokens, batch_size, device,
                     tuple(text for _, text in todo[start:start + batch_texts]))
            for start in range(0, len(todo), batch_texts)]
    done = 0
    for position, output in pool.map(embed_job, jobs, gpus=gpus):
        if output.embedder_id != local.id:
            raise CodeIndexError(
                f"a worker's embedder is {output.embedder_id}, this machine's {local.id}: "
                "install the same codegold[dense] packages on every worker")
        batch = todo[position * batch_texts:position * batch_texts + len(jobs[position].texts)]
        if len(output.vectors) != len(batch):
            raise CodeIndexError(f"a worker returned {len(output.vectors)} vectors for "
                                 f"{len(batch)} texts")
        vectors.put_many({key: row for (key, _), row in zip(batch, output.vectors, strict=True)})
        done += len(batch)
        if progress is not None:
            progress(EmbedProgress("embedding", done, len(todo)))
    if vectors.spilled:
        raise CodeIndexError(f"could not write every vector to the store at {folder} (disk "
                             "full?); nothing was cached beside the indexes")
    for number, index_dir in enumerate(index_dirs, start=1):
        with IndexReader.open(index_dir) as reader:
            # Every vector is in the store now: this only assembles and saves the cache.
            DenseIndex.open(reader, local, store=vectors)
        if progress is not None:
            progress(EmbedProgress("caching", number, len(index_dirs)))
    return EmbedSummary(local.id, len(index_dirs), chunks, len(todo), chunks - len(todo),
                        folder)
