"""Many revisions built in one call share their git processes: the revisions are named in
one ``rev-parse``, one ``cat-file --batch`` streams every blob and one ``--batch-check``
every size, instead of a handful of processes per revision; what they answer is what a
process of their own would."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from codegold.errors import CodeIndexError
from codegold.index.gitsnap import GIT_THREAD_PREFIX, GitObjects, GitSnapshot
from codegold.index.many import _resolve_all, build_many
from codegold.plumbing import git as git_module
from gitrepo import Repo, git
from indexrows import index_rows

MakeRepo = Callable[[str], Repo]


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """The git command lines started (git's own arguments: after ``-c`` settings)."""
    seen: list[list[str]] = []
    popen = subprocess.Popen

    def counting(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        words = list(argv)
        while len(words) > 1 and words[1] in ("-C", "-c"):
            del words[1:3]
        seen.append(words[1:])
        return popen(argv, *args, **kwargs)

    monkeypatch.setattr(git_module.subprocess, "Popen", counting)
    yield seen


def _history(repo: Repo, count: int) -> list[str]:
    files = {f"pkg/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(6)}
    commits = [repo.commit(files, "first")]
    for number in range(1, count):
        commits.append(repo.commit({f"pkg/m{number % 6}.py":
                                    f"def g{number}(x):\n    return x * {number}\n"},
                                   f"edit {number}"))
    return commits


def test_one_cat_file_process_of_each_kind_serves_every_revision(
        make_repo: MakeRepo, tmp_path: Path, started: list[list[str]]) -> None:
    repo = make_repo("proj")
    commits = _history(repo, 8)
    started.clear()
    result = build_many(repo.path, tmp_path / "idx", commits)
    assert len(result.built) == 8
    cat_files = [argv for argv in started if argv[0] == "cat-file"]
    assert len(cat_files) == 2, cat_files  # one --batch, one --batch-check, for all 8
    # nothing per revision: trees are read through the same cat-file --batch
    assert len(started) <= 10, "\n".join(map(str, started))
    for commit in commits:  # each index as a build of its own writes it
        build_index_alone = tmp_path / "alone" / commit
        build_many(repo.path, build_index_alone.parent, [commit], use_store=False)
        assert index_rows(tmp_path / "idx" / commit) == index_rows(build_index_alone)


def test_revisions_are_named_in_one_call(make_repo: MakeRepo,
                                         started: list[list[str]]) -> None:
    repo = make_repo("proj")
    commits = _history(repo, 4)
    git(repo.path, "tag", "v1", commits[1])
    started.clear()
    found = _resolve_all(repo.path, [*commits, "v1", "main"])
    assert found == {**{commit: commit for commit in commits}, "v1": commits[1],
                     "main": commits[-1]}
    # the repository's checks (as for one revision), then every name in one rev-parse,
    # and one list of the refs (a name two refs answer to is refused)
    assert len(started) <= 4, started


def test_answers_stay_in_step_after_a_request_is_left_early(make_repo: MakeRepo) -> None:
    repo = make_repo("proj")
    repo.commit({"a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma\n"}, "one")
    shas = {name: git(repo.path, "rev-parse", f"HEAD:{name}") for name in
            ("a.txt", "b.txt", "c.txt")}
    with GitObjects(repo.path) as objects:
        first = objects.blobs([shas["a.txt"], shas["b.txt"], shas["c.txt"]])
        assert next(first) == (shas["a.txt"], b"alpha\n")
        first.close()  # two answers never read: they must not answer the next request
        assert list(objects.blobs([shas["c.txt"], shas["b.txt"]])) == [
            (shas["c.txt"], b"gamma\n"), (shas["b.txt"], b"beta\n")]
        with pytest.raises(CodeIndexError, match="could not read object"):
            list(objects.blobs(["0" * 40]))
        assert list(objects.blobs([shas["a.txt"]])) == [(shas["a.txt"], b"alpha\n")]
        assert objects.sizes([shas["a.txt"], "0" * 40, shas["c.txt"]]) == {
            shas["a.txt"]: 6, shas["c.txt"]: 6}
        assert objects.sizes([shas["b.txt"]]) == {shas["b.txt"]: 5}
        assert objects.started == 4  # --batch three times (two requests ended early), one check
        # no thread outlives its request: a build forks workers only from a process
        # that runs no other thread (other tests' threads in this process aside)
        assert not [t.name for t in threading.enumerate()
                    if t.name.startswith(GIT_THREAD_PREFIX)]


def test_a_resolved_snapshot_reads_what_an_opened_one_reads(make_repo: MakeRepo) -> None:
    repo = make_repo("proj")
    commit = repo.commit({"a.py": "x = 1\n", "sub/b.py": "y = 2\n" * 50}, "one")
    alone = GitSnapshot.open(repo.path, "main")
    with GitObjects(repo.path) as objects:
        shared = GitSnapshot.resolved(objects, commit)
        assert shared.entries() == alone.entries()
        listed = alone.entries(sizes=False)
        assert shared.sized(listed) == alone.sized(listed) == alone.entries()
        shas = [entry.sha for entry in listed]
        assert list(shared.blobs(shas)) == list(alone.blobs(shas))
        assert shared.missing_blobs() == alone.missing_blobs() == set()


@pytest.mark.parametrize("shared", [True, False])
def test_a_git_that_stops_answering_is_stopped(make_repo: MakeRepo, shared: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo("proj")
    commit = repo.commit({"a.txt": "alpha\n"}, "one")

    def silent(args: list[str], *, repo: object) -> subprocess.Popen[bytes]:
        return subprocess.Popen(["sleep", "60"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)

    monkeypatch.setattr("codegold.index.gitsnap.BLOB_STALL_SECONDS", 0.2)
    monkeypatch.setattr("codegold.index.gitsnap.git_popen", silent)
    with GitObjects(repo.path) as objects:
        snapshot = GitSnapshot.resolved(objects, commit) if shared else \
            GitSnapshot.open(repo.path, commit)
        with pytest.raises(CodeIndexError, match="made no progress"):
            list(snapshot.blobs(["1" * 40]))
        if shared:
            with pytest.raises(CodeIndexError, match="made no progress"):
                objects.sizes(["1" * 40])


def test_trees_read_through_cat_file_list_what_ls_tree_lists(make_repo: MakeRepo) -> None:
    repo = make_repo("proj")
    # names that sort differently as bytes and as folders ("a.b" before "a/"), modes,
    # a link, odd bytes, and a submodule's commit
    repo.commit({"a.b": "1\n", "a/b.py": "2\n", "a/c/d.py": "3\n", "a-z/x": "4\n",
                 "odd\nname\t.py": "5\n", "caf\u00e9/menu.txt": "6\n", "run.sh": "7\n"}, "one")
    (repo.path / "run.sh").chmod(0o755)
    (repo.path / "link").symlink_to("a/b.py")
    (repo.path / bytes.fromhex("ff6e616d65").decode("utf-8", "surrogateescape")).write_text("8")
    git(repo.path, "add", "-A")
    git(repo.path, "update-index", "--add", "--cacheinfo",
        f"160000,{git(repo.path, 'rev-parse', 'HEAD')},vendor/lib")
    git(repo.path, "commit", "-q", "-m", "two")
    commits = [git(repo.path, "rev-parse", "HEAD~1"), git(repo.path, "rev-parse", "HEAD")]
    commits.append(repo.commit({"a/c/d.py": "changed\n", "a/b.py": None}, "three"))
    git(repo.path, "mv", "a", "moved")
    git(repo.path, "commit", "-q", "-m", "four")
    commits.append(git(repo.path, "rev-parse", "HEAD"))
    commits.append(commits[1])  # listed again: every subtree from what was kept
    with GitObjects(repo.path) as objects:
        for commit in commits:
            alone = GitSnapshot.open(repo.path, commit)
            shared = GitSnapshot.resolved(objects, commit)
            assert shared.entries(sizes=False) == alone.entries(sizes=False)
            assert shared.entries() == alone.entries()
        assert objects.started == 2
    kinds = {entry.mode for entry in GitSnapshot.open(repo.path, commits[1]).entries()}
    assert kinds == {"100644", "100755", "120000", "160000"}


def test_revisions_are_named_in_batches(make_repo: MakeRepo, started: list[list[str]],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo("proj")
    commits = _history(repo, 5)
    monkeypatch.setattr("codegold.index.many._RESOLVE_BATCH", 2)
    started.clear()
    found = _resolve_all(repo.path, [*commits, "main"])
    assert found == {**{commit: commit for commit in commits}, "main": commits[-1]}
    assert len([argv for argv in started if argv[0] == "rev-parse" and "--verify" not in argv
                and "^{commit}" in argv[-1]]) == 3, started


@pytest.mark.slow
def test_more_revision_names_than_a_command_line_holds_are_named(
        make_repo: MakeRepo) -> None:
    """Twelve thousand tags of 200 characters: 2.5 MB of arguments in one call, more
    than Linux's 2 MB."""
    repo = make_repo("proj")
    commits = _history(repo, 2)
    names = [f"release-{i:06d}-" + "x" * 185 for i in range(12_000)]
    lines = "".join(f"create refs/tags/{name} {commits[i % 2]}\n"
                    for i, name in enumerate(names))
    subprocess.run(["git", "-C", str(repo.path), "update-ref", "--stdin"], input=lines,
                   text=True, check=True)
    subprocess.run(["git", "-C", str(repo.path), "pack-refs", "--all"], check=True)
    found = _resolve_all(repo.path, names)
    assert len(found) == len(names)
    assert found[names[0]] == commits[0] and found[names[-1]] == commits[1]
