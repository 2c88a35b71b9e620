"""Hostile input to ``index embed`` and to a folder of clones: exit 2, one ``error:`` line,
no traceback, bounded time and memory, user files intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitrepo import Repo
from hostilekit import assert_clean_error, assert_sentinels, plant_sentinels, run_cli

pytestmark = pytest.mark.slow
TIMEOUT = 120


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("embed")
    Repo(folder / "repo").commit({"a.py": "def f():\n    return 1\n"})
    done = run_cli("index", folder / "repo", "--revision", "HEAD", "-o", folder / "idx", "-q",
                   timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-2000:]
    return folder / "idx"


def test_embed_refuses_a_store_it_cannot_write(index: Path, tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where the store's parent should be\n")
    planted = plant_sentinels(index)
    done = run_cli("index", "embed", index, "--store", tmp_path / "blocker" / "store",
                   timeout=TIMEOUT)
    assert_clean_error(done, contains="blocker is a file")
    # a folder where the store's database file belongs: the store cannot be opened
    (tmp_path / "store" / "vectors.sqlite").mkdir(parents=True)
    done = run_cli("index", "embed", index, "--store", tmp_path / "store", timeout=TIMEOUT)
    assert_clean_error(done, contains="cannot write the vector store")
    assert_sentinels(planted)
    assert not (index / "dense").exists()  # nothing half-done beside the index


@pytest.mark.parametrize("make", ["file", "missing", "empty", "garbage-index"])
def test_embed_refuses_what_is_not_an_index(make: str, tmp_path: Path) -> None:
    target = tmp_path / "target"
    if make == "file":
        target.write_text("not an index\n")
    elif make == "empty":
        target.mkdir()
    elif make == "garbage-index":
        target.mkdir()
        (target / "manifest.json").write_text("{not json")
    done = run_cli("index", "embed", target, timeout=TIMEOUT)
    assert_clean_error(done)


@pytest.mark.parametrize("name", ["../outside", "acme/../../outside", "/etc/passwd", "a/b/c/d"])
def test_a_case_repository_name_never_reaches_outside_the_clones(name: str,
                                                                 tmp_path: Path) -> None:
    clones = tmp_path / "clones"
    clones.mkdir()
    Repo(tmp_path / "outside").commit({"x.py": "X = 1\n"})
    planted = plant_sentinels(clones)
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "format: 1\ndefaults: {cutoff: 5}\ncases:\n"
        f"  - {{id: c1, repository: '{name}', revision: {'a' * 40}, query: q,\n"
        "     accepted: [{file: x.py}]}\n", encoding="utf-8")
    done = run_cli("index", clones, "--cases", cases, "-o", tmp_path / "idx", timeout=TIMEOUT)
    # the folder of clones is not a repository itself: a clean error, nothing built
    assert_clean_error(done)
    assert not (tmp_path / "idx").exists() or not any((tmp_path / "idx").iterdir())
    assert_sentinels(planted)
