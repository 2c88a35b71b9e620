"""plumbing.git: isolation from the caller's GIT_* variables, timeouts, revision checks,
and annotated tags peeled to their commit when indexing."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from codegold.errors import CodeIndexError, InputError
from codegold.index import build_index
from codegold.index.gitsnap import GitSnapshot
from codegold.plumbing.git import git as run_git
from codegold.plumbing.git import git_env, is_full_sha
from gitrepo import Repo, git


def test_is_full_sha() -> None:
    assert is_full_sha("a" * 40)
    for bad in ("A" * 40, "a" * 39, "a" * 41, "--output=/tmp/x", "HEAD", "", None, "g" * 40,
                "a" * 40 + "\n"):
        assert not is_full_sha(bad), bad


def test_env_drops_every_git_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                 "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0",
                 "GIT_CONFIG_VALUE_0", "GIT_CONFIG_PARAMETERS", "GIT_EXTERNAL_DIFF"):
        monkeypatch.setenv(name, "x")
    env = git_env()
    assert env["GIT_CONFIG_NOSYSTEM"] == "1" and env["GIT_TERMINAL_PROMPT"] == "0"
    assert {k for k in env if k.startswith("GIT_")} == {
        "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT", "GIT_ASKPASS", "GIT_PAGER",
        "GIT_OPTIONAL_LOCKS", "GIT_NO_REPLACE_OBJECTS"}


def test_hook_environment_cannot_redirect_to_another_repo(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    ours = Repo(tmp_path / "ours")
    mine = ours.commit({"a.py": "x = 1\n"})
    theirs = Repo(tmp_path / "theirs")
    other = theirs.commit({"b.py": "y = 2\n"})
    # What a git hook running `codegold index` in "theirs" would have set.
    monkeypatch.setenv("GIT_DIR", str(theirs.path / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(theirs.path))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.bare")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    snap = GitSnapshot.open(ours.path, "HEAD")
    assert snap.revision == mine != other
    assert [e.path for e in snap.entries()] == ["a.py"]


def test_timeout_kills_git_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    # A "git" that hangs and leaves a grandchild holding its output pipe.
    fake.write_text("#!/bin/sh\nsleep 30 &\nsleep 30\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    started = time.monotonic()
    with pytest.raises(CodeIndexError, match=r"git rev-parse in .* did not finish within 0.5s"):
        run_git(["rev-parse", "HEAD"], repo=tmp_path, timeout=0.5)
    assert time.monotonic() - started < 5


def test_failure_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(CodeIndexError, match="git rev-parse failed in"):
        run_git(["rev-parse", "--verify", "--end-of-options", "nope"], repo=tmp_path)


def test_option_looking_revision_is_refused(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit({"a.py": "x = 1\n"})
    with pytest.raises(InputError, match="not a valid revision"):
        GitSnapshot.open(repo.path, "--output=/tmp/x")


def test_annotated_tag_is_peeled_to_its_commit(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    commit = repo.commit({"a.py": "def f():\n    return 1\n"})
    git(repo.path, "tag", "-a", "3.0.3", "-m", "release")
    tag_object = git(repo.path, "rev-parse", "3.0.3")
    assert tag_object != commit  # an annotated tag has its own object id
    manifest = build_index(repo.path, "3.0.3", tmp_path / "idx")
    assert manifest.revision == commit
    assert manifest.revision_given == "3.0.3"
    # The tag object's own id names the same commit, never itself.
    assert build_index(repo.path, tag_object, tmp_path / "idx2").revision == commit
    # A full commit sha is its own name: nothing extra to record.
    assert build_index(repo.path, commit, tmp_path / "idx3").revision_given is None


def test_diagnose_repo_view_ignores_hook_environment(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from codegold.diagnose.sources import RepoView

    ours = Repo(tmp_path / "ours")
    mine = ours.commit({"a.py": "x = 1\n"})
    theirs = Repo(tmp_path / "theirs")
    theirs.commit({"b.py": "y = 2\n"})
    monkeypatch.setenv("GIT_DIR", str(theirs.path / ".git"))
    view = RepoView(ours.path)
    assert view.paths(mine) == ["a.py"]
    assert view.exists(mine, "a.py") is True and view.exists(mine, "b.py") is False
    assert view.text(mine, "a.py") == "x = 1\n"
    with pytest.raises(InputError, match="not a full 40-character"):
        view.text("--output=/tmp/x", "a.py")


def test_stalled_blob_stream_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import codegold.index.gitsnap as gitsnap

    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nsleep 30\n")  # a cat-file that never answers
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(gitsnap, "BLOB_STALL_SECONDS", 0.5)
    snapshot = GitSnapshot(tmp_path, "a" * 40, "a" * 40)
    started = time.monotonic()
    with pytest.raises(CodeIndexError, match="made no progress"):
        list(snapshot.blobs(["b" * 40]))
    assert time.monotonic() - started < 10
