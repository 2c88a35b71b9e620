"""``cases import swebench --repos-dir``: a repository name from the instances file never
leads out of the clones folder, and a base that is no commit is skipped, not a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitrepo import Repo
from hostilekit import assert_clean_error, run_cli

PATCH = ("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n"
         "-def f():\n+def f(): return 1\n")


def _instances(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / "instances.jsonl"
    path.write_text(json.dumps({"instance_id": "x-1", "problem_statement": "f is wrong",
                                "patch": PATCH, **fields}) + "\n")
    return path


@pytest.mark.parametrize("name", ["../outside", "o/../../outside", "/abs/outside"])
def test_a_repository_name_never_climbs_out_of_the_clones(tmp_path: Path, name: str) -> None:
    outside = Repo(tmp_path / "outside")
    sha = outside.commit({"a.py": "def f():\n    pass\n"})
    clones = tmp_path / "clones"
    clones.mkdir()
    instances = _instances(tmp_path, repo=name.replace("/abs/outside", str(tmp_path / "outside")),
                           base_commit=sha)
    proc = run_cli("cases", "import", "swebench", instances, "--repos-dir", clones,
                   "-o", tmp_path / "out.yaml", timeout=60)
    assert_clean_error(proc, contains="no local clone")
    assert not (tmp_path / "out.yaml").exists()


@pytest.mark.parametrize("base", [{"base": "main"}, {"base": ["x"]}, {"base": 7}])
def test_a_base_that_is_no_commit_is_skipped(tmp_path: Path, base: dict[str, object]) -> None:
    clones = tmp_path / "clones"
    Repo(clones / "repo").commit({"a.py": "def f():\n    pass\n"})
    proc = run_cli("cases", "import", "swebench", _instances(tmp_path, repo="o/repo", **base),
                   "--repos-dir", clones, "-o", tmp_path / "out.yaml", timeout=60)
    assert_clean_error(proc, contains="not a 40-hex commit")
