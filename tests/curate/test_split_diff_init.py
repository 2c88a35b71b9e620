"""``cases split`` (deterministic, stable when cases are added), ``cases diff`` and ``cases init``."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index
from codegold.model import load_cases
from gitrepo import Repo

SHA = "a" * 40


def _cases(path: Path, ids: list[str], **changes: str) -> Path:
    cases = [{"id": i, "query": f"where is {i}", "query_class": "descriptive" if ord(i[-1]) % 2 else
              "exact_identifier", "accepted": [{"file": changes.get(i, f"src/{i}.py")}],
              "rationale": f"why {i}"} for i in ids]
    path.write_text(yaml.safe_dump({"format": 1, "defaults": {"revision": SHA, "cutoff": 5},
                                    "cases": cases}))
    return path


def _split(tmp_path: Path, cases: Path, *extra: str) -> dict[str, str]:
    done = CliRunner().invoke(cli, ["cases", "split", str(cases), "-o", str(tmp_path / "s"),
                                    *extra])
    assert done.exit_code == 0, done.output
    return {c.id: part for part in ("train", "heldout")
            for c in load_cases(str(tmp_path / f"s.{part}.yaml")).cases}


def test_split_is_deterministic_and_stable_when_cases_are_added(tmp_path: Path) -> None:
    ids = [f"case-{n}" for n in range(60)]
    first = _split(tmp_path, _cases(tmp_path / "a.yaml", ids))
    again = _split(tmp_path, _cases(tmp_path / "a.yaml", ids))
    assert first == again and len(first) == 60
    assert 30 <= sum(v == "train" for v in first.values()) <= 54
    grown = _split(tmp_path, _cases(tmp_path / "b.yaml", [*ids, *(f"new-{n}" for n in range(20))]))
    assert {k: grown[k] for k in ids} == first
    other_seed = _split(tmp_path, _cases(tmp_path / "a.yaml", ids), "--seed", "7")
    assert other_seed != first


def test_stratified_split_keeps_the_proportion_per_class(tmp_path: Path) -> None:
    ids = [f"case-{n}" for n in range(40)]
    which = _split(tmp_path, _cases(tmp_path / "a.yaml", ids), "--by", "query_class",
                   "--train", "0.5")
    by_class = load_cases(str(tmp_path / "a.yaml")).cases
    for query_class in ("descriptive", "exact_identifier"):
        members = [c.id for c in by_class if c.query_class == query_class]
        assert sum(which[i] == "train" for i in members) == len(members) // 2


def test_split_tag_mode_and_bad_share(tmp_path: Path) -> None:
    cases = _cases(tmp_path / "a.yaml", ["x", "y", "z"])
    done = CliRunner().invoke(cli, ["cases", "split", str(cases), "--tag", "-o",
                                    str(tmp_path / "t.yaml")])
    assert done.exit_code == 0, done.output
    assert {c.tags["split"] for c in load_cases(str(tmp_path / "t.yaml")).cases} <= {
        "train", "heldout"}
    bad = CliRunner().invoke(cli, ["cases", "split", str(cases), "--train", "1.5", "-o", "x"])
    assert bad.exit_code == 2 and "between 0 and 1" in bad.output


def test_diff_lists_added_removed_and_relabelled_with_rationales(tmp_path: Path) -> None:
    old = _cases(tmp_path / "old.yaml", ["a", "b", "c"])
    new = _cases(tmp_path / "new.yaml", ["a", "c", "d"], c="src/moved/c.py")
    done = CliRunner().invoke(cli, ["cases", "diff", str(old), str(new)])
    assert done.exit_code == 0, done.output
    assert "added d" in done.output and "removed b" in done.output
    assert "relabelled c (groups)" in done.output and "rationale: why c" in done.output
    assert "1 added, 1 removed, 1 relabelled, 0 changed" in done.output


def test_init_writes_files_that_check_clean(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"app/orders.py": "def place_order(cart):\n    return cart\n",
                       "vendor/lib.py": "def x():\n    pass\n",
                       "tests/test_orders.py": "def test_place():\n    pass\n"})
    out = tmp_path / "evals"
    done = CliRunner().invoke(cli, ["cases", "init", str(repo.path), "-o", str(out)])
    assert done.exit_code == 0, done.output
    text = (out / "cases.yaml").read_text()
    assert "vendor/" in text and sha in text
    case = load_cases(str(out / "cases.yaml")).cases[0]
    assert case.groups[0].any_of[0].symbol == "place_order"
    build_index(str(repo.path), sha, tmp_path / "idx" / sha)
    checked = CliRunner().invoke(cli, ["cases", "check", str(out / "cases.yaml"), "--index",
                                       str(tmp_path / "idx")])
    assert checked.exit_code == 0, checked.output
    again = CliRunner().invoke(cli, ["cases", "init", str(repo.path), "-o", str(out)])
    assert again.exit_code == 2 and "already exist" in again.output
