"""Many revisions in one call, as a hostile repository or user would drive them: what
each revision's index holds is what a build of that revision alone holds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from codegold.index import gitsnap
from codegold.index.gitsnap import GitObjects, GitSnapshot
from gitrepo import Repo

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
