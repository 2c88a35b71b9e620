"""A revision's BM25 caches derived from the nearest indexed revision's are the bytes a
cold build of that revision writes, whatever the edits between them."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from codegold.index import IndexReader, build_index
from codegold.index.chunkstore import ChunkStore
from codegold.retrieve import lexindex
from codegold.retrieve.config import load_config
from codegold.retrieve.lexindex import LexicalIndex
from codegold.retrieve.warm import lexical_engines, warm_lexical
from gitrepo import Repo

WORDS = ["alpha", "beta", "gamma", "delta", "redirects", "redirect", "session", "fetch",
         "parse", "Zeta", "naive", "x1", "y_2", "HTTPAdapter", "get_conn", "retries"]


def _source(rng: random.Random) -> str:
    """A small Python file; some words are rare, so edits drop and add terms."""
    lines = []
    for _ in range(rng.randint(1, 5)):
        rare = f"w{rng.randint(0, 400)}"
        lines.append(f"def {rng.choice(WORDS)}_{rng.randint(0, 30)}({rng.choice(WORDS)}):\n"
                     f"    return {rng.choice(WORDS)} + {rare}  # {rng.choice(WORDS)}\n")
    return "\n".join(lines)


def _edits(rng: random.Random, files: dict[str, str | None], size: int) -> dict[str, str | None]:
    """A random edit script: files modified, removed, added and renamed."""
    present = sorted(path for path, text in files.items() if text is not None)
    edits: dict[str, str | None] = {}
    for _ in range(size):
        kind = rng.choice(("modify", "modify", "remove", "add", "rename"))
        if kind == "add" or not present:
            folder = rng.choice(("pkg", "pkg/sub", "a", "zz", "tests"))
            edits[f"{folder}/f{rng.randint(0, 10_000)}.py"] = _source(rng)
            continue
        path = rng.choice(present)
        if kind == "modify":
            edits[path] = _source(rng)
        elif kind == "remove":
            edits[path] = None
        else:
            edits[path] = None
            edits[f"moved/{path}"] = files[path]
    return edits


def _cache_bytes(index: Path) -> dict[str, bytes]:
    return {str(file.relative_to(index)): file.read_bytes()
            for file in sorted((index / "lexical").rglob("*")) if file.is_file()}


@pytest.mark.parametrize("seed", range(6))
def test_derived_caches_are_byte_identical_to_a_cold_build(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    repo = Repo(tmp_path / "repo")
    files: dict[str, str | None] = {f"pkg/m{n}.py": _source(rng) for n in range(25)}
    files["README.md"] = "# Title\nSome redirects text.\n"
    commits = [repo.commit(files, "start")]
    for size in (1, 4, 12):
        edits = _edits(rng, files, size)
        files.update(edits)
        commits.append(repo.commit(edits, f"{size} edits"))
    store = ChunkStore.open(tmp_path / "store")
    specs = [(e.weights, e.k1, e.b, e.unit, e.stemmed) for e in lexical_engines(load_config())]
    builds = []
    for number, commit in enumerate(commits):
        built = build_index(repo.path, commit, tmp_path / f"i{number}", store=store)
        if number:
            with IndexReader.open(tmp_path / f"i{number}") as reader:
                engines = LexicalIndex.build_many(reader, specs, store=store)
            # derived from the revision just before: the nearest one
            assert {engine.derived_from for engine in engines} == {builds[-1]}
        warm_lexical(tmp_path / f"i{number}", store=store)
        builds.append(built.index_build_id)
        cold = build_index(repo.path, commit, tmp_path / f"cold{number}")
        warm_lexical(tmp_path / f"cold{number}")
        assert cold.index_build_id == built.index_build_id
        assert _cache_bytes(tmp_path / f"i{number}") == _cache_bytes(tmp_path / f"cold{number}")


def test_the_nearest_revision_is_chosen_and_a_missing_one_is_no_base(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    rng = random.Random(7)
    files = {f"pkg/m{n}.py": _source(rng) for n in range(20)}
    first = repo.commit(files, "first")
    far = repo.commit({path: _source(rng) for path in list(files)[:10]}, "far")
    near = repo.commit({"pkg/m0.py": _source(rng)}, "near")
    store = ChunkStore.open(tmp_path / "store")
    ids = {}
    for name, commit in (("first", first), ("far", far)):
        ids[name] = build_index(repo.path, commit, tmp_path / name, store=store).index_build_id
        warm_lexical(tmp_path / name, store=store)
    # `near` differs from `far` in one file, from `first` in ten
    build_index(repo.path, near, tmp_path / "near", store=store)
    specs = [(e.weights, e.k1, e.b, e.unit, e.stemmed) for e in lexical_engines(load_config())]
    with IndexReader.open(tmp_path / "near") as reader:
        engines = LexicalIndex.build_many(reader, specs, store=store)
    assert {engine.derived_from for engine in engines} == {ids["far"]}
    # a base whose caches are gone is passed over for the next nearest; with none left,
    # the caches are counted whole
    lexindex._BASES.clear()
    shutil.rmtree(tmp_path / "far" / "lexical")
    with IndexReader.open(tmp_path / "near") as reader:
        engines = LexicalIndex.build_many(reader, specs, store=store)
    assert {engine.derived_from for engine in engines} == {ids["first"]}
    lexindex._BASES.clear()
    (tmp_path / "first" / "lexical" / next(iter(
        p.name for p in (tmp_path / "first" / "lexical").iterdir())) / "tfs.npy").write_bytes(
        b"damaged")
    with IndexReader.open(tmp_path / "near") as reader:
        engines = LexicalIndex.build_many(reader, specs, store=store)
    assert {engine.derived_from for engine in engines} == {None}


def test_a_file_that_keeps_its_words_keeps_the_base_vocabulary(tmp_path: Path) -> None:
    """A changed file's words leave with its old postings and come back with its new
    ones: when they are the same words, the derived engine's terms are the base's, the
    base's vocabulary serves it, and the caches are still a cold build's bytes."""
    repo = Repo(tmp_path / "repo")
    rng = random.Random(4)
    files = {f"pkg/m{n}.py": _source(rng) for n in range(8)}
    files["pkg/own.py"] = "def zebra_only(quagga):\n    return quagga\n"
    first = repo.commit(files, "first")
    second = repo.commit({"pkg/own.py": "def zebra_only(quagga):\n\n    return quagga\n"},
                         "the same words, another line")
    store = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, first, tmp_path / "first", store=store)
    warm_lexical(tmp_path / "first", store=store)
    build_index(repo.path, second, tmp_path / "second", store=store)
    specs = [(e.weights, e.k1, e.b, e.unit, e.stemmed) for e in lexical_engines(load_config())]
    # the engines the first revision's warm-up left for the next one to start from
    here = str((tmp_path / "first").resolve())
    bases = {params: engine for (index, _, params), engine in lexindex._BASES.items()
             if index == here}
    with IndexReader.open(tmp_path / "second") as reader:
        engines = LexicalIndex.build_many(reader, specs, store=store)
    assert all(engine.derived_from is not None for engine in engines)
    for spec, engine in zip(specs, engines, strict=True):
        assert engine.vocab is bases[lexindex._params(*spec)].vocab
        assert "quagga" in engine.vocab
    warm_lexical(tmp_path / "second", store=store)
    build_index(repo.path, second, tmp_path / "cold")
    warm_lexical(tmp_path / "cold")
    assert _cache_bytes(tmp_path / "second") == _cache_bytes(tmp_path / "cold")


def test_a_neighbour_cache_with_one_byte_changed_is_no_base(tmp_path: Path) -> None:
    """Each cache file of the revision a later one would derive from, one byte changed
    (its size kept): the neighbour fails the digest check its meta.json records (as a
    cache loaded for queries does), is passed over, and the later revision's engines are
    counted whole: the engines a cold build makes, scores and all."""
    repo = Repo(tmp_path / "repo")
    rng = random.Random(11)
    files = {f"pkg/m{n}.py": _source(rng) for n in range(12)}
    first = repo.commit(files, "first")
    second = repo.commit({"pkg/m0.py": _source(rng)}, "one file")
    store = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, first, tmp_path / "first", store=store)
    warm_lexical(tmp_path / "first", store=store)
    build_index(repo.path, second, tmp_path / "second", store=store)
    build_index(repo.path, second, tmp_path / "cold")
    specs = [(e.weights, e.k1, e.b, e.unit, e.stemmed) for e in lexical_engines(load_config())]
    with IndexReader.open(tmp_path / "cold") as reader:
        cold = [LexicalIndex.build(reader, weights=w, k1=k1, b=b, unit=unit, stemmed=stemmed)
                for w, k1, b, unit, stemmed in specs]
    caches = sorted((tmp_path / "first" / "lexical").iterdir())
    names = sorted(file.name for file in caches[0].iterdir() if file.name != "meta.json")
    assert {"tfs.npy", "lengths.npy", "impacts.npy", "vocab.json"} <= set(names)
    tokens = ["redirects", "session", "fetch", "w7", "alpha"]
    for name in names:
        lexindex._BASES.clear()  # read back from disk, not from this process's memory
        originals = {}
        for folder in caches:
            data = bytearray(originals.setdefault(folder, (folder / name).read_bytes()))
            data[len(data) // 2] ^= 0x01
            (folder / name).write_bytes(bytes(data))
        with IndexReader.open(tmp_path / "second") as reader:
            engines = LexicalIndex.build_many(reader, specs, store=store)
        assert {engine.derived_from for engine in engines} == {None}, name
        for engine, scratch in zip(engines, cold, strict=True):
            assert engine.chunk_ids == scratch.chunk_ids
            assert engine.scores(tokens).tolist() == scratch.scores(tokens).tolist(), name
        for folder, data in originals.items():
            (folder / name).write_bytes(data)
    # undamaged, the same neighbour is a base again
    lexindex._BASES.clear()
    with IndexReader.open(tmp_path / "second") as reader:
        engines = LexicalIndex.build_many(reader, specs, store=store)
    assert {engine.derived_from for engine in engines} != {None}
