"""Hostile input to ``gate``, ``compare`` and ``report --gate-policy`` through the CLI.

Bad policies and settings are bad input (exit 2, one ``error:`` line naming what was
found and what was expected); a failing verdict is exit 1 and ``--report-only`` is
always 0; nothing is written over the user's files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.evaluate import evaluate_files
from codegold.model import dump_results
from goldkit import SHA_A, attempt, case, chunk, write_attempts, write_cases
from hostilekit import (
    assert_clean_error,
    assert_no_traceback,
    assert_sentinels,
    plant_sentinels,
    run_cli,
)

TARGET = [{"file": "src/a.py", "symbol": "f"}]
DEFAULTS = {"revision": SHA_A, "cutoff": 3}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("gate-compare")
    ids = ["a1", "a2", "[/]", "[bold]b", "b1", "b2"]
    cases = write_cases(folder, [case(i, TARGET, tags={"risk": "high"} if i == "a1" else {})
                                 for i in ids], DEFAULTS)
    hit, miss = chunk("hit", "src/a.py", "f"), chunk("miss", "src/z.py")
    out = {}
    for name, misses in (("base", set()), ("new", {"a2", "[/]"})):
        att = write_attempts(folder, [attempt(str(n), i, [miss if i in misses else hit])
                                      for n, i in enumerate(ids)], name=f"{name}.jsonl")
        path = folder / f"{name}.json"
        path.write_bytes(dump_results(evaluate_files(str(cases), str(att))))
        out[name] = path
    small = write_cases(folder, [case("a1", TARGET)], DEFAULTS, name="small.yaml")
    att = write_attempts(folder, [attempt("1", "a1", [hit])], name="small.jsonl")
    out["shrunk"] = folder / "shrunk.json"
    out["shrunk"].write_bytes(dump_results(evaluate_files(str(small), str(att))))
    return out


def _policy(folder: Path, text: str) -> Path:
    path = folder / "policy.yaml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


BAD_POLICIES = [
    ("unknown metric", "format: 1\nrules: [{metric: recall_at_everything, min: 0.5}]\n",
     ["recall_at_everything", "hit_rate", "pass_rate"]),
    ("metric not a string", "format: 1\nrules: [{metric: 5, min: 0.5}]\n", ["metric"]),
    ("min above max", "format: 1\nrules: [{metric: hit_rate, min: 0.9, max: 0.1}]\n", ["above"]),
    ("nan bound", "format: 1\nrules: [{metric: hit_rate, min: .nan}]\n", ["[0, 1]"]),
    ("infinite bound", "format: 1\nrules: [{metric: hit_rate, max: .inf}]\n", ["[0, 1]"]),
    ("min_cases zero", "format: 1\nrules: [{metric: hit_rate, min: 0.5, min_cases: 0}]\n",
     ["min_cases"]),
    ("negative new failures", "format: 1\nbaseline: {results: base.json, max_new_failures: -1}\n",
     ["max_new_failures"]),
    ("negative failed cases", "format: 1\nmax_failed_cases: -3\n", ["max_failed_cases"]),
    ("no rules", "format: 1\nrules: []\n", ["checks nothing"]),
    ("unknown slice", "format: 1\nrules: [{metric: hit_rate, min: 0.5, slice: 'tag:team=x'}]\n",
     ["tag:team=x", "tag:risk=high"]),
    ("cutoff the cases do not use", "format: 1\nrules: [{metric: hit_rate@20, min: 0.5}]\n",
     ["cutoff 3"]),
    ("policy is a list", "- format: 1\n", ["mapping"]),
    ("empty policy", "", ["mapping"]),
    ("binary policy", "\udcff\udcfe\x00\x01rules", []),
    ("unknown zero tolerance", "format: 1\nzero_tolerance: [everything]\n", ["everything"]),
    ("baseline is a directory", "format: 1\nbaseline: {results: .}\n", []),
]


DEEP = pytest.param(
    "format: 1\nrules: " + "[" * 5000 + "]" * 5000 + "\n", [], id="deep nesting")


@pytest.mark.parametrize(("text", "words"),
                         [pytest.param(*b[1:], id=b[0]) for b in BAD_POLICIES] + [DEEP])
def test_bad_policy_is_bad_input(tmp_path: Path, files: dict[str, Path], text: str,
                                 words: list[str]) -> None:
    planted = plant_sentinels(tmp_path)
    policy = _policy(tmp_path, text)
    for extra in ((), ("--report-only",)):
        proc = run_cli("gate", files["new"], "--policy", policy, *extra, timeout=60)
        assert_clean_error(proc, contains=words)
    proc = run_cli("report", files["new"], "--gate-policy", policy, "--md", tmp_path / "s.md",
                   timeout=60)
    assert_clean_error(proc, contains=words)
    assert_sentinels(planted)


@pytest.mark.parametrize("value", ["-1", "x"])
def test_bad_max_new_failures_flag(tmp_path: Path, files: dict[str, Path], value: str) -> None:
    policy = _policy(tmp_path, "format: 1\nrules: [{metric: hit_rate, min: 0.1}]\n")
    proc = run_cli("gate", files["new"], "--policy", policy, "--baseline", files["base"],
                   "--max-new-failures", value)
    assert_no_traceback(proc)
    assert proc.returncode == 2


def test_failing_verdict_with_markup_ids_exits_1_and_report_only_0(
        tmp_path: Path, files: dict[str, Path]) -> None:
    policy = _policy(tmp_path, "format: 1\nrules: [{metric: hit_rate, min: 0.99}]\n"
                     "max_failed_cases: 0\n")
    strict = run_cli("gate", files["new"], "--policy", policy)
    assert_no_traceback(strict)
    assert strict.returncode == 1 and "[/]" in strict.stdout
    lenient = run_cli("gate", files["new"], "--policy", policy, "--report-only")
    assert_no_traceback(lenient)
    assert lenient.returncode == 0 and lenient.stdout == strict.stdout


def test_shrunk_case_set_is_not_a_clean_baseline(tmp_path: Path, files: dict[str, Path]) -> None:
    policy = _policy(tmp_path, f"format: 1\nbaseline: {{results: {files['base']}}}\n")
    proc = run_cli("gate", files["shrunk"], "--policy", policy, "--json")
    assert_no_traceback(proc)
    assert proc.returncode == 1
    assert "dropped" in proc.stdout and "different case file" in proc.stdout


BAD_COMPARE = [
    (("--bootstrap", "0"), ["bootstrap"]),
    (("--resamples", "0"), ["resamples"]),
    (("--resamples", "-5"), ["resamples"]),
    (("--resamples", "1000000000000"), ["resamples"]),
    (("--bootstrap", "99999999999"), ["bootstrap"]),
    (("--alpha", "2"), ["alpha"]),
    (("--alpha", "nan"), ["alpha"]),
    (("--min-slice", "0"), ["min-slice"]),
]


@pytest.mark.parametrize(("args", "words"), BAD_COMPARE, ids=[" ".join(a) for a, _ in BAD_COMPARE])
def test_compare_settings_that_mean_nothing_are_bad_input(
        tmp_path: Path, files: dict[str, Path], args: tuple[str, ...], words: list[str]) -> None:
    planted = plant_sentinels(tmp_path)
    proc = run_cli("compare", files["base"], files["new"], *args,
                   "--json", tmp_path / "c.json", timeout=60)
    assert_clean_error(proc, contains=words)
    assert not (tmp_path / "c.json").exists()
    assert_sentinels(planted)


@pytest.mark.parametrize("content", [b"", b"{}", b"[1, 2]", b"\xff\xfe", b"{\"format\": 9}"])
def test_compare_and_gate_on_files_that_are_not_results(
        tmp_path: Path, files: dict[str, Path], content: bytes) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    assert_clean_error(run_cli("compare", files["base"], bad))
    policy = _policy(tmp_path, "format: 1\nrules: [{metric: hit_rate, min: 0.1}]\n")
    assert_clean_error(run_cli("gate", bad, "--policy", policy))
    assert_clean_error(run_cli("gate", files["new"], "--policy", policy, "--baseline", bad))


def test_compare_with_no_common_case_says_so(files: dict[str, Path]) -> None:
    proc = run_cli("compare", files["shrunk"], files["new"])
    assert_no_traceback(proc)
    assert proc.returncode == 0
