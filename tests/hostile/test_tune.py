"""Hostile input to `codegold tune`: exit 2, one `error:` line, no traceback, files kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from hostilekit import assert_clean_error, assert_sentinels, plant_sentinels, run_cli

CASES = Path(__file__).resolve().parents[2] / "examples" / "acme-shop" / "cases.yaml"
TIMEOUT = 60


@pytest.mark.parametrize("body, expected", [
    ("params:\n  fusion.nope: {low: 1, high: 2}\n", "does not take"),
    ("params:\n  fusion.rrf_k: {low: .nan, high: 2}\n", "space"),
    ("params:\n  fusion.rrf_k: {low: 1e999, high: 2}\n", "space"),
    ("params:\n  fusion.rrf_k: {low: 1, high: 1e999, int: true}\n", "space"),
    ("params:\n  fusion.rrf_k: {low: 1, high: 1e300, int: true}\n", "space"),
    ("params:\n  fusion.rrf_k: {choices: []}\n", "choices"),
    ("params:\n  fusion: {low: 1, high: 2}\n", "does not take"),
    ("params:\n  a: &a [*a]\n", "space"),
    ("- just\n- a list\n", "space"),
    ("params:\n  fusion.rrf_k: {low: 1, high: 2, extra: 3}\n", "extra"),
    ("\xff\xfe", "space"),
])
def test_bad_space_file(tmp_path: Path, body: str, expected: str) -> None:
    planted = plant_sentinels(tmp_path)
    space = tmp_path / "space.yaml"
    space.write_bytes(body.encode("latin-1"))
    index = tmp_path / "idx"
    index.mkdir()
    proc = run_cli("tune", CASES, "--index", index, "--space", space, "--trials", "1",
                   "-o", tmp_path / "out.yaml", timeout=TIMEOUT)
    assert_clean_error(proc, contains=expected)
    assert not (tmp_path / "out.yaml").exists()
    assert_sentinels(planted)


def test_missing_index_and_bad_options(tmp_path: Path) -> None:
    out = tmp_path / "out.yaml"
    assert_clean_error(run_cli("tune", CASES, "-o", out, timeout=TIMEOUT), contains="--index")
    assert_clean_error(run_cli("tune", CASES, "--index", tmp_path / "none", "-o", out,
                               timeout=TIMEOUT))
    assert_clean_error(run_cli("tune", CASES, "--index", tmp_path, "--trials", "0", "-o", out,
                               timeout=TIMEOUT), contains="trials")
    assert not out.exists()


def test_output_never_overwrites_the_cases(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_bytes(CASES.read_bytes())
    before = cases.read_bytes()
    proc = run_cli("tune", cases, "--index", tmp_path, "-o", cases, timeout=TIMEOUT)
    assert_clean_error(proc)
    assert cases.read_bytes() == before
