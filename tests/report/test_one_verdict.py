"""``report --compare`` shows the comparison apart: the verdict is the policy's, the one
``codegold gate`` gives, with no baseline check the policy does not have."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from goldkit import attempt, case, chunk, write_attempts, write_cases


def test_report_and_gate_agree_with_a_comparison_given(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, [case(f"c{n}", [{"file": f"src/f{n}.py"}]) for n in range(4)])
    runner = CliRunner()
    results = {}
    for name, hits in (("base", 4), ("new", 2)):
        attempts = write_attempts(tmp_path, [
            attempt(f"c{n}-{name}", f"c{n}", [chunk("x", f"src/f{n}.py" if n < hits else "src/z.py")])
            for n in range(4)], name=f"{name}.jsonl")
        results[name] = tmp_path / f"{name}.json"
        assert runner.invoke(cli, ["eval", str(cases), str(attempts), "-o", str(results[name]),
                                   "--quiet"]).exit_code == 0
    policy = tmp_path / "policy.yaml"
    policy.write_text("format: 1\nrules:\n  - {metric: hit_rate, min: 0.9}\n"
                      "  - {metric: mean_group_recall, min: 0.4}\n")
    gate = runner.invoke(cli, ["gate", str(results["new"]), "--policy", str(policy)])
    said = re.search(r"\((\d+ of \d+) checks failed\)", gate.output)
    assert said is not None, gate.output
    md, html = tmp_path / "summary.md", tmp_path / "report.html"
    done = runner.invoke(cli, ["report", str(results["new"]), "--compare", str(results["base"]),
                               "--gate-policy", str(policy), "--md", str(md), "-o", str(html)])
    assert done.exit_code == 0, done.output
    summary = md.read_text(encoding="utf-8")
    assert f"({said.group(1)} checks failed)" in summary
    assert "baseline: cases that passed before" not in summary
    assert "2 of 2 checks" not in html.read_text(encoding="utf-8")
    # the comparison is still shown, apart from the verdict
    assert "c2" in summary and "c3" in summary
