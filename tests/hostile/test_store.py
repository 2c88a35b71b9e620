"""Hostile input to the chunk store and many-revision builds: planted folders, links and
damaged entries in the store, bad revision lists, gc pointed at user data."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gitrepo import Repo, git
from hostilekit import assert_clean_error, assert_sentinels, plant_sentinels, run_cli


def _repo(tmp_path: Path) -> tuple[Repo, str, str]:
    repo = Repo(tmp_path / "repo")
    first = repo.commit({"app.py": "def handler():\n    return 1\n",
                         "lib/util.py": "def util():\n    return 1\n"})
    second = repo.commit({"lib/util.py": "def util():\n    return 2\n"})
    return repo, first, second


@pytest.mark.parametrize("kind", ["user-folder", "file", "bad-marker", "marker-not-object",
                                  "marker-format", "marker-binary"])
def test_store_that_is_not_a_store_is_one_clear_error(tmp_path: Path, kind: str) -> None:
    repo, first, _ = _repo(tmp_path)
    store = tmp_path / "user"
    if kind == "file":
        store.write_bytes(b"user data")
        planted = {store: store.read_bytes()}
    else:
        planted = plant_sentinels(store, ("notes.txt",))
        marker = store / "chunkstore.json"
        if kind == "bad-marker":
            marker.write_text("{not json")
        elif kind == "marker-not-object":
            marker.write_text("[1, 2]")
        elif kind == "marker-format":
            marker.write_text('{"format": 7, "kind": "codegold-chunkstore"}')
        elif kind == "marker-binary":
            marker.write_bytes(b"\xff\xfe\x00garbage")
    for args in (("--revision", first, "--store", store),
                 ("--revisions", first, "--store", store)):
        proc = run_cli("index", repo.path, "-o", tmp_path / "out", "--quiet", *args,
                       timeout=120)
        assert_clean_error(proc, contains="user")
    assert_sentinels(planted)


def test_planted_links_and_damage_in_the_store_never_leak_or_break(tmp_path: Path) -> None:
    repo, first, second = _repo(tmp_path)
    out = tmp_path / "indexes"
    proc = run_cli("index", repo.path, "--revisions", first, "-o", out, "--quiet", timeout=120)
    assert proc.returncode == 0, proc.stderr
    store = out / ".chunkstore"
    entries = sorted(store.glob("*/*.entry"))
    assert len(entries) == 2
    victim = plant_sentinels(tmp_path / "victim", ("secret.txt",))
    target = next(iter(victim))
    # One entry becomes a link to a user file, the other is truncated.
    entries[0].unlink()
    entries[0].symlink_to(target)
    entries[1].write_bytes(entries[1].read_bytes()[:20])
    # without the index the store noted, a build reads every file from the store (with
    # it, the next revision would start from a copy of that index and read none)
    shutil.rmtree(out / first)
    proc = run_cli("index", repo.path, "--revisions", f"{first},{second}", "-o",
                   tmp_path / "again", "--store", store, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert_sentinels(victim)
    assert not any(p.is_symlink() for p in store.glob("*/*.entry"))
    scratch = run_cli("index", repo.path, "--revision", first, "-o", tmp_path / "scratch",
                      "--quiet", timeout=120)
    assert scratch.returncode == 0
    built = (tmp_path / "again" / first / "manifest.json").read_text()
    fresh = (tmp_path / "scratch" / "manifest.json").read_text()
    assert built.split('"created_at"')[0] == fresh.split('"created_at"')[0]


def test_shard_folder_planted_as_link_is_not_written_through(tmp_path: Path) -> None:
    repo, first, _ = _repo(tmp_path)
    store = tmp_path / "store"
    proc = run_cli("index", repo.path, "--revisions", first, "-o", tmp_path / "a",
                   "--store", store, "--quiet", timeout=120)
    assert proc.returncode == 0, proc.stderr
    user = tmp_path / "user"
    planted = plant_sentinels(user, ("keep.txt",))
    for shard in [p for p in store.iterdir() if p.is_dir()]:
        for file in shard.iterdir():
            file.unlink()
        shard.rmdir()
        shard.symlink_to(user, target_is_directory=True)
    proc = run_cli("index", repo.path, "--revisions", first, "-o", tmp_path / "b",
                   "--store", store, "--quiet", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert_sentinels(planted)
    assert sorted(p.name for p in user.iterdir()) == ["keep.txt"]
    gc = run_cli("index", "gc", store, "--indexes", tmp_path / "b", timeout=60)
    assert gc.returncode == 0, gc.stderr
    assert_sentinels(planted)


@pytest.mark.parametrize("spec", ["no-such-tag", "--output=/tmp/x", "v1,,\x01", " , "])
def test_bad_revision_lists_are_one_clear_error(tmp_path: Path, spec: str) -> None:
    repo, _, _ = _repo(tmp_path)
    planted = plant_sentinels(tmp_path / "out", ("notes.txt",))
    proc = run_cli("index", repo.path, "--revisions", spec, "-o", tmp_path / "out", "--quiet",
                   timeout=60)
    assert_clean_error(proc)
    assert_sentinels(planted)


def test_revisions_file_binary_or_huge_is_one_clear_error(tmp_path: Path) -> None:
    repo, _, _ = _repo(tmp_path)
    binary = tmp_path / "revs.bin"
    binary.write_bytes(b"\xff\xfe\x00\x01" * 100)
    proc = run_cli("index", repo.path, "--revisions", binary, "-o", tmp_path / "o", timeout=60)
    assert_clean_error(proc, contains="revisions")
    huge = tmp_path / "revs.txt"
    with huge.open("wb") as handle:
        handle.truncate(64 * 1024 * 1024)
    proc = run_cli("index", repo.path, "--revisions", huge, "-o", tmp_path / "o", timeout=60,
                   memory=1024**3 + 512 * 1024**2)
    assert_clean_error(proc, contains="revisions")


def test_gc_refuses_user_folders_and_emptying(tmp_path: Path) -> None:
    repo, first, _ = _repo(tmp_path)
    planted = plant_sentinels(tmp_path / "docs", ("a.txt", "b.entry"))
    proc = run_cli("index", "gc", tmp_path / "docs", timeout=60)
    assert_clean_error(proc, contains="no chunk store")
    assert_sentinels(planted)
    out = tmp_path / "indexes"
    assert run_cli("index", repo.path, "--revisions", first, "-o", out, "--quiet",
                   timeout=120).returncode == 0
    (out / first / "manifest.json").unlink()  # the only index is gone: gc keeps nothing
    before = sorted(os.listdir(out / ".chunkstore"))
    proc = run_cli("index", "gc", out / ".chunkstore", timeout=60)
    assert_clean_error(proc)
    assert sorted(os.listdir(out / ".chunkstore")) == before


def test_annotated_tag_id_pinned_by_cases_is_refused_with_case_id(tmp_path: Path) -> None:
    repo, first, _ = _repo(tmp_path)
    git(repo.path, "tag", "-a", "v1", "-m", "release", first)
    tag_object = git(repo.path, "rev-parse", "v1")
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{revision: {tag_object}, cutoff: 2}}\ncases:\n"
                     "  - id: tagged\n    query: handler\n    accepted: [{file: app.py}]\n")
    proc = run_cli("index", repo.path, "--cases", cases, "-o", tmp_path / "i", "--quiet",
                   timeout=60)
    assert_clean_error(proc, contains=["tagged", "not a commit"])


@pytest.mark.parametrize("where", ["same", "inside-index", "index-inside-store"])
def test_store_overlapping_the_index_is_refused(tmp_path: Path, where: str) -> None:
    repo, first, _ = _repo(tmp_path)
    out = tmp_path / "idx"
    assert run_cli("index", repo.path, "--revision", first, "-o", out, "--quiet",
                   timeout=120).returncode == 0
    before = sorted(p.name for p in out.iterdir())
    store = {"same": out, "inside-index": out / "cs", "index-inside-store": tmp_path}[where]
    proc = run_cli("index", repo.path, "--revision", first, "-o", out, "--store", store,
                   "--quiet", timeout=120)
    assert_clean_error(proc, contains="overlap")
    assert sorted(p.name for p in out.iterdir()) == before
