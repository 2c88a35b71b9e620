"""Hostile use of repeats, index waiting, search --as-case and case label history: bad
numbers, missing or foreign indexes, hostile query text, oversized or malformed
``supersedes``. Each ends in one clean ``error:`` line, bounded, with user files intact."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from codegold.index import build_index
from gitrepo import Repo
from hostilekit import (
    assert_clean_error,
    assert_no_traceback,
    assert_sentinels,
    plant_sentinels,
    run_cli,
)

SHA = "a" * 40


def _cases(folder: Path, extra: dict[str, Any] | None = None, revision: str = SHA) -> Path:
    stanza: dict[str, Any] = {"id": "c1", "query": "where is place_order",
                              "accepted": [{"file": "app/orders.py"}]}
    stanza.update(extra or {})
    path = folder / "cases.yaml"
    path.write_text(yaml.safe_dump({"format": 1, "defaults": {"revision": revision, "cutoff": 3},
                                    "cases": [stanza]}))
    return path


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("h-answers2")
    repo = Repo(root / "repo")
    sha = repo.commit({"app/orders.py": "def place_order(cart):\n    return cart\n",
                       "app/cart.py": "def add_item(cart, item):\n    cart.append(item)\n"})
    build_index(str(repo.path), sha, root / "idx" / sha)
    return root / "idx", sha


@pytest.mark.parametrize("value", ["0", "-3", "abc", "1e3", "1000001", ""])
def test_bad_repeat_counts(tmp_path: Path, value: str) -> None:
    planted = plant_sentinels(tmp_path)
    proc = run_cli("run", _cases(tmp_path), "--index", tmp_path, "-o", tmp_path / "a.jsonl",
                   "--repeat", value, timeout=30)
    assert_clean_error(proc, contains="repeat")
    assert not (tmp_path / "a.jsonl").exists()
    assert_sentinels(planted)


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "soon", "1e400"])
def test_bad_wait_seconds(tmp_path: Path, value: str) -> None:
    proc = run_cli("run", _cases(tmp_path), "--index", tmp_path, "-o", tmp_path / "a.jsonl",
                   "--wait-for-index", value, timeout=30)
    assert_clean_error(proc, contains="wait-for-index")


def test_waiting_for_an_index_that_never_comes_ends_in_time(tmp_path: Path,
                                                            indexed: tuple[Path, str]) -> None:
    folder, sha = indexed
    planted = plant_sentinels(tmp_path)
    started = time.monotonic()
    proc = run_cli("run", _cases(tmp_path), "--index", folder, "-o", tmp_path / "a.jsonl",
                   "--wait-for-index", "1", timeout=30)
    line = assert_clean_error(proc, contains=[SHA])
    assert sha not in line  # only the missing revision is named
    assert time.monotonic() - started < 25
    assert_sentinels(planted)
    nowhere = run_cli("run", _cases(tmp_path), "--index", tmp_path / "absent", "-o",
                      tmp_path / "b.jsonl", "--wait-for-index", "0.5", timeout=30)
    assert_clean_error(nowhere, contains=[SHA])


def test_wait_needs_an_index_folder(tmp_path: Path) -> None:
    proc = run_cli("run", _cases(tmp_path), "-o", tmp_path / "a.jsonl", "--retriever",
                   "command:true", "--wait-for-index", "1", timeout=30)
    assert_clean_error(proc, contains="--index")


def test_waiting_for_a_present_index_runs_the_repeats(tmp_path: Path,
                                                      indexed: tuple[Path, str]) -> None:
    folder, sha = indexed
    out = tmp_path / "a.jsonl"
    proc = run_cli("run", _cases(tmp_path, revision=sha), "--index", folder, "-o", out,
                   "--wait-for-index", "5", "--repeat", "2", "-q", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert len(out.read_text().splitlines()) == 2
    again = run_cli("run", _cases(tmp_path, revision=sha), "--index", folder, "-o", out,
                    "--repeat", "2", "--resume", "-q", timeout=60)
    assert again.returncode == 0, again.stderr
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize("pick", ["0", "-1", "1,,2", "9999999999", "1;rm -rf /", "\x1b[31m",
                                  ",".join(["1"] * 5000), "11"])
def test_hostile_picks(indexed: tuple[Path, str], pick: str) -> None:
    folder, sha = indexed
    proc = run_cli("search", folder / sha, "place_order", "--as-case", "--pick", pick,
                   timeout=30)
    line = assert_clean_error(proc, contains="pick")
    assert "\x1b" not in line


def test_pick_past_the_results(indexed: tuple[Path, str]) -> None:
    folder, sha = indexed
    proc = run_cli("search", folder / sha, "place_order", "--as-case", "--pick", "2,9",
                   timeout=30)
    assert_clean_error(proc, contains="result")


def test_hostile_query_makes_one_inert_stanza(indexed: tuple[Path, str]) -> None:
    folder, sha = indexed
    query = "place_order\x1b]52;c;SGVsbG8=\x07\u202e\n- id: injected\n  revision: " + "b" * 40
    proc = run_cli("search", folder / sha, query, "--as-case", timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert_no_traceback(proc)
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in proc.stdout
    stanza = yaml.safe_load(proc.stdout)
    assert len(stanza) == 1 and stanza[0]["revision"] == sha and stanza[0]["query"] == query


PRIOR = {"revision": "b" * 40, "changed_at": "2026-01-01", "accepted": [{"file": "x.py"}]}


@pytest.mark.parametrize(("supersedes", "contains"), [
    ([PRIOR] * 101, "supersedes"),
    ("not a list", "supersedes"),
    ([{**PRIOR, "changed_at": "2026-02-30"}], "changed_at"),
    ([{**PRIOR, "changed_at": 20260101}], "changed_at"),
    ([{**PRIOR, "revision": "../../etc"}], "revision"),
    ([{**PRIOR, "accepted": []}], "accepted"),
    ([{**PRIOR, "accepted": None, "groups": [{"id": "g", "required": False,
                                              "any_of": [{"file": "x"}]}]}], "required"),
])
def test_malformed_history_is_a_clean_error(tmp_path: Path, supersedes: Any,
                                            contains: str) -> None:
    path = _cases(tmp_path, {"supersedes": supersedes})
    proc = run_cli("cases", "diff", path, path, timeout=30)
    assert_clean_error(proc, contains=contains)


def test_two_indexes_of_one_revision_end_the_wait_at_once(tmp_path: Path,
                                                          indexed: tuple[Path, str]) -> None:
    import shutil

    from codegold.adapters.runner import wait_for_indexes
    from codegold.errors import DuplicateIndexError

    folder, sha = indexed
    twice = tmp_path / "indexes"
    shutil.copytree(folder / sha, twice / "a")
    shutil.copytree(folder / sha, twice / "b")
    started = time.monotonic()
    with pytest.raises(DuplicateIndexError, match="two indexes"):
        wait_for_indexes(twice, [sha], 30)
    assert time.monotonic() - started < 10
