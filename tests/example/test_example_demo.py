"""`codegold demo` runs every step on the bundled example, offline, and tells the story of
three classic failures: caught, diagnosed, fixed by a configuration a team would commit,
the fix's gain and cost measured, and the same gate passing on the fixed configuration."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.errors import InputError
from codegold.model import load_results
from codegold.workflows.demo import (
    BROKEN_ANSWER_ID,
    DemoOutcome,
    Step,
    default_example_dir,
    prepare_out,
    run_demo,
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoOutcome, list[Step], float]:
    seen: list[Step] = []
    started = time.perf_counter()
    outcome = run_demo(tmp_path_factory.mktemp("demo") / "out", on_step=seen.append)
    return outcome, seen, time.perf_counter() - started


def test_every_step_runs(demo: tuple[DemoOutcome, list[Step], float]) -> None:
    outcome, seen, seconds = demo
    assert [s.status for s in seen] == ["done"] * len(seen), [(s.name, s.detail) for s in seen]
    names = " | ".join(s.name for s in seen)
    for step in ("build", "index v1", "index v2", "run cases", "evaluate", "answer stage",
                 "recorded", "import agent trajectories",
                 "diagnose (live)", "diagnose (recorded)", "gate", "report",
                 "fix: index v1", "fix: index v2", "fix: run cases", "fix: evaluate",
                 "fix: diagnose", "fix: gate", "fix: report", "fix: gain and cost"):
        assert step in names
    assert outcome.live and outcome.skipped == () and outcome.failed == ()
    assert seconds < 60  # the budget is 2 minutes on two cores


def test_outputs_are_where_the_demo_says(demo: tuple[DemoOutcome, list[Step], float]) -> None:
    outcome, seen, _ = demo
    for step in seen:
        for path in step.outputs:
            assert Path(path).exists(), path
    assert outcome.report is not None and outcome.report.read_text(encoding="utf-8").startswith("<!")
    live = load_results(str(outcome.out / "results.json"))
    assert live.summary.cases == 52 and live.summary.invalid == 0
    diagnoses = json.loads((outcome.out / "diagnosis" / "diagnoses.json").read_text())
    assert {d["case_id"] for d in diagnoses["diagnoses"]} == {
        c.case_id for c in live.cases if c.status != "pass"}
    assert all(d["owner"] for d in diagnoses["diagnoses"])


def test_the_recorded_worked_examples_are_caught_and_explained(
        demo: tuple[DemoOutcome, list[Step], float]) -> None:
    outcome, _, _ = demo
    recorded = {line.case_id: line for line in outcome.examples if line.run == "recorded"}
    assert set(recorded) == {"session-expiry", "webhook-parse-signature", "retry-policy-definition"}
    assert all(line.status == "fail" and line.cause and line.owner for line in recorded.values())
    assert recorded["session-expiry"].cause == "forbidden_source"
    assert recorded["session-expiry"].first_relevant_rank == 3
    assert recorded["webhook-parse-signature"].missing_groups == ("parser",)
    assert recorded["retry-policy-definition"].missing_groups == ("definition",)
    assert outcome.gate_passed is False  # the policy forbids what the recorded run shows


def test_the_fix_passes_the_classic_cases_and_the_same_gate(
        demo: tuple[DemoOutcome, list[Step], float]) -> None:
    outcome, _, _ = demo
    fix = outcome.fix
    assert fix is not None and fix.policy.endswith("fix/index-policy.yaml")
    assert fix.excluded == ("src/legacy/", "src/generated/", "vendor/")
    live = load_results(str(outcome.out / "results.json")).by_id()
    fixed = load_results(str(outcome.out / "fixed" / "results.json"))
    # The default run shows forbidden sources in the classic cases; the fixed one none at all.
    assert live["session-expiry"].forbidden_chunk_ids and live["retry-policy-definition"].forbidden_chunk_ids
    moves = {m.case_id: m for m in fix.classic}
    assert set(moves) == {"session-expiry", "webhook-parse-signature", "retry-policy-definition"}
    assert all(m.after == "pass" for m in moves.values()), moves
    assert {"session-expiry", "retry-policy-definition"} <= {m.case_id for m in fix.gained}
    assert fix.forbidden[0] > 0 and fix.forbidden[1] == 0
    assert not any(c.forbidden_chunk_ids for c in fixed.cases)
    assert fix.passed == (sum(c.status == "pass" for c in live.values()), fixed.summary.pass_)
    assert fix.passed[1] > fix.passed[0]
    # The same policy judged both runs: same checks, the default run failed, the fixed passed.
    default_gate = json.loads((outcome.out / "gate.json").read_text())
    fixed_gate = json.loads((outcome.out / "fixed" / "gate.json").read_text())
    assert [c["rule"] for c in fixed_gate["checks"]] == [c["rule"] for c in default_gate["checks"]]
    assert default_gate["passed"] is False and fixed_gate["passed"] is True
    assert outcome.gate_passed is False and fix.gate_passed is True
    assert fix.gate == (len(fixed_gate["checks"]), len(fixed_gate["checks"]))
    got = CliRunner().invoke(cli, ["gate", str(outcome.out / "fixed" / "results.json"),
                                   "--policy", str(default_example_dir() / "policy.yaml")])
    assert got.exit_code == 0, got.output


def test_the_fix_cost_is_measured_and_diagnosed(
        demo: tuple[DemoOutcome, list[Step], float]) -> None:
    outcome, _, _ = demo
    fix = outcome.fix
    assert fix is not None
    lost = {m.case_id: m for m in fix.lost}
    # The historical question's only answer is the legacy shim, which the fix leaves out.
    assert "legacy-session-history" in lost
    live = load_results(str(outcome.out / "results.json")).by_id()
    fixed = load_results(str(outcome.out / "fixed" / "results.json")).by_id()
    assert set(lost) == {c for c in fixed if live[c].status == "pass" and fixed[c].status != "pass"}
    for move in lost.values():
        assert (move.before, move.after, move.cause) == ("pass", "fail", "excluded_by_policy")
        assert move.owner and move.evidence and "policy: exclude" in move.evidence
    assert fix.baseline_new is not None and set(fix.baseline_new) == set(lost)
    assert fix.revision == "v2" and fix.files[1] < fix.files[0] and fix.chunks[1] < fix.chunks[0]
    assert fix.tokens[0] > 0 and fix.tokens[1] > 0
    diagnoses = json.loads((outcome.out / "fixed" / "diagnosis" / "diagnoses.json").read_text())
    assert {d["case_id"] for d in diagnoses["diagnoses"]} == {
        c for c, r in fixed.items() if r.status != "pass"}


def test_the_scripted_answers_show_every_class_and_the_planted_broken_link(
        demo: tuple[DemoOutcome, list[Step], float]) -> None:
    outcome, seen, _ = demo
    results = json.loads((outcome.out / "answer-results.json").read_text())
    summary = results["summary"]
    assert summary["answers"] == 53 and summary["broken"] == 1
    assert all(summary["classes"][name] > 0
               for name in ("evidence_absent", "evidence_ignored", "evidence_stale"))
    broken = [a for a in results["answers"] if a["linkage"] == "broken"]
    assert [a["answer_id"] for a in broken] == [BROKEN_ANSWER_ID]
    answers = [json.loads(line) for line in
               (outcome.out / "answers.jsonl").read_text().splitlines()]
    live = load_results(str(outcome.out / "results.json")).by_id()
    for answer in answers[:-1]:
        case = live[answer["case_id"]]
        assert answer["attempt_id"] == case.attempt_id
        assert answer["context_ids"] == [c.chunk_id for c in case.ranked[:case.cutoff]]
    step = next(s for s in seen if s.name.startswith("answer stage"))
    table = "\n".join(step.notes)
    for name in ("evidence_absent", "evidence_ignored", "evidence_stale", "broken link"):
        assert name in table


def test_cli_prints_each_step_and_can_rerun_into_the_same_folder(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["demo", "--out", str(tmp_path / "d")])
    assert first.exit_code == 0, first.output
    again = runner.invoke(cli, ["demo", "--out", str(tmp_path / "d")])
    assert again.exit_code == 0, again.output
    for text in ("build the example repository", "index v2", "gate", "report.html",
                 "evidence_ignored", "answer-results.json",
                 "Three classic retrieval failures", "The fix: ", "fix/index-policy.yaml",
                 "  gain  pass ", "  cost  ", "excluded_by_policy", "tokens per case",
                 "Gate on the default configuration failed",
                 "Gate on the fixed configuration (fix/index-policy.yaml, same policy) passed",
                 "fixed/report.html"):
        assert text in again.output
    # The last lines say what to run next on one's own repository.
    tail = again.output.rstrip().splitlines()[-11:]
    assert tail[0].startswith("Next, on your own repository")
    assert [line.split()[:2] for line in tail[1:8]] == [["codegold", "cases"], ["codegold", "index"],
                                                        ["codegold", "cases"], ["codegold", "run"],
                                                        ["codegold", "eval"], ["codegold", "diagnose"],
                                                        ["codegold", "gate"]]
    assert tail[-1].strip() == "codegold compare results.json fixed/results.json"


def test_refuses_a_folder_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not written by `codegold demo`"):
        prepare_out(tmp_path)
    assert (tmp_path / "notes.txt").exists()



@pytest.mark.slow
def test_quoted_demo_output_in_readme_and_docs_is_current(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README.md and docs/ quote the demo between ``<!-- demo:NAME -->`` markers;
    scripts/gen_demo_docs.py fills them from a run of the demo as ``make demo`` runs it
    (the dense signal on, which the quick suite turns off), and this keeps them current."""
    import importlib.util
    import sys

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("gen_demo_docs",
                                                  root / "scripts" / "gen_demo_docs.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = gen
    spec.loader.exec_module(gen)
    monkeypatch.delenv("CODEGOLD_DENSE", raising=False)
    outcome = run_demo(tmp_path / "out")
    if outcome.skipped:
        pytest.skip("the demo skipped " + ", ".join(s.name for s in outcome.skipped)
                    + ": README quotes the whole demo (make install)")
    gen.remember(outcome.out, outcome.examples, outcome.fix)
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "<!-- demo:eval -->" in readme and "<!-- demo:fix -->" in readme
    assert gen.stale(outcome.out) == [], "run: .venv/bin/python scripts/gen_demo_docs.py"
