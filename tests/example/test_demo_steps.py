"""Each demo step fails on its own: a broken input is that step's failure, not the demo's."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.workflows.demo import Step, default_example_dir, run_demo


def _example_copy(tmp_path: Path) -> Path:
    example = tmp_path / "example"
    shutil.copytree(default_example_dir(), example, ignore=shutil.ignore_patterns("__pycache__"))
    return example


def test_a_bad_policy_fails_the_gate_steps_only(tmp_path: Path) -> None:
    example = _example_copy(tmp_path)
    (example / "policy.yaml").write_text("format: 1\nrules: [{nonsense: true}]\n", encoding="utf-8")
    seen: list[Step] = []
    outcome = run_demo(tmp_path / "out", example=example, trust_example=True,
                       on_step=seen.append)
    status = {s.name.split(" (")[0]: s.status for s in seen}
    assert status["gate"] == "failed", seen
    assert "policy.yaml" in next(s.detail for s in seen if s.name.startswith("gate"))
    assert status["report"] == "done" and status["diagnose"] == "done"
    assert outcome.gate_passed is None and outcome.report is not None and outcome.report.exists()
    # Both runs are judged by the same policy: the default run's gate and the fixed run's.
    assert [s.name for s in outcome.failed] == [s.name for s in seen if "gate" in s.name.split(" (")[0]]
    assert len(outcome.failed) == 2 and status["fix: report"] == "done"
    assert outcome.fix is not None and outcome.fix.gate_passed is None


def test_an_example_without_a_fix_skips_the_second_half_and_says_why(tmp_path: Path) -> None:
    example = _example_copy(tmp_path)
    shutil.rmtree(example / "fix")
    seen: list[Step] = []
    outcome = run_demo(tmp_path / "out", example=example, trust_example=True,
                       on_step=seen.append)
    fix_steps = [s for s in seen if s.name.startswith("fix: ")]
    assert fix_steps and all(s.status == "skipped" for s in fix_steps), fix_steps
    assert "fix/index-policy.yaml" in fix_steps[0].detail
    assert outcome.failed == () and outcome.fix is None and outcome.gate_passed is False


def test_a_bad_fix_policy_fails_its_index_steps_and_skips_the_rest_of_the_fix(tmp_path: Path) -> None:
    example = _example_copy(tmp_path)
    (example / "fix" / "index-policy.yaml").write_text("format: 1\nexclude: ['[z-a]']\n",
                                                        encoding="utf-8")
    seen: list[Step] = []
    outcome = run_demo(tmp_path / "out", example=example, trust_example=True,
                       on_step=seen.append)
    by_name = {s.name: s for s in seen}
    assert by_name["fix: index v1 with fix/index-policy.yaml"].status == "failed"
    assert "index-policy.yaml" in by_name["fix: index v1 with fix/index-policy.yaml"].detail
    assert by_name["fix: run cases (reference retriever)"].status == "skipped"
    assert by_name["fix: gain and cost"].status == "skipped"
    assert by_name["report"].status == "done" and outcome.fix is None


def test_missing_recorded_run_fails_its_step_and_skips_its_diagnosis(tmp_path: Path) -> None:
    example = _example_copy(tmp_path)
    shutil.rmtree(example / "recorded")
    seen: list[Step] = []
    outcome = run_demo(tmp_path / "out", example=example, trust_example=True,
                       on_step=seen.append)
    by_name = {s.name: s for s in seen}
    assert by_name["replay the recorded worked examples"].status == "failed"
    assert by_name["diagnose (recorded)"].status == "skipped"
    assert by_name["diagnose (live)"].status == "done" and by_name["report"].status == "done"
    assert outcome.live and outcome.gate_passed is False


def test_the_cli_reports_the_failed_step_and_exits_1(tmp_path: Path) -> None:
    example = _example_copy(tmp_path)
    (example / "policy.yaml").write_text(": not yaml [", encoding="utf-8")
    got = CliRunner().invoke(cli, ["demo", "--out", str(tmp_path / "out"), "--example", str(example),
                                   "--trust-example"])
    assert got.exit_code == 1, got.output
    assert "✗ gate" in got.output and "Traceback" not in got.output
    assert "report.html" in got.output
