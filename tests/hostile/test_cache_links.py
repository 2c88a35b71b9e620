"""A received index folder with links planted where codegold keeps its caches.

``search`` and ``run`` write the lexical cache (``lexical/<hash>/``) and the dense cache
(``dense/<embedder>/``) inside the index folder. Whoever sent the folder may have made
those names links to a folder or file of the user's: codegold must never write through
them (nor read them as its cache) and must still answer.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from gitrepo import Repo
from hostilekit import assert_sentinels, plant_sentinels, run_cli

TIMEOUT = 120


def _index(tmp_path: Path) -> Path:
    repo = Repo(tmp_path / "repo")
    repo.commit({"app.py": "def handler():\n    return compute_total(1)\n",
                 "lib/total.py": "def compute_total(x):\n    return x + 1\n"})
    out = tmp_path / "idx"
    proc = run_cli("index", repo.path, "--revision", "HEAD", "-o", out, "--quiet",
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    return out


def _search(index: Path) -> None:
    proc = run_cli("search", index, "compute_total", "--no-dense", timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert "lib/total.py" in proc.stdout


def test_a_planted_cache_folder_link_is_replaced_never_written_through(tmp_path: Path) -> None:
    index = _index(tmp_path)
    _search(index)  # the first search writes the lexical cache
    caches = sorted(p for p in (index / "lexical").iterdir() if p.is_dir())
    assert caches, "no lexical cache was written: the test is void"
    victim_folder = tmp_path / "victim"
    planted = plant_sentinels(victim_folder, [p.name for p in caches[0].iterdir()])
    for cache in caches:
        shutil.rmtree(cache)
        os.symlink(victim_folder, cache)
    _search(index)
    assert_sentinels(planted)
    assert all(not c.is_symlink() and c.is_dir() for c in caches)


def test_planted_cache_file_links_are_never_followed(tmp_path: Path) -> None:
    index = _index(tmp_path)
    _search(index)
    cache = next(p for p in (index / "lexical").iterdir() if p.is_dir())
    planted = plant_sentinels(tmp_path / "victim", [p.name for p in cache.iterdir()])
    for victim in planted:
        (cache / victim.name).unlink()
        os.symlink(victim, cache / victim.name)
    # the predictable temporary names the cache once used, planted too
    for name in ("meta.json", "vectors.npy"):
        for pid in range(1, 4):
            os.symlink(next(iter(planted)), cache / f"{name}.{pid}.tmp")
    _search(index)
    assert_sentinels(planted)


def test_a_planted_lexical_folder_link_is_replaced(tmp_path: Path) -> None:
    index = _index(tmp_path)
    victim_folder = tmp_path / "victim"
    planted = plant_sentinels(victim_folder, ("keep-me.txt",))
    shutil.rmtree(index / "lexical", ignore_errors=True)
    os.symlink(victim_folder, index / "lexical")
    _search(index)
    assert_sentinels(planted)
    assert sorted(p.name for p in victim_folder.iterdir()) == ["keep-me.txt"]
