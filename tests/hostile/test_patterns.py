"""Hostile path patterns through the CLI: globs built to backtrack forever, malformed
character classes in a case file, an index path policy and a retriever config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from codegold.index.store import IndexReader
from gitrepo import Repo
from goldkit import attempt, chunk, write_attempts, write_cases
from hostilekit import (
    assert_clean_error,
    assert_no_traceback,
    assert_sentinels,
    plant_sentinels,
    run_cli,
)

BACKTRACKING_GLOBS = [
    "**/" * 30 + "x",                          # repeated ** segments
    "/".join(["**", "a"] * 40) + "/x",         # ** between literal segments
    "*a" * 60 + "b",                           # many * inside one segment
    "/".join(["*a*a*a*a*b"] * 20),             # many * in many segments
    "src/" + "*?" * 200 + "z",
]
LONG_PATHS = ["a/" * 2000 + "y", "a" * 4000, "/".join(["a" * 30] * 100)]


@pytest.mark.parametrize("glob", BACKTRACKING_GLOBS)
def test_backtracking_forbidden_glob_is_scored_in_bounded_time(tmp_path: Path, glob: str) -> None:
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "src/a.py"}],
                                    "forbidden": [glob]}])
    ranked = [chunk("ok", "src/a.py")] + [chunk(f"long{i}", p) for i, p in enumerate(LONG_PATHS)]
    attempts = write_attempts(tmp_path, [attempt("a", "c", ranked)])
    out = tmp_path / "results.json"
    planted = plant_sentinels(tmp_path / "keep")
    proc = run_cli("eval", cases, attempts, "-o", out, "-q", timeout=30)
    assert_no_traceback(proc)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    result = json.loads(out.read_text(encoding="utf-8"))["cases"][0]
    assert result["forbidden_chunk_ids"] == []
    assert_sentinels(planted)


def test_backtracking_forbidden_glob_still_forbids_what_it_names(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "src/a.py"}],
                                    "forbidden": ["**/" * 30 + "x"]}])
    ranked = [chunk("ok", "src/a.py"), chunk("bad", "a/" * 2000 + "x")]
    attempts = write_attempts(tmp_path, [attempt("a", "c", ranked)])
    out = tmp_path / "results.json"
    proc = run_cli("eval", cases, attempts, "-o", out, "-q", timeout=30)
    assert_no_traceback(proc)
    result = json.loads(out.read_text(encoding="utf-8"))["cases"][0]
    assert result["forbidden_chunk_ids"] == ["bad"]
    assert result["status"] == "fail"


@pytest.mark.parametrize(("field", "entry"), [
    ("forbidden", {"forbidden": ["src/[z-a]/x.py"]}),
    ("file", {"accepted": [{"file": "src/[z-a].py"}]}),
])
def test_reversed_range_in_a_case_file_is_one_clean_error(tmp_path: Path, field: str,
                                                          entry: dict[str, object]) -> None:
    spec: dict[str, object] = {"id": "bad-case", "query": "q", "accepted": [{"file": "src/a.py"}]}
    spec.update(entry)
    cases = write_cases(tmp_path, [spec])
    attempts = write_attempts(tmp_path, [attempt("a", "bad-case", [chunk("c", "src/a.py")])])
    planted = plant_sentinels(tmp_path, ["results.json"])
    proc = run_cli("eval", cases, attempts, "-o", tmp_path / "results.json", "-q", timeout=30)
    assert_clean_error(proc, contains=["[z-a]", "reversed", "bad-case", field])
    assert_sentinels(planted)


@pytest.mark.parametrize("glob", ["src/[", "[!", "a[b", "[]"])
def test_unclosed_class_in_forbidden_is_literal(tmp_path: Path, glob: str) -> None:
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "src/a.py"}],
                                    "forbidden": [glob]}])
    attempts = write_attempts(tmp_path, [attempt("a", "c", [chunk("ok", "src/a.py"),
                                                            chunk("lit", glob)])])
    out = tmp_path / "results.json"
    proc = run_cli("eval", cases, attempts, "-o", out, "-q", timeout=30)
    assert_no_traceback(proc)
    assert json.loads(out.read_text(encoding="utf-8"))["cases"][0]["forbidden_chunk_ids"] == ["lit"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    source = Repo(tmp_path / "repo")
    source.commit({"src/a.py": "def a():\n    return 1\n", "src/legacy_old.py": "def old():\n    pass\n",
                   "src/legacy/b.py": "def b():\n    return 2\n"})
    return source.path


@pytest.mark.parametrize("key", ["exclude", "include"])
def test_reversed_range_in_index_policy_is_one_clean_error(tmp_path: Path, repo: Path, key: str) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump({"format": 1, key: ["src/[z-a]*"]}), encoding="utf-8")
    out = tmp_path / "idx"
    planted = plant_sentinels(out)
    proc = run_cli("index", repo, "--revision", "HEAD", "-o", out, "--policy", policy, "-q",
                   timeout=60)
    assert_clean_error(proc, contains=["[z-a]", "reversed", key, "policy.yaml"])
    assert_sentinels(planted)


def test_index_policy_folder_pattern_keeps_a_sibling_file(tmp_path: Path, repo: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump({"format": 1, "exclude": ["src/legacy", "**/" * 30 + "x"]}),
                      encoding="utf-8")
    out = tmp_path / "idx"
    proc = run_cli("index", repo, "--revision", "HEAD", "-o", out, "--policy", policy, "-q",
                   timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with IndexReader.open(out) as reader:
        fates = {path: entry.fate if (entry := reader.inventory(path)) else None
                 for path in ("src/a.py", "src/legacy_old.py", "src/legacy/b.py")}
    assert fates["src/a.py"] == "indexed"
    assert fates["src/legacy_old.py"] == "indexed"     # a folder pattern, not a string prefix
    assert fates["src/legacy/b.py"] == "excluded"


@pytest.mark.parametrize("section", [
    {"filters": {"exclude": ["docs/[z-a]/**"]}},
    {"rerank": {"category_patterns": {"legacy": ["**/[z-a]"]}}},
])
def test_reversed_range_in_retriever_config_is_one_clean_error(tmp_path: Path,
                                                               section: dict[str, object]) -> None:
    config = tmp_path / "retriever.yaml"
    config.write_text(yaml.safe_dump(section), encoding="utf-8")
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "src/a.py"}]}])
    out = tmp_path / "attempts.jsonl"
    planted = plant_sentinels(tmp_path, ["attempts.jsonl"])
    proc = run_cli("run", cases, "--index", tmp_path / "no-index", "--config", config, "-o", out,
                   "-q", timeout=60)
    field = "filters.exclude" if "filters" in section else "category_patterns"
    assert_clean_error(proc, contains=["[z-a]", "reversed", "retriever.yaml", field])
    assert_sentinels(planted)
