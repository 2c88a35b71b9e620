"""Many revisions in one call, as a hostile repository or user would drive them: what
each revision's index holds is what a build of that revision alone holds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from codegold.index import gitsnap
from codegold.index.gitsnap import GitObjects, GitSnapshot
from codegold.index.many import build_many
from gitrepo import Repo, git
from hostilekit import assert_clean_error, run_cli
from indexrows import index_rows

MakeRepo = Callable[[str], Repo]


@pytest.mark.parametrize("kept", [20, 25])
def test_a_kept_subtree_dropped_while_a_revision_is_listed_is_not_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: int) -> None:
    """The subtree listings a long history keeps are bounded: the oldest went while a
    revision was being put together, so one it had found kept (and not read) was gone
    by the time it was reached (a KeyError on a large repository's tenth revision)."""
    repo = Repo(tmp_path / "repo")
    files = {f"{top}/{sub}/f{n}.py": f"x = {n}\n"
             for top in "abc" for sub in "pq" for n in range(3)}
    commits = [repo.commit(files, "one"),
               repo.commit({"a/p/f0.py": "y = 1\n", "c/q/f1.py": "z = 1\n"}, "two"),
               repo.commit({"a/p/f0.py": "w = 1\n", "b/q/f1.py": "z = 1\n"}, "three")]
    monkeypatch.setattr(gitsnap, "_LISTED_ENTRIES", kept)
    with GitObjects(repo.path) as objects:
        for commit in [*commits, *commits]:
            shared = GitSnapshot.resolved(objects, commit).entries(sizes=False)
            assert shared == GitSnapshot.open(repo.path, commit).entries(sizes=False)


def _tagged(tmp_path: Path) -> tuple[Repo, list[str]]:
    """Three commits tagged v1..v3, and a tag and a branch both called ``dup`` that name
    different commits (v1's and v2's)."""
    repo = Repo(tmp_path / "repo")
    commits = [repo.commit({"pkg/a.py": "def f():\n    return 1\n"}, "one"),
               repo.commit({"pkg/b.py": "def g():\n    return 2\n"}, "two"),
               repo.commit({}, "empty")]
    for number, commit in enumerate(commits, 1):
        git(repo.path, "tag", f"v{number}", commit)
    git(repo.path, "tag", "dup", commits[0])
    git(repo.path, "branch", "dup", commits[1])
    return repo, commits


@pytest.mark.parametrize("flags", [("--revision", "dup"), ("--revisions", "dup,v3"),
                                   ("--revisions", "dup..v3"), ("--revisions", "v1..dup")])
def test_a_tag_and_a_branch_of_one_name_are_refused_not_picked(tmp_path: Path,
                                                              flags: tuple[str, str]) -> None:
    """git takes the tag quietly (its warning is off under --quiet): the index would be
    of a tree the user may not have meant."""
    repo, _ = _tagged(tmp_path)
    out = tmp_path / "out"
    proc = run_cli("index", repo.path, *flags, "-o", out / "one" if flags[0] == "--revision"
                   else out, "--quiet", timeout=120)
    assert_clean_error(proc, contains=["'dup' is ambiguous", "refs/tags/dup", "refs/heads/dup"])
    assert not any(path.name != ".chunkstore" for path in out.glob("*")), list(out.glob("*"))
    # named in full, each is built from its own commit
    full = run_cli("index", repo.path, "--revisions", "refs/heads/dup,refs/tags/dup",
                   "-o", out, "--quiet", timeout=120)
    assert full.returncode == 0, full.stderr
    assert {path.name for path in out.iterdir()} >= {git(repo.path, "rev-parse", "v1"),
                                                    git(repo.path, "rev-parse", "v2")}


def test_one_name_for_one_commit_twice_is_no_ambiguity(tmp_path: Path) -> None:
    repo, commits = _tagged(tmp_path)
    git(repo.path, "tag", "same", commits[2])
    git(repo.path, "branch", "same", commits[2])
    proc = run_cli("index", repo.path, "--revisions", "same,v1", "-o", tmp_path / "out",
                   "--quiet", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / commits[2] / "manifest.json").is_file()


def test_a_revisions_file_from_a_windows_editor_is_read(tmp_path: Path) -> None:
    """A byte order mark, CRLF line ends, comments, blank lines and spaces."""
    repo, commits = _tagged(tmp_path)
    revisions = tmp_path / "revisions.txt"
    revisions.write_bytes(b"\xef\xbb\xbfv1\r\n# a comment\r\n\r\n  v2  # the second\r\n\r\n")
    proc = run_cli("index", repo.path, "--revisions", revisions, "-o", tmp_path / "out",
                   "--quiet", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.name != ".chunkstore") \
        == sorted(commits[:2])


def test_a_range_with_an_unknown_end_names_that_end(tmp_path: Path) -> None:
    repo, _ = _tagged(tmp_path)
    proc = run_cli("index", repo.path, "--revisions", "v1..nope", "-o", tmp_path / "out",
                   "--quiet", timeout=60)
    line = assert_clean_error(proc, contains="unknown revision 'nope'")
    assert "fatal:" not in line and "\\x0a" not in line, line


def _caches(index: Path) -> dict[str, bytes]:
    return {str(file.relative_to(index)): file.read_bytes()
            for file in sorted((index / "lexical").rglob("*")) if file.is_file()}


def test_a_rerun_after_a_stopped_run_pays_the_caches_it_skipped(tmp_path: Path) -> None:
    """A many-revision run builds every revision, then their caches: one stopped between
    the two left complete indexes without caches, which the rerun skipped as done (and
    never warmed), so each first query paid them."""
    repo, commits = _tagged(tmp_path)
    out = tmp_path / "out"
    build_many(repo.path, out, commits[:2])  # what the stopped run left
    proc = run_cli("index", repo.path, "--revisions", ",".join(commits), "-o", out,
                   "--quiet", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "1 indexes built, 2 already there" in proc.stdout + proc.stderr
    for commit in commits:
        cold = tmp_path / "cold" / commit
        again = run_cli("index", repo.path, "--revision", commit, "-o", cold, "--quiet",
                        timeout=120)
        assert again.returncode == 0, again.stderr
        assert _caches(out / commit) == _caches(cold) != {}, commit


def test_a_name_that_is_a_file_here_and_a_revision_is_refused(tmp_path: Path) -> None:
    """``--revisions v1`` beside a file called ``v1`` was read as that file's list (here
    the other revision): an index of another revision than the one named, silently."""
    repo, commits = _tagged(tmp_path)
    (tmp_path / "v1").write_text("v2\n", encoding="utf-8")
    proc = run_cli("index", repo.path, "--revisions", "v1", "-o", tmp_path / "out",
                   "--quiet", cwd=tmp_path, timeout=60)
    assert_clean_error(proc, contains=["both a file", "./v1", "v1,"])
    assert not (tmp_path / "out" / commits[1]).exists()
    for spec, commit in (("./v1", commits[1]), ("v1,", commits[0])):
        done = run_cli("index", repo.path, "--revisions", spec, "-o", tmp_path / "out",
                       "--quiet", cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "out" / commit / "manifest.json").is_file()


@pytest.mark.parametrize("pin", ["tree", "blob", "unknown"])
def test_a_case_pinning_no_commit_is_named_in_the_error(tmp_path: Path, pin: str) -> None:
    """Of a suite's many pins, the one that names a tree, a blob or nothing known."""
    repo, commits = _tagged(tmp_path)
    bad = {"tree": git(repo.path, "rev-parse", "v2^{tree}"),
           "blob": git(repo.path, "rev-parse", "v2:pkg/a.py"), "unknown": "0" * 40}[pin]
    cases = tmp_path / "cases.yaml"
    cases.write_text("format: 1\ndefaults: {repository: acme/repo, cutoff: 3}\ncases:\n" + "".join(
        f"  - id: case-{n}\n    revision: '{revision}'\n    query: where is f\n"
        f"    accepted: [{{file: pkg/a.py}}]\n"
        for n, revision in enumerate([commits[0], bad, commits[1]])), encoding="utf-8")
    proc = run_cli("index", repo.path, "--cases", cases, "-o", tmp_path / "out", "--quiet",
                   timeout=60)
    assert_clean_error(proc, contains=["case 'case-1'", bad])


def test_a_rerun_with_another_policy_builds_again_what_it_changes(tmp_path: Path) -> None:
    """A rerun with a changed --policy said '2 already there' and kept the indexes of the
    old policy (a single build honours it); without --policy what is there is kept."""
    repo, commits = _tagged(tmp_path)
    out = tmp_path / "out"
    first = run_cli("index", repo.path, "--revisions", "v1,v2", "-o", out, "--quiet",
                    timeout=120)
    assert first.returncode == 0, first.stderr
    policy = tmp_path / "policy.yaml"
    policy.write_text('format: 1\nexclude: ["pkg/b.py"]\n', encoding="utf-8")
    again = run_cli("index", repo.path, "--revisions", "v1,v2", "-o", out, "--policy", policy,
                    "--quiet", timeout=120)
    assert again.returncode == 0, again.stderr
    assert "2 indexes built, 0 already there" in again.stdout + again.stderr
    cold = run_cli("index", repo.path, "--revision", "v2", "-o", tmp_path / "cold",
                   "--policy", policy, "--quiet", timeout=120)
    assert cold.returncode == 0, cold.stderr
    assert index_rows(out / commits[1]) == index_rows(tmp_path / "cold")
    assert _caches(out / commits[1]) == _caches(tmp_path / "cold") != {}
    # the same policy again, or none: nothing to build
    for flags in (("--policy", policy), ()):
        same = run_cli("index", repo.path, "--revisions", "v1,v2", "-o", out, *flags,
                       "--quiet", timeout=120)
        assert "0 indexes built, 2 already there" in same.stdout + same.stderr, same.stderr


def test_a_branch_with_a_hash_in_its_name_is_not_cut_to_another(tmp_path: Path) -> None:
    """``fix#12`` in a revisions file was read as ``fix`` and a comment: another branch,
    built without a word."""
    repo, commits = _tagged(tmp_path)
    git(repo.path, "branch", "fix", commits[0])
    git(repo.path, "branch", "fix#12", commits[1])
    revisions = tmp_path / "revisions.txt"
    revisions.write_text("fix#12  # the fix\n", encoding="utf-8")
    proc = run_cli("index", repo.path, "--revisions", revisions, "-o", tmp_path / "out",
                   "--quiet", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.name != ".chunkstore") \
        == [commits[1]]


def test_a_folder_holding_another_revisions_index_is_not_built_over(tmp_path: Path) -> None:
    """v2's index moved by hand to v1's folder name: the run counted v2 as already there
    and then built v1 over it, so v2's index was gone while reported present."""
    repo, commits = _tagged(tmp_path)
    out = tmp_path / "out"
    first = run_cli("index", repo.path, "--revisions", "v2", "-o", out, "--quiet", timeout=120)
    assert first.returncode == 0, first.stderr
    (out / commits[1]).rename(out / commits[0])
    proc = run_cli("index", repo.path, "--revisions", "v2,v1", "-o", out, "--quiet",
                   timeout=120)
    assert_clean_error(proc, contains=[f"holds the index of revision {commits[1]}"])
    manifest = (out / commits[0] / "manifest.json").read_text(encoding="utf-8")
    assert commits[1] in manifest
