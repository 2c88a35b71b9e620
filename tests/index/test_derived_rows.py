"""A revision built from a copy of the nearest indexed revision's index holds exactly the
rows, manifest and build id of a cold build of it, whatever the edits between them, and
writes rows only for the files that changed."""

from __future__ import annotations

import json
import os
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegold.index import build_index
from codegold.index.chunkstore import ChunkStore
from codegold.index.policy import DEFAULT_EXCLUDE, PathPolicy
from codegold.index.store import IndexWriter
from codegold.retrieve.warm import warm_lexical
from gitrepo import Repo, git
from indexrows import index_rows as _rows

WORDS = ["alpha", "beta", "gamma", "redirect", "session", "fetch", "parse", "Zeta", "x1"]


def _source(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 4)):
        lines.append(f"def {rng.choice(WORDS)}_{rng.randint(0, 30)}({rng.choice(WORDS)}):\n"
                     f"    return {rng.choice(WORDS)}(w{rng.randint(0, 300)})\n")
    return "\n".join(lines)


class History:
    """A repository edited by random scripts: content, removals, renames, mode changes
    (executable, a file turned into a link with the same blob) and awkward files."""

    def __init__(self, path: Path, rng: random.Random) -> None:
        self.repo = Repo(path)
        self.rng = rng
        self.files = {f"pkg/m{n}.py": _source(rng) for n in range(24)}
        self.files.update({"README.md": "# Title\nSome redirect text.\n",
                           "pkg/empty.py": "", "target.py": "x = 1\n",
                           "pkg/points.py": "target.py", "deps.lock": "pinned\n",
                           "data.bin": "ab\x00cd", ".env": "TOKEN=abc\n",
                           "odd\nname.py": "def odd():\n    pass\n"})
        for name, text in self.files.items():
            self._write(name, text)
        self.links: set[str] = set()
        self.commit = self._commit("start")

    def _write(self, name: str, text: str) -> None:
        target = self.repo.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        target.write_text(text, encoding="utf-8")

    def _commit(self, message: str) -> str:
        git(self.repo.path, "add", "-A")
        git(self.repo.path, "commit", "-q", "--allow-empty", "-m", message)
        return git(self.repo.path, "rev-parse", "HEAD")

    def edit(self, size: int) -> str:
        rng = self.rng
        for _ in range(size):
            kind = rng.choice(("modify", "modify", "remove", "add", "rename", "mode", "link",
                               "awkward"))
            present = sorted(name for name in self.files if name not in self.links)
            path = rng.choice(present)
            disk = self.repo.path / path
            if kind == "modify":
                self.files[path] = _source(rng)
                self._write(path, self.files[path])
            elif kind == "remove":
                del self.files[path]
                disk.unlink()
            elif kind == "add":
                name = f"{rng.choice(('pkg', 'pkg/sub', 'a', 'zz'))}/f{rng.randint(0, 999)}.py"
                self.files[name] = _source(rng)
                self._write(name, self.files[name])
            elif kind == "rename":
                name = f"moved/{path}"
                self.files[name] = self.files.pop(path)
                disk.unlink()
                self._write(name, self.files[name])
            elif kind == "mode":  # the same blob, now executable (or no longer)
                disk.chmod(disk.stat().st_mode ^ 0o111)
            elif kind == "link":  # the same blob (the link's target), now a symbolic link
                text = self.files[path]
                if "\n" in text or "\x00" in text or not text:
                    text = self.files[path] = "target.py"
                    self._write(path, text)
                    self._commit("a file naming another")
                disk.unlink()
                os.symlink(text, disk)
                self.links.add(path)
            else:
                name = rng.choice(("new.lock", "secrets/.env", "more\tname.py", "blob.bin",
                                   "pkg/empty2.py"))
                self.files[name] = rng.choice(("", "x\x00y", "def z():\n    pass\n"))
                self._write(name, self.files[name])
        self.commit = self._commit(f"{size} edits")
        return self.commit


def _manifest(index: Path) -> dict[str, object]:
    manifest = json.loads((index / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("created_at")
    return manifest


def _same_as_cold(repo: Repo, commit: str, built: Path, cold: Path,
                  policy: PathPolicy | None = None) -> None:
    build_index(repo.path, commit, cold, policy=policy)
    assert _manifest(built) == _manifest(cold)
    assert _rows(built) == _rows(cold)


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths whose rows a build writes one by one (not those it copies whole)."""
    written: list[str] = []
    add_file = IndexWriter.add_file

    def counting(self: IndexWriter, result: object, *args: object, **kwargs: object
                 ) -> object:
        written.append(result.entry.path)  # type: ignore[attr-defined]
        return add_file(self, result, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(IndexWriter, "add_file", counting)
    yield written


@pytest.mark.parametrize("seed", range(5))
def test_a_history_built_revision_after_revision_holds_a_cold_builds_rows(
        tmp_path: Path, seed: int, writes: list[str]) -> None:
    history = History(tmp_path / "repo", random.Random(seed))
    store = ChunkStore.open(tmp_path / "store")
    build_index(history.repo.path, history.commit, tmp_path / "i0", store=store)
    _same_as_cold(history.repo, history.commit, tmp_path / "i0", tmp_path / "cold0")
    for number, size in enumerate((1, 3, 8, 15), start=1):
        before = {path: text for path, text in history.files.items()}
        commit = history.edit(size)
        writes.clear()
        build_index(history.repo.path, commit, tmp_path / f"i{number}", store=store)
        # only the files edited have rows written again (a mode change or a link keeps
        # its blob, and a link has no rows)
        edited = {path for path, text in history.files.items() if before.get(path) != text}
        assert set(writes) <= edited
        _same_as_cold(history.repo, commit, tmp_path / f"i{number}", tmp_path / f"cold{number}")


def test_one_changed_file_writes_one_files_rows(tmp_path: Path, writes: list[str]) -> None:
    repo = Repo(tmp_path / "repo")
    rng = random.Random(3)
    files: dict[str, str | bytes | None] = {f"pkg/m{n}.py": _source(rng) for n in range(40)}
    first = repo.commit(files, "first")
    second = repo.commit({"pkg/m7.py": _source(rng)}, "second")
    store = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, first, tmp_path / "first", store=store)
    writes.clear()
    build_index(repo.path, second, tmp_path / "second", store=store)
    assert writes == ["pkg/m7.py"]
    _same_as_cold(repo, second, tmp_path / "second", tmp_path / "cold")
    # a later process (another store object) starts from the index the store noted
    warm_lexical(tmp_path / "second", store=store)
    third = repo.commit({"pkg/m9.py": _source(rng), "pkg/m3.py": None}, "third")
    writes.clear()
    later = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, third, tmp_path / "third", store=later)
    assert writes == ["pkg/m9.py"] and later.hits == 0
    _same_as_cold(repo, third, tmp_path / "third", tmp_path / "cold3")


def test_another_policy_rechecks_every_kept_path(tmp_path: Path, writes: list[str]) -> None:
    history = History(tmp_path / "repo", random.Random(11))
    store = ChunkStore.open(tmp_path / "store")
    build_index(history.repo.path, history.commit, tmp_path / "first", store=store)
    commit = history.edit(3)
    narrow = PathPolicy(exclude=(*DEFAULT_EXCLUDE, "pkg/m1*"), max_bytes=60)
    build_index(history.repo.path, commit, tmp_path / "narrow", store=store, policy=narrow)
    _same_as_cold(history.repo, commit, tmp_path / "narrow", tmp_path / "cold", policy=narrow)
    # and back to the default policy from the narrow index: what it left out comes back
    writes.clear()
    build_index(history.repo.path, commit, tmp_path / "wide", store=store)
    assert writes
    _same_as_cold(history.repo, commit, tmp_path / "wide", tmp_path / "cold_wide")


EDITS = {
    "rows": "UPDATE chunks SET text = 'EVIL planted text' WHERE file = 'pkg/m2.py'",
    "stat": "UPDATE sqlite_stat1 SET stat = '1 1' WHERE idx = 'symbols_name'",
}


@pytest.mark.parametrize("damage", [*sorted(EDITS), "macs", "seal", "key", "link"])
def test_an_index_edited_since_its_seal_is_not_copied(tmp_path: Path, damage: str,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      writes: list[str]) -> None:
    repo = Repo(tmp_path / "repo")
    rng = random.Random(5)
    first = repo.commit({f"pkg/m{n}.py": _source(rng) for n in range(6)}, "first")
    store = ChunkStore.open(tmp_path / "store")
    base = tmp_path / "base"
    build_index(repo.path, first, base, store=store)
    warm_lexical(base, store=store)
    if damage in EDITS:
        with sqlite3.connect(base / "index.sqlite") as conn:
            assert conn.execute(EDITS[damage]).rowcount > 0
    elif damage == "macs":
        macs = json.loads((base / "reuse" / "macs.json").read_text())
        macs["pkg/m2.py"] = "0" * 64
        (base / "reuse" / "macs.json").write_text(json.dumps(macs))
    elif damage == "seal":
        (base / "reuse" / "index.mac").unlink()
    elif damage == "link":  # the same bytes elsewhere: a link is never followed
        (base / "index.sqlite").rename(tmp_path / "elsewhere.sqlite")
        (base / "index.sqlite").symlink_to(tmp_path / "elsewhere.sqlite")
    else:  # built by another user: another key
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-cache"))
    second = repo.commit({"pkg/m4.py": _source(rng)}, "second")
    writes.clear()
    build_index(repo.path, second, tmp_path / "second", store=ChunkStore.open(store.root))
    assert len(writes) == 6  # every file's rows written again, from the store or parsed
    _same_as_cold(repo, second, tmp_path / "second", tmp_path / "cold")


def test_a_blob_kept_under_another_mode_is_decided_again(tmp_path: Path) -> None:
    history = History(tmp_path / "repo", random.Random(2))
    store = ChunkStore.open(tmp_path / "store")
    build_index(history.repo.path, history.commit, tmp_path / "first", store=store)
    points, script = history.repo.path / "pkg" / "points.py", history.repo.path / "pkg/m1.py"
    points.unlink()
    os.symlink("target.py", points)  # the blob of its old text: "target.py"
    script.chmod(0o755)
    second = history._commit("a link and a script")
    assert git(history.repo.path, "diff-tree", "-r", "--no-renames", history.commit,
               second).count(":100644 ") == 2
    build_index(history.repo.path, second, tmp_path / "second", store=store)
    _same_as_cold(history.repo, second, tmp_path / "second", tmp_path / "cold")


def test_a_revision_that_changes_most_files_is_written_whole(tmp_path: Path,
                                                             writes: list[str]) -> None:
    """Deleting and writing again most rows of a copy costs more than a fresh file from
    the store: past half the files changed, the build starts from nothing."""
    repo = Repo(tmp_path / "repo")
    rng = random.Random(8)
    first = repo.commit({f"pkg/m{n}.py": _source(rng) for n in range(10)}, "first")
    store = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, first, tmp_path / "first", store=store)
    few = repo.commit({f"pkg/m{n}.py": _source(rng) for n in range(4)}, "four of ten")
    writes.clear()
    build_index(repo.path, few, tmp_path / "few", store=store)
    assert sorted(writes) == [f"pkg/m{n}.py" for n in range(4)]
    most = repo.commit({f"pkg/m{n}.py": _source(rng) for n in range(4, 10)}, "six of ten")
    writes.clear()
    build_index(repo.path, most, tmp_path / "most", store=store)
    assert len(writes) == 10  # four from the store, six parsed
    _same_as_cold(repo, most, tmp_path / "most", tmp_path / "cold")
