"""One command over a suite that spans repositories: a folder of clones, each case built
from its own repository's clone, all indexes in one folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index.catalog import IndexSet
from codegold.index.clones import clone_for
from codegold.index.many import case_sources
from gitrepo import Repo, git


@pytest.fixture()
def clones(tmp_path: Path) -> tuple[Path, str, str]:
    folder = tmp_path / "clones"
    shop = Repo(folder / "acme+shop")
    first = shop.commit({"shop/cart.py": "def add_item(cart, item):\n    return cart + [item]\n"})
    tools = Repo(tmp_path / "work" / "tools")
    second = tools.commit({"tools/fmt.py": "def format_price(cents):\n    return cents / 100\n"})
    # a bare mirror in the layout `owner+name/repo`
    git(folder, "clone", "-q", "--bare", str(tools.path), str(folder / "acme+tools" / "repo"))
    return folder, first, second


def _cases(path: Path, first: str, second: str) -> Path:
    path.write_text(
        "format: 1\n"
        "defaults: {cutoff: 5}\n"
        "cases:\n"
        f"  - {{id: cart, repository: acme/shop, revision: {first}, query: add item to cart,\n"
        "     accepted: [{file: shop/cart.py, symbol: add_item}]}\n"
        f"  - {{id: price, repository: acme/tools, revision: {second}, query: format a price,\n"
        "     accepted: [{file: tools/fmt.py, symbol: format_price}]}\n", encoding="utf-8")
    return path


def test_clone_for_finds_the_usual_layouts_and_nothing_outside(tmp_path: Path,
                                                               clones: tuple[Path, str, str]
                                                               ) -> None:
    folder = clones[0]
    assert clone_for(folder, "acme/shop") == folder / "acme+shop"
    assert clone_for(folder, "github.com/acme/tools") == folder / "acme+tools" / "repo"
    assert clone_for(folder, "acme/missing") is None
    Repo(tmp_path / "outside")
    for hostile in ("../outside", "acme/..", "/etc/passwd", "acme/../../outside", ""):
        assert clone_for(folder, hostile) is None


def test_cases_of_two_repositories_group_by_clone(clones: tuple[Path, str, str],
                                                  tmp_path: Path) -> None:
    from codegold.model import load_cases

    folder, first, second = clones
    cases = load_cases(str(_cases(tmp_path / "cases.yaml", first, second))).cases
    sources = {s.repository: s for s in case_sources(folder, cases)}
    assert sources["acme/shop"].repo == folder / "acme+shop"
    assert sources["acme/shop"].revisions == [first]
    assert sources["acme/tools"].pinned == {second: "price"}


def test_one_index_command_builds_every_repository_of_the_suite(
        clones: tuple[Path, str, str], tmp_path: Path) -> None:
    folder, first, second = clones
    cases = _cases(tmp_path / "cases.yaml", first, second)
    out = tmp_path / "indexes"
    done = CliRunner().invoke(cli, ["index", str(folder), "--cases", str(cases), "-o",
                                    str(out), "--quiet"])
    assert done.exit_code == 0, done.output
    assert "2 indexes built" in done.output
    found = IndexSet.from_path(out).by_revision
    assert set(found) == {first, second}
    names = {json.loads((found[c] / "manifest.json").read_text())["repository"]
             for c in (first, second)}
    assert names == {"acme/shop", "acme/tools"}
    # and `run --repo FOLDER` finds them all: nothing left to build
    attempts = tmp_path / "attempts.jsonl"
    ran = CliRunner().invoke(cli, ["run", str(cases), "--repo", str(folder), "--index",
                                   str(out), "-o", str(attempts), "--quiet"])
    assert ran.exit_code == 0, ran.output
    lines = [json.loads(line) for line in attempts.read_text().splitlines()]
    assert {line["case_id"] for line in lines} == {"cart", "price"}
    assert all(line.get("error") in (None, "") for line in lines), lines


def test_run_repo_builds_the_missing_indexes_of_each_repository(
        clones: tuple[Path, str, str], tmp_path: Path) -> None:
    folder, first, second = clones
    cases = _cases(tmp_path / "cases.yaml", first, second)
    out = tmp_path / "indexes"
    attempts = tmp_path / "attempts.jsonl"
    ran = CliRunner().invoke(cli, ["run", str(cases), "--repo", str(folder), "--index",
                                   str(out), "-o", str(attempts), "--quiet"])
    assert ran.exit_code == 0, ran.output
    assert set(IndexSet.from_path(out).by_revision) == {first, second}


def test_one_repository_flag_for_many_repositories_is_refused(
        clones: tuple[Path, str, str], tmp_path: Path) -> None:
    folder, first, second = clones
    cases = _cases(tmp_path / "cases.yaml", first, second)
    done = CliRunner().invoke(cli, ["index", str(folder), "--cases", str(cases), "-o",
                                    str(tmp_path / "idx"), "--repository", "acme/shop"])
    assert done.exit_code == 2
    assert "--repository names one repository" in done.output
