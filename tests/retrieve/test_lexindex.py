"""The in-memory BM25 engine: scores equal a direct BM25F computation; cache on disk."""

from __future__ import annotations

import math
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.index.store import IndexReader
from codegold.index.tokens import code_tokens, path_tokens
from codegold.retrieve.lexindex import LexicalIndex


def _direct(reader: IndexReader, query: list[str], weights: tuple[float, float, float],
            k1: float = 1.2, b: float = 0.75) -> dict[str, float]:
    docs: dict[str, Counter[str]] = {}
    for chunk in reader.iter_chunks():
        tf: Counter[str] = Counter()
        for token in code_tokens(" ".join(chunk.symbols)):
            tf[token] += weights[0]
        for token in path_tokens(chunk.file):
            tf[token] += weights[1]
        for token in code_tokens(chunk.text):
            tf[token] += weights[2]
        docs[chunk.id] = tf
    n = len(docs)
    avg = sum(sum(tf.values()) for tf in docs.values()) / n
    scores: dict[str, float] = {}
    for cid, tf in docs.items():
        length = sum(tf.values())
        total = 0.0
        for term in set(query):
            if tf[term]:
                df = sum(1 for other in docs.values() if other[term])
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                total += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * length / avg))
        if total:
            scores[cid] = total
    return scores


def test_scores_match_direct_bm25f(fixture_index: Path) -> None:
    with IndexReader.open(fixture_index) as reader:
        engine = LexicalIndex.build(reader, weights=(3.0, 1.5, 1.0))
        query = ["session", "refresh", "token", "createsession", "nothere"]
        expected = _direct(reader, query, (3.0, 1.5, 1.0))
        got = dict(engine.search(query, 100))
        assert set(got) == set(expected)
        for cid, score in expected.items():
            assert got[cid] == pytest.approx(score, rel=1e-5)
        ranked = engine.search(query, 3)
        assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
        assert engine.search(["nothere"], 5) == []


def test_cache_is_written_and_reused(fixture_index: Path, tmp_path: Path) -> None:
    copy = tmp_path / "index"
    shutil.copytree(fixture_index, copy)
    shutil.rmtree(copy / "lexical", ignore_errors=True)  # other tests' caches
    with IndexReader.open(copy) as reader:
        first = LexicalIndex.for_reader(reader, weights=(2.0, 1.0, 1.0))
        metas = list((copy / "lexical").glob("*/meta.json"))
        assert len(metas) == 1
        # A fresh process would load from disk; simulate by loading the folder directly.
        from codegold.retrieve import lexindex

        lexindex._LOADED.clear()
        again = LexicalIndex.for_reader(reader, weights=(2.0, 1.0, 1.0))
        assert again is not first
        assert again.search(["session"], 10) == first.search(["session"], 10)


def test_stemmed_engine_meets_other_word_forms(fixture_index: Path, tmp_path: Path) -> None:
    copy = tmp_path / "index"
    shutil.copytree(fixture_index, copy)
    shutil.rmtree(copy / "lexical", ignore_errors=True)  # other tests' caches
    with IndexReader.open(copy) as reader:
        plain = LexicalIndex.for_reader(reader, weights=(3.0, 1.5, 1.0))
        stemmed = LexicalIndex.for_reader(reader, weights=(3.0, 1.5, 1.0), stemmed=True)
        # The code says "expired"; a question says "expiring".
        assert plain.search(["expiring"], 5) == []
        found = {reader.get(cid).file for cid, _ in stemmed.search(["expiring"], 5)}  # type: ignore[union-attr]
        assert "src/auth/refresh.py" in found
        # Each engine keeps its own cache; a reload knows it is stemmed.
        assert len(list((copy / "lexical").glob("*/meta.json"))) == 2
        from codegold.retrieve import lexindex

        lexindex._LOADED.clear()
        again = LexicalIndex.for_reader(reader, weights=(3.0, 1.5, 1.0), stemmed=True)
        assert again.stemmed and again.search(["expiring"], 5) == stemmed.search(["expiring"], 5)


_REVISION_ONE: dict[str, str | bytes | None] = {
    "src/app.py": "class App:\n    def run(self):\n        return helper_values()\n\n\n"
                  "def helper_values():\n    return [1, 2]\n",
    "src/util.py": "def util_redirects():\n    return 'redirected values'\n",
    "docs/guide.md": "# Guide\nRunning the redirects.\n",
    "web/main.ts": "export function mainEntry(): number {\n  return 3;\n}\n",
}


def _lexical_files(index: Path) -> dict[str, bytes]:
    return {str(p.relative_to(index)): p.read_bytes()
            for p in sorted((index / "lexical").rglob("*")) if p.is_file()}


def test_warm_up_with_a_chunk_store_counts_only_changed_files_and_matches_scratch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codegold.index import build_index
    from codegold.index.chunkstore import ChunkStore
    from codegold.retrieve import lexindex
    from codegold.retrieve.warm import warm_lexical
    from gitrepo import Repo

    repo = Repo(tmp_path / "repo")
    first = repo.commit(_REVISION_ONE, "first")
    second = repo.commit({"src/util.py": "def util_redirects():\n    return 'other'\n",
                          "src/new.py": "def fresh_values():\n    pass\n",
                          "docs/guide.md": None}, "second")
    store = ChunkStore.open(tmp_path / "store")
    counted: list[str] = []
    original = lexindex._counted

    def counting(file: str, *args: object) -> object:
        counted.append(file)
        return original(file, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(lexindex, "_counted", counting)
    build_index(repo.path, first, tmp_path / "a", store=store)
    warm_lexical(tmp_path / "a", store=store)
    assert sorted(counted) == ["docs/guide.md", "src/app.py", "src/util.py", "web/main.ts"]
    build_index(repo.path, second, tmp_path / "b", store=store)
    build_index(repo.path, second, tmp_path / "scratch")
    counted.clear()
    warm_lexical(tmp_path / "b", store=store)
    assert sorted(counted) == ["src/new.py", "src/util.py"]  # the rest came from the store
    counted.clear()
    warm_lexical(tmp_path / "scratch")
    assert len(counted) == 4
    # byte for byte the caches a warm-up without the store writes
    assert _lexical_files(tmp_path / "b") == _lexical_files(tmp_path / "scratch")
    assert len(_lexical_files(tmp_path / "b")) == 3 * 10  # 8 cache files and the 2 a later revision is derived from

    # A damaged side file is counted again (and rewritten); the caches stay the same.
    sides = sorted(p for p in store.root.rglob("*") if ".lexical-" in p.name)
    assert len(sides) == 6  # one per file ever counted with the store
    for side in sides:
        side.write_bytes(side.read_bytes()[:-3] + b"xyz")
    shutil.rmtree(tmp_path / "b" / "lexical")
    # (with revision a's caches gone too, nothing to derive b's from: every file's side file)
    shutil.rmtree(tmp_path / "a" / "lexical")
    lexindex._BASES.clear()
    counted.clear()
    warm_lexical(tmp_path / "b", store=store)
    assert sorted(counted) == ["src/app.py", "src/new.py", "src/util.py", "web/main.ts"]
    assert _lexical_files(tmp_path / "b") == _lexical_files(tmp_path / "scratch")


def test_side_files_that_do_not_fit_the_index_are_counted_again(
        fixture_repo: tuple[Path, str], tmp_path: Path) -> None:
    from codegold.index import build_index
    from codegold.index.chunkstore import ChunkStore
    from codegold.retrieve import lexindex

    repo, revision = fixture_repo
    store = ChunkStore.open(tmp_path / "store")
    build_index(repo, revision, tmp_path / "idx", store=store)
    with IndexReader.open(tmp_path / "idx") as reader:
        specs = [((3.0, 1.5, 1.0), 1.2, 0.75, "chunk", False)]
        shapes = [lexindex._shape(spec) for spec in specs]
        expected = LexicalIndex.build_many(reader, specs, store=store)[0]
        chunk_ids = reader.chunk_ids_by_file()
        blobs = {e.path: e.blob_sha for e in reader.iter_inventory()}
        name = lexindex._side_name(shapes)
        file = next(iter(chunk_ids))
        raw = store.get_side(file, blobs[file], name)
        assert raw is not None
        good = lexindex._documents_decoder.decode(raw)
        assert lexindex._decoded(raw, chunk_ids[file], shapes) == good
        part = good.parts[0]
        bad = [msgspec.structs.replace(good, chunk_ids=[*good.chunk_ids, "x"]),
               msgspec.structs.replace(good, parts=[msgspec.structs.replace(
                   part, ids=np.full(len(part.ids) // 4, len(good.terms), "<i4").tobytes())]),
               msgspec.structs.replace(good, parts=[msgspec.structs.replace(
                   part, tfs=np.full(len(part.tfs) // 8, np.nan, "<f8").tobytes())]),
               msgspec.structs.replace(good, parts=[msgspec.structs.replace(
                   part, sizes=[*part.sizes[:-1], part.sizes[-1] + 1])])]
        for documents in bad:
            payload = lexindex._documents_encoder.encode(documents)
            assert lexindex._decoded(payload, chunk_ids[file], shapes) is None
            store.put_side(file, blobs[file], name, payload)
            again = LexicalIndex.build_many(reader, specs, store=store)[0]
            assert again.search(["session", "token"], 20) == expected.search(
                ["session", "token"], 20)
            assert lexindex._decoded(store.get_side(file, blobs[file], name) or b"",
                                     chunk_ids[file], shapes) is not None  # rewritten


def test_an_index_that_kept_secret_values_never_uses_the_store(
        fixture_repo: tuple[Path, str], tmp_path: Path) -> None:
    from codegold.index import PathPolicy, build_index
    from codegold.index.chunkstore import ChunkStore
    from codegold.retrieve.warm import warm_lexical

    repo, revision = fixture_repo
    store = ChunkStore.open(tmp_path / "store")
    build_index(repo, revision, tmp_path / "idx", store=store,
                policy=PathPolicy(secrets=False))
    warm_lexical(tmp_path / "idx", store=store)
    assert len(_lexical_files(tmp_path / "idx")) == 3 * 10  # 8 cache files and the 2 a later revision is derived from
    assert not list(store.root.rglob("*.lexical-*"))


def test_terms_counted_in_worker_processes_make_the_same_caches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many files are counted in worker processes, each opening the index itself; the
    caches are byte for byte those counted in this process, with and without a chunk
    store (whose side files the workers' counts fill, and a later warm-up reuses)."""
    from codegold.index import build_index
    from codegold.index.build import batching
    from codegold.index.build.batching import PARALLEL_MIN_FILES
    from codegold.index.chunkstore import ChunkStore
    from codegold.retrieve import lexindex
    from codegold.retrieve.warm import warm_lexical
    from gitrepo import Repo

    repo = Repo(tmp_path / "repo")
    files = {f"pkg/mod_{i}.py": f"def handler_{i}(request):\n    return request.values[{i}]\n"
             f"\n\nclass Service{i}:\n    def redirects(self):\n        return {i}\n"
             for i in range(3 * PARALLEL_MIN_FILES)}
    files["docs/guide.md"] = "# Guide\n\nRedirects are followed by the services.\n"
    revision = repo.commit(files, "many files")
    pools: list[int] = []
    original = batching.ProcessExecutor

    def recording(workers: int, **kwargs: Any) -> Any:
        pools.append(workers)
        return original(workers, **kwargs)

    monkeypatch.setattr(batching, "ProcessExecutor", recording)
    build_index(repo.path, revision, tmp_path / "serial", jobs=1)
    shutil.copytree(tmp_path / "serial", tmp_path / "parallel")
    warm_lexical(tmp_path / "serial", jobs=1)
    assert pools == []
    warm_lexical(tmp_path / "parallel", jobs=2)
    assert pools == [2]
    assert _lexical_files(tmp_path / "parallel") == _lexical_files(tmp_path / "serial")
    assert len(_lexical_files(tmp_path / "serial")) == 3 * 10  # 8 cache files and the 2 a later revision is derived from

    store = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, revision, tmp_path / "stored", store=store, jobs=1)
    warm_lexical(tmp_path / "stored", store=store, jobs=2)
    assert pools == [2, 2]
    assert _lexical_files(tmp_path / "stored") == _lexical_files(tmp_path / "serial")
    assert len([p for p in store.root.rglob("*") if ".lexical-" in p.name]) == len(files)
    counted: list[str] = []
    monkeypatch.setattr(lexindex, "_counted", lambda file, *args: counted.append(file))
    shutil.rmtree(tmp_path / "stored" / "lexical")
    warm_lexical(tmp_path / "stored", store=store, jobs=2)
    assert counted == [] and pools == [2, 2]  # every file's documents came from the store
    assert _lexical_files(tmp_path / "stored") == _lexical_files(tmp_path / "serial")


def test_files_are_cut_into_runs_of_similar_chunk_counts() -> None:
    from codegold.retrieve.lexindex import _batches

    chunks = {f"f{i}": ["c"] * (10 if i < 4 else 1) for i in range(20)}
    batches = _batches(list(chunks), chunks, 4)
    assert [file for batch in batches for file in batch] == list(chunks)  # order kept
    assert len(batches) <= 4
    assert all(batch for batch in batches)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=(1 << 40)), max_size=200)
       | st.lists(st.integers(min_value=0, max_value=70_000), max_size=300)
       | st.lists(st.integers(min_value=0, max_value=5), max_size=300))
def test_the_radix_order_of_postings_is_numpys_stable_argsort(keys: list[int]) -> None:
    from codegold.retrieve.lexindex import stable_order

    array = np.asarray(keys, dtype=np.int64)
    assert stable_order(array).tolist() == np.argsort(array, kind="stable").tolist()
