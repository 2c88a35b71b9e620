"""Clone folder names, both ways, from one table: every spelling clone_for finds is read
back as the same repository by repository_of_folder (and so by manifest naming)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.index.clones import clone_for, clone_names, repository_of_folder


@pytest.mark.parametrize("spelling", ["acme+shop", "acme__shop", "acme+shop.git"])
def test_a_spelled_folder_names_its_repository_both_ways(tmp_path: Path, spelling: str) -> None:
    clone = tmp_path / spelling
    (clone / ".git").mkdir(parents=True)
    assert clone_for(tmp_path, "acme/shop") == clone
    assert repository_of_folder(spelling) == "acme/shop"


def test_names_in_order_and_hostile_names_refused() -> None:
    assert clone_names("github.com/acme/shop") == ["acme+shop", "acme__shop", "acme/shop", "shop"]
    assert clone_names("shop") == ["shop"]
    for hostile in ("../etc", "acme/..", "acme/shop/../../x", "a b/c", ""):
        assert clone_names(hostile) is None
    assert repository_of_folder("shop") is None and repository_of_folder("+shop") is None


def test_swebench_drafts_find_clones_the_same_way(tmp_path: Path) -> None:
    from codegold.curate.fromchanges import _repo_path

    clone = tmp_path / "acme__shop"
    (clone / ".git").mkdir(parents=True)
    assert _repo_path("acme/shop", None, str(tmp_path)) == str(clone)
    assert _repo_path("../../etc/passwd", None, str(tmp_path)) is None
