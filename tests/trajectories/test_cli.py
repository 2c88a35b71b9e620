"""``codegold import trajectories`` in process: what it writes and says, and its one-line
errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.model import iter_attempts
from trajkit import FIXTURES

CASES = str(FIXTURES / "cases.yaml")


def invoke(*args: str) -> tuple[int, str, str]:
    got = CliRunner().invoke(cli, ["import", "trajectories", *args])
    return got.exit_code, got.stdout, got.stderr


def test_writes_attempts_and_a_report(tmp_path: Path) -> None:
    out, report = tmp_path / "a.jsonl", tmp_path / "r.json"
    code, _, err = invoke(str(FIXTURES / "swe-agent"), "--format", "swe-agent", "--cases", CASES,
                          "-o", str(out), "--report", str(report))
    assert code == 0, err
    assert "demo__repo-1 -> demo__repo-1: 10 steps, 5 reads, 3 search hits" in err
    assert "wrote 1 attempt(s)" in err
    (attempt,) = iter_attempts(str(out))
    assert attempt.retriever == "agent:swe-agent"
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["imported"] == 1 and data["trajectories"][0]["case_id"] == "demo__repo-1"


def test_json_prints_the_report(tmp_path: Path) -> None:
    code, out, _ = invoke(str(FIXTURES / "otel"), "--format", "otel", "--cases", CASES,
                          "-o", str(tmp_path / "a.jsonl"), "--json")
    assert code == 0 and json.loads(out)["trajectory_format"] == "otel"


def test_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(FIXTURES / "swe-agent" / "demo__repo-1.traj", folder / "ghost__case-1.traj")
    for args, words in [
        ((str(folder), "--format", "swe-agent", "-o", str(tmp_path / "a.jsonl")), "ghost__case-1"),
        ((str(folder), "--format", "swe-agent", "-o", str(folder / "a.jsonl")), "inside"),
        ((str(folder), "--format", "mapped", "--map", "nonsense=x", "-o",
          str(tmp_path / "a.jsonl")), "unknown field"),
        ((str(folder), "--format", "swe-agent", "--resolve", "-o", str(tmp_path / "a.jsonl")),
         "--index"),
    ]:
        code, _, err = invoke(*args, "--cases", CASES)
        lines = [line for line in err.splitlines() if line.startswith("error:")]
        assert code == 2 and len(lines) == 1 and words in lines[0], err
    assert not (tmp_path / "a.jsonl").exists()


def test_the_cli_offers_every_registered_format() -> None:
    from codegold.cli.import_cmd import TRAJECTORY_FORMATS
    from codegold.trajectories import FORMATS

    assert tuple(FORMATS) == TRAJECTORY_FORMATS
