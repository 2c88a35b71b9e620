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


def test_a_bad_policy_fails_the_gate_step_only(tmp_path: Path) -> None:
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
    assert [s.name for s in outcome.failed] == [next(s.name for s in seen if s.name.startswith("gate"))]


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
