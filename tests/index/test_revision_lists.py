"""``--revisions``: a list of any length is a list, a path a file only when one exists
there, and a range ``A..B`` the commits git names for it, oldest first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.errors import InputError
from codegold.index.many import expand_revisions, read_revisions
from gitrepo import Repo, git

MakeRepo = Callable[[str], Repo]


def test_a_list_longer_than_a_file_name_is_read_as_a_list() -> None:
    shas = [f"{n:040x}" for n in range(50)]  # 50 * 41 bytes: over any file name limit
    assert read_revisions(",".join(shas)) == shas


def test_a_file_is_read_only_when_one_exists(tmp_path: Path) -> None:
    listed = tmp_path / "revs.txt"
    listed.write_text("v1\nv2 # second\n")
    assert read_revisions(str(listed)) == ["v1", "v2"]
    assert read_revisions(str(tmp_path / "absent,v3")) == [str(tmp_path / "absent"), "v3"]


def test_ranges_expand_oldest_first_and_bad_ones_are_refused(make_repo: MakeRepo) -> None:
    repo = make_repo("proj")
    commits = [repo.commit({"a.py": f"x = {n}\n"}, f"c{n}") for n in range(5)]
    git(repo.path, "tag", "v0", commits[0])
    assert expand_revisions(repo.path, ["v0..main"]) == commits[1:]
    assert expand_revisions(repo.path, [commits[0], f"{commits[2]}..{commits[4]}"]) == \
        [commits[0], *commits[3:]]
    for bad in ("..main", "main..v0", "v0..nosuch"):
        with pytest.raises(InputError, match="revision range"):
            expand_revisions(repo.path, [bad])


def test_cli_builds_fifty_revisions_given_as_a_list(make_repo: MakeRepo,
                                                     tmp_path: Path) -> None:
    repo = make_repo("proj")
    commits = [repo.commit({"a.py": f"def f():\n    return {n}\n"}, f"c{n}")
               for n in range(50)]
    done = CliRunner().invoke(cli, ["index", str(repo.path), "--revisions", ",".join(commits),
                                    "-o", str(tmp_path / "idx"), "--quiet"])
    assert done.exit_code == 0, done.output
    assert "50 indexes built" in done.output
    ranged = CliRunner().invoke(cli, ["index", str(repo.path), "--revisions",
                                      f"{commits[0]}..{commits[9]}", "-o",
                                      str(tmp_path / "idx"), "--quiet"])
    assert ranged.exit_code == 0, ranged.output
    assert "0 indexes built, 9 already there" in ranged.output


def test_cli_says_how_many_caches_were_derived(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo("proj")
    commits = [repo.commit({"a.py": f"def f():\n    return {n}\n", "b.py": "x = 1\n"},
                           f"c{n}") for n in range(3)]
    done = CliRunner().invoke(cli, ["index", str(repo.path), "--revisions", ",".join(commits),
                                    "-o", str(tmp_path / "idx")])
    assert done.exit_code == 0, done.output
    # the first revision's engines are counted whole, each later one's derived
    assert "lexical caches ready for 3 index(es)" in done.output
    assert "; 6 engines derived from an earlier revision's" in done.output
