"""Dense search over an index: what is embedded for a chunk, the vectors cached beside
the index (full mode) or in the content-addressed store for the candidates only (lazy
mode), exact cosine search, and where the store sits by default."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from codegold.index.store import IndexedChunk, IndexReader
from codegold.model import EmbedderInfo
from codegold.plumbing.outputs import cache_folder, write_cache_file
from codegold.retrieve.caches import (
    DenseCacheMeta,
    VectorStore,
    dense_cache_meta_bytes,
    load_dense_cache,
    vector_key,
)
from codegold.retrieve.config import CHUNK_TOKENS
from codegold.retrieve.dense.embedders import DENSE_FORMAT, Embedder, Vectors, make_embedder


def chunk_text(chunk: IndexedChunk) -> str:
    """What is embedded for a chunk: its path and symbol give the model the context, then
    the chunk from its first line (signature, docstring, first statements) as far as the
    embedder's ``max_tokens`` reads."""
    head = chunk.file + (f" {chunk.symbol}" if chunk.symbol else "")
    return head + "\n" + chunk.text


def _embed_query(embedder: Embedder, text: str) -> Vectors:
    embed_query = getattr(embedder, "embed_query", None)
    if embed_query is not None:
        vector: Vectors = embed_query(text)
        return vector
    first: Vectors = embedder.embed([text])[0]
    return first


def embed_chunks(chunks: Sequence[IndexedChunk], embedder: Embedder, store: VectorStore | None,
                 memo: dict[str, Vectors] | None = None) -> tuple[Vectors, int]:
    """Vectors of ``chunks`` in order, and how many had to be embedded: the rest come from
    ``memo`` (by chunk id, this process) or ``store`` (by embedder id and input text)."""
    vectors = np.zeros((len(chunks), embedder.dimensions), dtype=np.float32)
    missing: list[int] = []
    for row, chunk in enumerate(chunks):
        known = memo.get(chunk.id) if memo is not None else None
        if known is not None:
            vectors[row] = known
        else:
            missing.append(row)
    keys: dict[int, bytes] = {}
    if store is not None and missing:
        keys = {row: vector_key(embedder.id, chunk_text(chunks[row])) for row in missing}
        stored = store.get_many(list(keys.values()), embedder.dimensions)
        still = []
        for row in missing:
            hit = stored.get(keys[row])
            if hit is not None:
                vectors[row] = hit
            else:
                still.append(row)
        missing = still
    if missing:
        # Identical texts (copied functions, revisions of one file) are embedded once.
        texts = list(dict.fromkeys(chunk_text(chunks[row]) for row in missing))
        fresh = dict(zip(texts, embedder.embed(texts), strict=True))
        for row in missing:
            vectors[row] = fresh[chunk_text(chunks[row])]
        if store is not None:
            store.put_many({vector_key(embedder.id, text): vector for text, vector in fresh.items()})
    if memo is not None:
        memo.update((chunk.id, vectors[row]) for row, chunk in enumerate(chunks))
    return vectors, len(missing)


def _top(ids: Sequence[str], scores: npt.NDArray[np.float32], limit: int) -> list[tuple[str, float]]:
    """The ``limit`` best (id, score), ties broken by chunk id so rankings are stable."""
    limit = min(limit, len(scores))
    if limit <= 0:
        return []
    # Every chunk tied with the last one kept competes, so ties go by id, not by position.
    threshold = np.partition(-scores, limit - 1)[limit - 1]
    reach = np.nonzero(-scores <= threshold)[0]
    order = sorted(reach.tolist(), key=lambda i: (-float(scores[i]), ids[i]))[:limit]
    return [(ids[i], float(scores[i])) for i in order]


class DenseIndex:
    """Exact cosine search over every chunk vector of one index (``mode: full``)."""

    def __init__(self, embedder: Embedder, chunk_ids: list[str], vectors: Vectors) -> None:
        self.embedder = embedder
        self.name = "dense"
        self.chunk_ids = chunk_ids
        self.vectors = vectors

    @classmethod
    def open(cls, reader: IndexReader, embedder: Embedder, *, cache_root: Path | None = None,
             progress: Callable[[int, int], None] | None = None,
             memo: dict[str, npt.NDArray[np.float32]] | None = None,
             store: VectorStore | None = None) -> DenseIndex:
        """Load the cached vectors for ``embedder``, computing and saving them when absent.

        ``memo`` maps chunk ids to vectors already computed by this embedder (chunk ids
        are content-addressed, so indexes of nearby revisions share most of them); it is
        read before embedding and filled after. ``store`` does the same across processes,
        keyed by the embedded text.
        """
        folder = (cache_root or reader.path / "dense") / embedder.id
        meta_path, vectors_path = folder / "meta.json", folder / "vectors.npy"
        build_id = reader.manifest.index_build_id
        cached = load_dense_cache(meta_path, vectors_path, cache_format=DENSE_FORMAT,
                                  build_id=build_id, dimensions=embedder.dimensions)
        if cached is not None:  # else absent, another build's, or damaged: recompute
            found = cls(embedder, *cached)
            if memo is not None:
                memo.update(zip(found.chunk_ids, found.vectors, strict=True))
            return found
        chunks = list(reader.iter_chunks())
        ids = [chunk.id for chunk in chunks]
        parts = []
        step = 512
        for start in range(0, len(chunks), step):
            parts.append(embed_chunks(chunks[start:start + step], embedder, store, memo)[0])
            if progress is not None:
                progress(min(start + step, len(chunks)), len(chunks))
        vectors = (np.concatenate(parts) if parts
                   else np.zeros((0, embedder.dimensions), dtype=np.float32))
        try:
            if cache_root is None:
                folder = cache_folder(reader.path, "dense", embedder.id)
            else:
                folder.mkdir(parents=True, exist_ok=True)
            buffer = io.BytesIO()
            np.save(buffer, vectors, allow_pickle=False)
            # vectors first, meta last: the meta names the build the vectors were made for
            write_cache_file(folder / "vectors.npy", buffer.getvalue())
            meta = DenseCacheMeta(format=DENSE_FORMAT, embedder=embedder.id,
                                  dimensions=int(vectors.shape[1]), index_build_id=build_id,
                                  chunks=len(ids), chunk_ids=ids)
            write_cache_file(folder / "meta.json", dense_cache_meta_bytes(meta))
        except OSError:
            pass  # a read-only index folder: the vectors serve this run and are not kept
        return cls(embedder, ids, vectors)

    def info(self) -> EmbedderInfo:
        """What attempts record in ``manifest.embedder`` when this signal was used."""
        return EmbedderInfo(name=self.embedder.id, version=self.embedder.version,
                            dimensions=int(self.vectors.shape[1]) if self.vectors.ndim == 2
                            else self.embedder.dimensions)

    def search(self, text: str, limit: int,
               candidates: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The ``limit`` chunks nearest to ``text`` (all chunks: ``candidates`` is ignored)."""
        if not self.chunk_ids:
            return []
        return _top(self.chunk_ids, self.vectors @ _embed_query(self.embedder, text), limit)


class LazyDense:
    """Dense scores for the chunks the other signals reached (``mode: lazy``).

    Nothing is embedded when the index is opened. A query embeds the candidates it is given
    that the vector store does not hold yet, then ranks them by cosine similarity, so a
    run pays only for chunks some query reaches, once per distinct text.
    """

    def __init__(self, reader: IndexReader, embedder: Embedder, store: VectorStore | None,
                 memo: dict[str, Vectors] | None = None) -> None:
        self.reader = reader
        self.embedder = embedder
        self.store = store
        self.memo = memo if memo is not None else {}
        self.name = "dense"
        self.embedded = 0

    def info(self) -> EmbedderInfo:
        """``version`` says the signal scored the lexical candidates only."""
        return EmbedderInfo(name=self.embedder.id, version=f"{self.embedder.version}; lazy",
                            dimensions=self.embedder.dimensions)

    def search(self, text: str, limit: int,
               candidates: Sequence[str] | None = None) -> list[tuple[str, float]]:
        if not candidates:
            return []
        ids = list(dict.fromkeys(candidates))
        missing = [cid for cid in ids if cid not in self.memo]
        if missing:
            chunks = self.reader.get_many(missing)
            _, embedded = embed_chunks(chunks, self.embedder, self.store, self.memo)
            self.embedded += embedded
        ids = [cid for cid in ids if cid in self.memo]
        if not ids:
            return []
        matrix = np.stack([self.memo[cid] for cid in ids])
        return _top(ids, matrix @ _embed_query(self.embedder, text), limit)


def default_store(reader: IndexReader) -> Path:
    """Where vectors are shared by default: beside the indexes of a multi-revision folder
    (one holding a chunk store or another index), else inside the index folder."""
    here = reader.path.resolve()
    parent = here.parent
    if (parent / ".chunkstore").is_dir() or any(
            sibling != here and (sibling / "manifest.json").is_file()
            for sibling in _subfolders(parent)):
        return parent / ".vectorstore"
    return reader.path / "dense" / "store"


def _subfolders(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir()][:1000]
    except OSError:
        return []


DenseSignalImpl = DenseIndex | LazyDense


def dense_factory(spec: str, *, batch_size: int = 32, max_tokens: int = CHUNK_TOKENS,
                  cache_root: Path | None = None, share_vectors: bool = False,
                  mode: str = "full", store: str | Path | None = None
                  ) -> Callable[[IndexReader], DenseSignalImpl]:
    """A function opening the dense signal of a reader, sharing one embedder across indexes.

    ``mode`` ``full`` embeds every chunk when an index is first opened; ``lazy`` embeds
    only the candidates queries pass in. Vectors go to the content-addressed vector store
    ``store`` (default: :func:`default_store`). ``share_vectors`` also keeps every vector in
    memory by chunk id so that indexes of other revisions reuse them in this process.
    """
    embedder = make_embedder(spec, max_tokens=max_tokens, batch_size=batch_size)
    memo: dict[str, npt.NDArray[np.float32]] | None = {} if share_vectors else None
    opened: dict[tuple[str, str | None], DenseIndex] = {}
    stores: dict[Path, VectorStore] = {}
    lock = threading.Lock()

    def store_for(reader: IndexReader) -> VectorStore:
        folder = Path(store) if store is not None else default_store(reader)
        with lock:
            found = stores.get(folder)
            if found is None:
                found = stores[folder] = VectorStore(folder)
            return found

    def open_for(reader: IndexReader) -> DenseSignalImpl:
        if mode == "lazy":
            # One per reader: it reads chunk texts through that reader's connection.
            return LazyDense(reader, embedder, store_for(reader), memo)
        # Worker threads each open their own reader of one index: embed it once, share it.
        key = (str(reader.path.resolve()), reader.manifest.index_build_id)
        vectors = store_for(reader)
        with lock:
            found = opened.get(key)
            if found is None:
                found = opened[key] = DenseIndex.open(reader, embedder, cache_root=cache_root,
                                                      memo=memo, store=vectors)
            return found

    return open_for
