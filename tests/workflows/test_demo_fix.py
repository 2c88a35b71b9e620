"""The demo's fix lines say what was measured and claim no more: "by design" only when
the diagnosis of every case the fix cost says the fix left its answer out."""

from __future__ import annotations

from pathlib import Path

from codegold.workflows.demo_fix import (
    CaseMove,
    FixOutcome,
    fix_text,
    next_steps_text,
    own_excludes,
)


def _outcome(*lost: CaseMove, gate_passed: bool = True) -> FixOutcome:
    return FixOutcome(
        policy="fix/index-policy.yaml", excluded=("src/legacy/",), cases=10,
        classic=(CaseMove("session-expiry", "fail", "pass"),),
        gained=(CaseMove("session-expiry", "fail", "pass"),), lost=lost,
        still_failing=(CaseMove("slow-one", "fail", "fail", cause="below_cutoff"),),
        passed=(7, 8), forbidden=(3, 0), revision="v2", files=(86, 79), chunks=(184, 163),
        tokens=(460.4, 448.6), gate=(7, 7) if gate_passed else (6, 7), gate_passed=gate_passed,
        baseline_new=tuple(m.case_id for m in lost))


EXCLUDED = CaseMove("history", "pass", "fail", cause="excluded_by_policy", owner="search-infra",
                    evidence="inventory: src/legacy/a.ts fate=excluded reason=policy: exclude 'src/legacy/'")


def test_the_gain_the_cost_and_the_gate_are_printed() -> None:
    text = "\n".join(fix_text(_outcome(EXCLUDED)))
    assert text.startswith("The fix: fix/index-policy.yaml (left out of the index: src/legacy/)")
    assert "gain  pass 7 -> 8 of 10 cases; a forbidden source inside the cutoff in 3 -> 0 cases" in text
    assert "1 case now passes: session-expiry" in text
    assert "cost  1 case passed before and fails now: the fix left their only answer out of the index" in text
    assert "history" in text and "cause excluded_by_policy, owner search-infra" in text
    assert "reason=policy: exclude 'src/legacy/'" in text
    assert "names 1 case as new failures" in text
    assert "86 -> 79 files, 184 -> 163 chunks; context at the cutoff 460 -> 449 tokens" in text
    assert "still failing: slow-one (below_cutoff)" in text
    assert text.endswith("gate  the same policy on the fixed run: PASS, 7 of 7 checks pass")


def test_a_cost_not_diagnosed_as_the_exclusion_is_not_called_by_design() -> None:
    other = CaseMove("moved", "pass", "fail", cause="reranker_demotion", owner="ranking")
    text = "\n".join(fix_text(_outcome(EXCLUDED, other, gate_passed=False)))
    assert "cost  2 cases passed before and fail now\n" in text + "\n"
    assert "only answer" not in text
    assert "FAIL, 6 of 7 checks pass" in text


def test_no_cost_is_said_plainly() -> None:
    text = fix_text(_outcome())
    assert "  cost  0 cases passed before and fail now" in text
    assert "        a gate with the default run as baseline (max_new_failures: 0) names no new failure" in text


def test_own_excludes_leaves_out_the_built_in_ones(tmp_path: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text("format: 1\nexclude: [src/legacy/, vendor/]\n", encoding="utf-8")
    assert own_excludes(policy) == ("src/legacy/", "vendor/")
    policy.write_text("format: 1\ndefaults: false\nexclude: [vendor/]\n", encoding="utf-8")
    assert own_excludes(policy) == ("vendor/",)


def test_the_next_steps_are_the_loop_on_ones_own_repository() -> None:
    lines = next_steps_text()
    commands = [line.strip().split()[1] for line in lines if line.startswith("  codegold ")]
    assert commands == ["cases", "index", "cases", "run", "eval", "diagnose", "gate", "compare"]
