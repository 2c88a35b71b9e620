"""The mined corpus's pure parts (question filter, definition count, query class,
seeded sample) and the script end to end on a small local repository's history."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from codegold.model import load_cases
from gitrepo import Repo

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
try:
    import mined_corpus as mc
finally:
    sys.path.remove(str(BENCHMARKS))


def group(*symbols: str | None, file: str = "src/a.py", required: bool = True
          ) -> dict[str, Any]:
    targets = [{"file": file, "symbol": s} if s else {"file": file} for s in symbols]
    return {"id": file, "any_of": targets, **({} if required else {"required": False})}


@pytest.mark.parametrize("message", [
    "Fix #123",
    "fix typo",
    "Fix tests",
    "Update docs",
    "Bump serde from 1.0.1 to 1.0.2 (#88)",
    "chore(deps): update rust crate tokio to v1.40",
    "ci: run the tests on windows as well please",
    "Fix clippy warnings in the parser module",
    "docs: explain what the retry budget does when exhausted",
    "Fixes #12 (#13)\n\nSigned-off-by: A Person <a@example.com>",
])
def test_messages_without_a_question_are_dropped(message: str) -> None:
    assert mc.no_question(message) is not None


@pytest.mark.parametrize("message", [
    "Accept empty message in retry_if_exception_message (#651)",
    "fix(middleware): add missing return in RouteHeaders empty check (#1045)",
    "Don't duplicate methods in Allow: header for 405 responses (#1029)",
    "Avoid a crash when the config file is empty\n\nThe loader read the first key blindly.",
])
def test_messages_with_a_question_are_kept(message: str) -> None:
    assert mc.no_question(message) is None


def test_question_text_drops_references_trailers_and_the_conventional_prefix() -> None:
    text = mc.question_text("fix(core): keep the header (#12)\n\nSee GH-4.\n\n"
                            "Co-authored-by: A <a@b.c>")
    assert text == "keep the header See ."


def test_required_definitions_count_only_non_test_files() -> None:
    groups = [group("A.f", "A.g"), group(None, file="src/b.py"),
              group("test_a", "test_b", "test_c", file="tests/test_a.py", required=False)]
    assert mc.required_definitions(groups) == 3


@pytest.mark.parametrize(("query", "wanted"), [
    ("make fetch_rows retry on timeout", "exact_identifier"),
    ("Store.fetch_rows retries", "exact_identifier"),
    ("the loader crashes in src/a.py on empty input", "exact_identifier"),
    ("load_config should not crash on empty input", "names_code"),
    ("rows are fetched twice when the network is slow", "descriptive"),
    ('Traceback (most recent call last):\n  File "src/b.py", line 3, in go\n'
     "    boom()\nValueError: x", "stack_trace"),
])
def test_query_class(query: str, wanted: str) -> None:
    assert mc.query_class(query, [group("Store.fetch_rows")]) == wanted


def test_a_test_file_s_definition_does_not_make_a_query_exact() -> None:
    groups = [group("Store.save"), group("test_fetch_rows", file="tests/t.py", required=False)]
    assert mc.query_class("test_fetch_rows fails on a slow disk", groups) == "names_code"


def _draft(commit: str) -> dict[str, Any]:
    return {"id": commit, "query": "q", "groups": [], "tags": {"commit": commit}}


def test_the_sample_is_seeded_ordered_and_a_larger_cap_keeps_the_smaller_one() -> None:
    drafts = [_draft(f"{n:012x}") for n in range(40)]
    small, large = mc.sample(drafts, 5, seed=0), mc.sample(drafts, 15, seed=0)
    assert len(small) == 5 and len(large) == 15
    assert {d["id"] for d in small} <= {d["id"] for d in large}
    assert mc.sample(list(reversed(drafts)), 5, seed=0) == list(reversed(small))
    assert [d["id"] for d in small] == sorted(d["id"] for d in small)  # history order kept
    assert {d["id"] for d in mc.sample(drafts, 5, seed=1)} != {d["id"] for d in small}
    assert mc.sample(drafts[:3], 5, seed=0) == drafts[:3]


def test_select_drops_and_counts_and_classes_what_it_keeps() -> None:
    wide = [group("a", "b", "c"), group("d", "e", file="src/b.py")]
    drafts = [
        {**_draft("1"), "query": "Fix typo", "groups": [group("fetch")]},
        {**_draft("2"), "query": "retry fetch when the socket times out", "groups": wide},
        {**_draft("3"), "query": "retry fetch_rows when the socket times out",
         "groups": [group("Store.fetch_rows")]},
    ]
    kept, dropped = mc.select(drafts, max_definitions=4)
    assert [k["id"] for k in kept] == ["3"] and kept[0]["query_class"] == "exact_identifier"
    assert dropped == {"message too short to ask anything": 1,
                       "more than 4 definitions changed": 1}


PRICES = '''def apply_discount(price, percent):
    return price * (1 - percent / 100)


def shipping_cost(weight):
    return 5.0 if weight <= 1 else 5.0 + 2.0 * (weight - 1)
'''


def test_the_script_mines_indexes_runs_and_prints_the_tables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo(tmp_path / "repos" / "acme+shop")
    repo.commit({"shop/prices.py": PRICES, "README.md": "# shop\n"}, "initial import")
    repo.commit({"shop/prices.py": PRICES.replace("(1 - percent / 100)",
                                                  "max(0.0, 1 - percent / 100)")},
                "Fix apply_discount going negative for discounts over 100 percent")
    repo.commit({"shop/prices.py": PRICES.replace("5.0 + 2.0", "5.0 + 2.5")
                 .replace("(1 - percent / 100)", "max(0.0, 1 - percent / 100)")},
                "fix: heavy parcels were charged too little for shipping (#7)")
    repo.commit({"README.md": "# shop\n\nprices\n"}, "fix typo")
    monkeypatch.setattr(mc, "REPOSITORIES", (("acme/shop", "python"),))
    cache = tmp_path / "cache"
    args = ["--repos-dir", str(tmp_path / "repos"), "--cache-dir", str(cache),
            "--configs", "reference,lexical"]
    assert mc.main(args) == 0
    out = capsys.readouterr().out
    cases = load_cases(str(cache / "cases" / "acme+shop.yaml")).cases
    assert {c.query_class for c in cases} == {"exact_identifier", "descriptive"}
    assert all(c.tags["language"] == "python" and c.repository == "acme/shop" for c in cases)
    assert "| total | 2 |" in out and "| mined | 2 |" in out and "| acme/shop | 2 |" in out
    assert "### lexical" in out and "worst acme/shop" in out and "| file hit % |" in out
    summary = json.loads((cache / "runs" / "summary.json").read_text())
    assert set(summary["reference"]["cases"]) == {c.id for c in cases}
    assert (cache / "runs" / "reference" / "acme+shop.results.json").is_file()
    # Rerun on the cache alone: nothing mined or built, the same cases scored.
    (tmp_path / "repos").rename(tmp_path / "gone")
    assert mc.main(["--cache-dir", str(cache), "--skip-build", "--configs", "reference"]) == 0
    out = capsys.readouterr().out
    assert "| mined | 2 |" in out and "Build cost" not in out


def test_forbidden_sources_are_the_copies_no_gold_file_lies_in() -> None:
    plain = mc.forbidden_for([group("f", file="src/a.py")])
    assert "**/examples/**" in plain and "**/*.md" in plain and "**/vendor/**" in plain
    changed_example = mc.forbidden_for([group("main", file="_examples/hello/main.go"),
                                        group(None, file="README.md", required=False)])
    assert "**/_examples/**" not in changed_example and "**/*.md" not in changed_example
    assert "**/vendor/**" in changed_example


def test_a_case_needs_code_among_its_required_gold() -> None:
    assert mc.code_gold([group("f", file="src/a.rs")])
    assert not mc.code_gold([group("repos", file=".pre-commit-config.yaml"),
                             group("test_x", file="tests/test_x.py", required=False)])
    assert mc.eligible([{"groups": [group(None, file=".github/workflows/ci.yml")]}]) == []


def test_a_ruby_predicate_named_without_its_question_mark_is_exact() -> None:
    groups = [group("Sinatra.Helpers.etag_matches?", file="lib/sinatra/base.rb")]
    assert mc.query_class("Fix regex in `etag_matches?` to prevent ReDoS", groups) \
        == "exact_identifier"


def test_indexed_only_scores_the_cases_whose_revision_was_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo(tmp_path / "repos" / "acme+shop")
    repo.commit({"shop/prices.py": PRICES}, "initial import")
    repo.commit({"shop/prices.py": PRICES.replace("5.0 + 2.0", "5.0 + 2.5")},
                "fix: heavy parcels were charged too little for shipping")
    monkeypatch.setattr(mc, "REPOSITORIES", (("acme/shop", "python"),))
    cache = tmp_path / "cache"
    assert mc.main(["--repos-dir", str(tmp_path / "repos"), "--cache-dir", str(cache),
                    "--configs", ""]) == 0
    case_file = cache / "cases" / "acme+shop.yaml"
    text = case_file.read_text()
    revision = load_cases(str(case_file)).cases[0].revision
    case_file.write_text(text + text[text.index("- id:"):]
                         .replace("- id: commit-", "- id: other-")
                         .replace(revision, "f" * 40))
    assert len(load_cases(str(case_file)).cases) == 2
    capsys.readouterr()
    assert mc.main(["--cache-dir", str(cache), "--skip-build", "--indexed-only"]) == 0
    out, err = capsys.readouterr()
    assert "1 of 2 cases left out (revision not indexed)" in err
    assert "| mined | 1 |" in out
    kept = load_cases(str(cache / "indexed-cases" / "acme+shop.yaml")).cases
    assert [c.revision for c in kept] == [revision]


def test_a_revision_whose_blob_is_missing_loses_its_cases_not_the_repository(
        tmp_path: Path) -> None:
    from gitrepo import git

    repo = Repo(tmp_path / "repos" / "acme+shop")
    old = repo.commit({"shop/prices.py": PRICES, "shop/data.py": "ROWS = [1]\n"})
    new = repo.commit({"shop/data.py": "ROWS = [2]\n"})
    blob = git(repo.path, "rev-parse", f"{old}:shop/data.py")
    (repo.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # as a snapshot lacks it
    cases = tmp_path / "cases.yaml"
    cases.write_text(yaml.safe_dump({"format": 1, "defaults": {"repository": "acme/shop", "cutoff": 5},
                                     "cases": [
        {"id": f"at-{rev[:6]}", "query": "shipping cost", "revision": rev, "query_class": "x",
         "accepted": [{"file": "shop/prices.py", "symbol": "shipping_cost"}]}
        for rev in (old, new)]}))
    args = argparse.Namespace(cache_dir=tmp_path / "cache", repos_dir=tmp_path / "repos")
    logged: list[str] = []
    rows = mc.index_corpus(args, [cases], logged.append)
    assert [(r["built"], r["failed"]) for r in rows] == [(1, 1)]
    assert (tmp_path / "cache" / "indexes" / new / "manifest.json").is_file()
    assert any(old[:12] in line and "not indexed" in line for line in logged)
