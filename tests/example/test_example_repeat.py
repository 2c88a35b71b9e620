"""The reference retriever is deterministic: the bundled example run twice (different hash
seeds, different worker counts) ranks identically, and a ``--repeat 3`` run has no flaky case."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegold.index import build_index
from codegold.model import iter_attempts

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


@pytest.fixture(scope="module")
def indexes(example_repo: tuple[Path, dict[str, str]],
            tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, shas = example_repo
    root = tmp_path_factory.mktemp("repeat") / "idx"
    for sha in sorted(set(shas.values())):
        build_index(str(repo), sha, root / sha)
    return root


def _codegold(*args: str, seed: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    if args[0] == "run":
        # A generous per-case timeout: on a loaded machine a case past the default 30 s
        # would be an error attempt (allowed here); the comparison is of rankings, not time.
        args = (*args, "--timeout", "240")
    return subprocess.run([sys.executable, "-m", "codegold.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)


def _rankings(path: Path) -> dict[str, list[str]]:
    return {a.attempt_id.split("/", 1)[1]: [c.chunk_id for c in a.ranked]
            for a in iter_attempts(str(path))}


def test_two_runs_rank_identically(indexes: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    cases = str(EXAMPLE / "cases.yaml")
    one = _codegold("run", cases, "--index", str(indexes), "-o", str(first), "-q",
                    "--allow-errors", seed="1")
    two = _codegold("run", cases, "--index", str(indexes), "-o", str(second), "-q",
                    "--allow-errors", "--workers", "3", seed="4242")
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    ranked = _rankings(first)
    assert ranked and any(ranked.values())
    assert ranked == _rankings(second)


def test_repeat_three_is_not_flaky(indexes: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    cases = str(EXAMPLE / "cases.yaml")
    done = _codegold("run", cases, "--index", str(indexes), "-o", str(out), "-q",
                     "--allow-errors", "--repeat", "3", "--workers", "2", seed="7")
    assert done.returncode == 0, done.stderr
    attempts = list(iter_attempts(str(out)))
    per_case: dict[str, set[str]] = {}
    for attempt in attempts:
        assert attempt.repeat_group == f"{attempt.run_id}/{attempt.case_id}"
        assert attempt.queried_at is not None and attempt.queried_at.endswith("Z")
        per_case.setdefault(attempt.case_id, set()).add(attempt.attempt_id)
    assert per_case and all(len(ids) == 3 for ids in per_case.values())
    flaky = _codegold("flaky", cases, str(out), "--json", seed="7")
    assert flaky.returncode == 0, flaky.stderr + flaky.stdout
    report = json.loads(flaky.stdout)
    assert report["groups_compared"] == len(per_case)
    assert report["flaky"] == []
