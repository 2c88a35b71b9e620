"""Hostile repositories for ``codegold index``, fourth round: names git resolves to
another commit than the one the user typed, and revisions that name no commit."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gitrepo import Repo, git
from hostilekit import assert_clean_error, run_cli


def _two_commits(tmp_path: Path) -> tuple[Repo, str, str]:
    repo = Repo(tmp_path / "repo")
    first = repo.commit({"app.py": "def first():\n    return 1\n"}, "one")
    second = repo.commit({"lib.py": "def second():\n    return 2\n"}, "two")
    return repo, first, second


@pytest.mark.parametrize("flag", ["--revision", "--revisions"])
def test_a_branch_named_like_a_short_sha_is_refused_not_picked(tmp_path: Path,
                                                               flag: str) -> None:
    """A branch called ``c729a37`` that points at another commit than the one whose id
    starts ``c729a37``: git takes the branch (a warning codegold never shows) and the
    index was of the other tree, under the short sha the user typed."""
    repo, first, second = _two_commits(tmp_path)
    short = second[:7]
    git(repo.path, "branch", short, first)
    out = tmp_path / "out"
    proc = run_cli("index", repo.path, flag, short, "-o", out, "--quiet", timeout=120)
    assert_clean_error(proc, contains=[f"'{short}' is ambiguous", f"refs/heads/{short}",
                                       second])
    assert not out.exists() or not any(p.name != ".chunkstore" for p in out.iterdir())
    # each, named in full, is built from its own commit
    for name, commit in ((second, second), (f"refs/heads/{short}", first)):
        assert _indexed_revision(repo, name, tmp_path / f"one-{commit[:6]}") == commit


def _indexed_revision(repo: Repo, name: str, out: Path) -> str:
    """The revision ``codegold index --revision NAME`` built (it must build)."""
    done = run_cli("index", repo.path, "--revision", name, "-o", out, "--quiet", timeout=120)
    assert done.returncode == 0, done.stderr
    return str(json.loads((out / "manifest.json").read_text())["revision"])


def test_a_branch_named_like_its_own_short_sha_is_no_ambiguity(tmp_path: Path) -> None:
    repo, _, second = _two_commits(tmp_path)
    git(repo.path, "branch", second[:7], second)
    assert _indexed_revision(repo, second[:7], tmp_path / "idx") == second


def _colliding_commits(repo: Repo, tree: str) -> tuple[str, str]:
    """Two commits of ``tree`` whose ids share their first four hex digits (found by
    hashing candidate commit texts here; only the pair is written to the repository)."""
    seen: dict[str, bytes] = {}
    for n in range(200_000):
        body = f"tree {tree}\nauthor a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n\nc{n}\n"
        raw = body.encode()
        sha = hashlib.sha1(b"commit %d\0" % len(raw) + raw).hexdigest()
        if sha[:4] in seen:
            shas = []
            for text in (seen[sha[:4]], raw):
                path = repo.path / "commit.txt"
                path.write_bytes(text)
                shas.append(git(repo.path, "hash-object", "-w", "-t", "commit", str(path)))
                path.unlink()
            return shas[0], shas[1]
        seen[sha[:4]] = raw
    raise AssertionError("no pair of commits shares a prefix")


def test_an_ambiguous_short_sha_says_ambiguous_not_unknown(tmp_path: Path) -> None:
    repo, first, _ = _two_commits(tmp_path)
    one, two = _colliding_commits(repo, git(repo.path, "rev-parse", f"{first}^{{tree}}"))
    assert one[:4] == two[:4] and one != two
    proc = run_cli("index", repo.path, "--revision", one[:4], "-o", tmp_path / "idx",
                   "--quiet", timeout=60)
    assert_clean_error(proc, contains=[f"'{one[:4]}' is ambiguous", one, two, "more of the sha"])


@pytest.mark.parametrize("what", ["tree", "blob", "tree-id"])
def test_a_revision_naming_a_tree_or_blob_says_so(tmp_path: Path, what: str) -> None:
    repo, _, _ = _two_commits(tmp_path)
    revision = {"tree": "HEAD^{tree}", "blob": "HEAD:app.py",
                "tree-id": git(repo.path, "rev-parse", "HEAD^{tree}")}[what]
    proc = run_cli("index", repo.path, "--revision", revision, "-o", tmp_path / "idx",
                   "--quiet", timeout=60)
    kind = "blob" if what == "blob" else "tree"
    assert_clean_error(proc, contains=[revision, f"names a {kind}, not a commit"])
    assert not (tmp_path / "idx").exists()


def test_an_unborn_head_says_so(tmp_path: Path) -> None:
    """A repository with commits whose HEAD is on a new branch without any (after
    ``git checkout --orphan``): 'unknown revision HEAD' sent the user looking for a typo."""
    repo, _, _ = _two_commits(tmp_path)
    git(repo.path, "checkout", "-q", "--orphan", "fresh")
    for flag in ("--revision", "--revisions"):
        proc = run_cli("index", repo.path, flag, "HEAD", "-o", tmp_path / "idx", "--quiet",
                       timeout=60)
        assert_clean_error(proc, contains=["HEAD is on branch 'fresh'", "no commits yet"])
    done = run_cli("index", repo.path, "--revision", "main", "-o", tmp_path / "idx",
                   "--quiet", timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("where", ["revisions-output", "revisions-store", "single-store"])
def test_nothing_is_made_inside_the_git_directory(tmp_path: Path, where: str) -> None:
    """A single build refused an output inside .git/, but a build of many revisions made
    its folder and chunk store there before each revision's output was refused, and a
    --store inside .git/ was written for any build."""
    repo, _, _ = _two_commits(tmp_path)
    git_dir = repo.path / ".git"
    before = sorted(p.name for p in git_dir.iterdir())
    link = tmp_path / "git-link"
    link.symlink_to(git_dir)
    flags = {"revisions-output": ("--revisions", "HEAD", "-o", link / "many"),
             "revisions-store": ("--revisions", "HEAD", "-o", tmp_path / "many",
                                 "--store", link / "store"),
             "single-store": ("--revision", "HEAD", "-o", tmp_path / "one",
                              "--store", link / "store")}[where]
    proc = run_cli("index", repo.path, *flags, "--quiet", timeout=60)
    what = "output directory" if where == "revisions-output" else "chunk store"
    assert_clean_error(proc, contains=[f"{what} lies inside the repository's git directory",
                                       "-o" if what == "output directory" else "--store"])
    assert sorted(p.name for p in git_dir.iterdir()) == before


def test_a_short_hex_branch_name_is_taken_as_the_branch(tmp_path: Path) -> None:
    """Under 7 hex digits a name is read as a ref, as git reads it: in a large history
    some commit's id starts with any four digits, and a branch called ``cafe`` must
    still build."""
    repo, first, second = _two_commits(tmp_path)
    git(repo.path, "branch", first[:4], second)
    assert _indexed_revision(repo, first[:4], tmp_path / "idx") == second
