"""docs/ci.md works as written: scripts/check_ci_recipe.py checks and runs it."""

from __future__ import annotations

import copy
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_ci_recipe.py"


@pytest.fixture(scope="module")
def checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_ci_recipe", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_recipe_runs_against_the_example() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "CI recipe: OK" in proc.stdout
    assert "ok    Diagnose failures" in proc.stdout and "Gate (exit 1)" in proc.stdout


def _step(workflow: dict[str, Any], pattern: str) -> dict[str, Any]:
    steps = next(iter(workflow["jobs"].values()))["steps"]
    return next(s for s in steps if pattern in str(s.get("uses", "")) + str(s.get("run", "")))


def test_structure_check_catches_broken_recipes(checker: ModuleType) -> None:
    github, gitlab = checker.load_recipes(ROOT / "docs" / "ci.md")
    assert checker.check_github(github) == []
    assert checker.check_gitlab(gitlab) == []

    broken = copy.deepcopy(github)
    del _step(broken, "upload-artifact")["if"]
    assert any("always()" in p for p in checker.check_github(broken))

    broken = copy.deepcopy(github)
    _step(broken, "actions/cache")["with"]["key"] = "idx-${{ hashFiles('eval/cases.yaml') }}"
    assert any("cache key" in p for p in checker.check_github(broken))

    broken = copy.deepcopy(github)
    step = _step(broken, "codegold diagnose")
    step["run"] = step["run"].replace("--index .codegold/indexes", "")
    assert any("index folder" in p for p in checker.check_github(broken))

    broken = copy.deepcopy(github)
    step = _step(broken, "codegold report")
    step["run"] = step["run"].replace('cat out/summary.md >> "$GITHUB_STEP_SUMMARY"', "")
    assert any("GITHUB_STEP_SUMMARY" in p for p in checker.check_github(broken))

    broken = copy.deepcopy(github)
    steps = next(iter(broken["jobs"].values()))["steps"]
    steps.remove(_step(broken, "comment"))
    assert any("PR comment" in p for p in checker.check_github(broken))

    broken = copy.deepcopy(gitlab)
    next(iter(broken.values()))["artifacts"]["when"] = "on_success"
    assert any("when: always" in p for p in checker.check_gitlab(broken))


def test_run_reports_a_failing_step(checker: ModuleType, tmp_path: Path) -> None:
    github, _ = checker.load_recipes(ROOT / "docs" / "ci.md")
    broken = copy.deepcopy(github)
    _step(broken, "codegold eval")["run"] = "codegold eval eval/missing.yaml out/attempts.jsonl -o out/results.json"
    problems = checker.run_github(broken, keep=tmp_path)
    assert any("Evaluate" in p and "exited 2" in p for p in problems), problems
