"""Hostile input to ``codegold compare`` with several systems (``A B C --baseline``).

Bad lists of files, a baseline that is not among them, files that are not results,
outputs aimed at an input and meaningless settings are bad input: exit 2, one
``error:`` line, nothing written over the user's files.
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
    folder = tmp_path_factory.mktemp("compare-multi")
    ids = ["a1", "a2", "[/]", "[bold]b", "b|1", "b2"]
    cases = write_cases(folder, [case(i, TARGET) for i in ids], DEFAULTS)
    hit, miss = chunk("hit", "src/a.py", "f"), chunk("miss", "src/z.py")
    out = {}
    for name, misses in (("ref", set()), ("bm25", {"a2", "[/]"}), ("win", {"b|1"})):
        att = write_attempts(folder, [attempt(str(n), i, [miss if i in misses else hit])
                                      for n, i in enumerate(ids)], name=f"{name}.jsonl")
        path = folder / f"{name}.json"
        path.write_bytes(dump_results(evaluate_files(str(cases), str(att))))
        out[name] = path
    small = write_cases(folder, [case("zz", TARGET)], DEFAULTS, name="small.yaml")
    att = write_attempts(folder, [attempt("1", "zz", [hit])], name="small.jsonl")
    out["disjoint"] = folder / "disjoint.json"
    out["disjoint"].write_bytes(dump_results(evaluate_files(str(small), str(att))))
    return out


def test_three_systems_work_and_list_status_differences(files: dict[str, Path]) -> None:
    proc = run_cli("compare", files["ref"], files["bm25"], files["win"],
                   "--baseline", files["ref"], timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert_no_traceback(proc)
    assert "Cases whose status differs (3)" in proc.stdout
    assert "b\\|1" in proc.stdout  # a pipe in a case id cannot break the table


@pytest.mark.parametrize(("extra", "words"), [
    (["--baseline", "elsewhere.json"], ["baseline", "elsewhere.json"]),
    (["--resamples", "0"], ["resamples"]),
    (["--alpha", "2"], ["alpha"]),
    (["--min-slice", "0"], ["min-slice"]),
])
def test_bad_baseline_and_settings(tmp_path: Path, files: dict[str, Path], extra: list[str],
                                   words: list[str]) -> None:
    planted = plant_sentinels(tmp_path)
    proc = run_cli("compare", files["ref"], files["bm25"], files["win"], *extra,
                   "--json", tmp_path / "c.json", timeout=60)
    assert_clean_error(proc, contains=words)
    assert not (tmp_path / "c.json").exists()
    assert_sentinels(planted)


def test_same_file_twice_among_several_is_bad_input(files: dict[str, Path]) -> None:
    assert_clean_error(run_cli("compare", files["ref"], files["bm25"], files["ref"]),
                       contains=["twice"])


def test_one_file_is_bad_input(files: dict[str, Path]) -> None:
    assert_clean_error(run_cli("compare", files["ref"]), contains=["at least 2"])


@pytest.mark.parametrize("content", [b"", b"{}", b"[1, 2]", b"\xff\xfe", b"{\"format\": 9}"])
def test_a_file_that_is_not_results_among_several(tmp_path: Path, files: dict[str, Path],
                                                  content: bytes) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    assert_clean_error(run_cli("compare", files["ref"], files["bm25"], bad))


def test_a_directory_among_several(tmp_path: Path, files: dict[str, Path]) -> None:
    assert_clean_error(run_cli("compare", files["ref"], files["bm25"], tmp_path))


@pytest.mark.parametrize("option", ["--json", "--md"])
def test_output_over_any_input_is_refused(tmp_path: Path, files: dict[str, Path],
                                          option: str) -> None:
    target = tmp_path / "win.json"
    target.write_bytes(files["win"].read_bytes())
    before = target.read_bytes()
    proc = run_cli("compare", files["ref"], files["bm25"], target, option, target)
    assert_clean_error(proc)
    assert target.read_bytes() == before


def test_systems_with_no_common_case(files: dict[str, Path]) -> None:
    proc = run_cli("compare", files["ref"], files["bm25"], files["disjoint"])
    assert_no_traceback(proc)
    assert proc.returncode == 0
    assert "nothing to compare" in proc.stdout


@pytest.mark.parametrize("extra", [
    {"cost": {"tokens": -1}},
    {"cost": {"usd": -0.5}},
    {"cost": {"usd": "cheap"}},
    {"cost": {"tokens": 1.5}},
    {"cost": {"dollars": 1}},
    {"cost": [1, 2]},
    {"cost": {"usd": 1e300}},
])
def test_bad_cost_in_attempts_is_bad_input(tmp_path: Path, extra: dict[str, object]) -> None:
    planted = plant_sentinels(tmp_path)
    cases = write_cases(tmp_path, [case("a1", TARGET)], DEFAULTS)
    att = write_attempts(tmp_path, [attempt("1", "a1", [chunk("hit", "src/a.py", "f")], **extra)])
    out = tmp_path / "results.json"
    assert_clean_error(run_cli("eval", cases, att, "-o", out, "-q"), contains=["cost"])
    assert not out.exists()
    assert_sentinels(planted)


@pytest.mark.parametrize("timing", [{"total": -3.0}, {"wall": -1.0}, {"other": 5.0}, {}])
def test_odd_timings_are_not_a_latency(tmp_path: Path, timing: dict[str, float]) -> None:
    cases = write_cases(tmp_path, [case("a1", TARGET)], DEFAULTS)
    att = write_attempts(tmp_path, [attempt("1", "a1", [chunk("hit", "src/a.py", "f")],
                                            timing_ms=timing)])
    proc = run_cli("eval", cases, att, "--json", "-q")
    assert proc.returncode == 0, proc.stderr
    assert '"latency_max_ms":null' in proc.stdout.replace(" ", "")
