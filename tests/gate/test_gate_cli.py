"""``codegold gate``: floors and ceilings overall and per slice, zero tolerance, baseline,
exit codes 0/1/2, ``--report-only``, and one clear line for a bad policy."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from codegold.cli.main import cli
from codegold.evaluate import evaluate_files
from codegold.gate import decide, load_policy
from codegold.model import dump_results, load_results
from goldkit import SHA_B, attempt, case, chunk, write_attempts, write_cases

TARGET = [{"file": "src/a.py", "symbol": "f"}]
HIT = chunk("hit", "src/a.py", "f")
MISS = chunk("miss", "src/zzz.py")
LEGACY = chunk("legacy", "src/legacy/a.py", "f")
STALE = chunk("stale", "src/b.py", revision=SHA_B)

CASES = [
    case("e1", TARGET, query_class="exact_identifier", tags={"risk": "high"}),
    case("e2", TARGET, query_class="exact_identifier"),
    case("d1", TARGET, query_class="descriptive", tags={"risk": "high"}),
    case("d2", TARGET, query_class="descriptive"),
    case("d3", TARGET, query_class="descriptive"),
    case("d4", TARGET, query_class="descriptive"),
]
DEFAULTS = {"revision": "a" * 40, "cutoff": 3, "forbidden": ["src/legacy/"]}


def _results(tmp_path: Path, attempts: list[dict[str, object]], name: str) -> Path:
    cases = write_cases(tmp_path, CASES, DEFAULTS)
    att = write_attempts(tmp_path, attempts, name=f"{name}.jsonl")
    out = tmp_path / f"{name}.json"
    out.write_bytes(dump_results(evaluate_files(str(cases), str(att))))
    return out


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    """(current results, baseline results).

    current: e1 pass, e2 fail (miss), d1 fail (forbidden, hit), d2 fail (revision mismatch,
    hit), d3 invalid (no manifest), d4 missing  ->  hit rate 3/5 over scored cases.
    baseline: e1, e2, d1 pass; d2 fails; d3, d4 pass.
    """
    current = _results(tmp_path, [
        attempt("1", "e1", [HIT]),
        attempt("2", "e2", [MISS]),
        attempt("3", "d1", [LEGACY, HIT]),
        attempt("4", "d2", [HIT, STALE]),
        attempt("5", "d3", [HIT], with_manifest=False),
    ], "current")
    baseline = _results(tmp_path, [
        attempt("1", "e1", [HIT]), attempt("2", "e2", [HIT]), attempt("3", "d1", [HIT]),
        attempt("4", "d2", [MISS]), attempt("5", "d3", [HIT]), attempt("6", "d4", [HIT]),
    ], "baseline")
    return current, baseline


def _policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text("format: 1\n" + text, encoding="utf-8")
    return path


def _gate(*args: str) -> Result:
    return CliRunner().invoke(cli, ["gate", *args])


def _check_lines(output: str) -> list[str]:
    return [ln.strip() for ln in output.splitlines() if ln.startswith(("PASS", "FAIL"))]


def test_overall_floor_fails_with_figure_threshold_and_cases(
        tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, "rules:\n  - {metric: hit_rate, min: 0.9}\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 1, res.output
    assert "FAIL hit_rate >= 0.9 on all cases: 0.6000 (n=5) (threshold >= 0.9)" in res.output
    assert "cases: e2, d4" in res.output
    assert "gate: FAIL" in res.output


def test_overall_floor_and_ceiling_pass(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, "rules:\n  - {metric: hit_rate, min: 0.6}\n"
                     "  - {metric: forbidden_rate, max: 0.2}\n"
                     "  - {metric: mrr, min: 0.1, max: 1.0}\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 0, res.output
    assert len(_check_lines(res.output)) == 3
    assert all(line.startswith("PASS") for line in _check_lines(res.output))
    assert "gate: PASS" in res.output


def test_slice_rules_by_query_class_and_tag(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, """\
rules:
  - {metric: hit_rate, min: 0.6, slice: "query_class=exact_identifier"}
  - {metric: forbidden_rate, max: 0.0, slice: "tag:risk=high"}
  - {metric: hit_rate, min: 0.5, slice: "query_class=descriptive"}
  - {metric: revision_mismatch_rate, max: 0.1, slice: "query_class=descriptive"}
""")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 1
    out = res.output
    assert ("FAIL hit_rate >= 0.6 on query_class=exact_identifier: 0.5000 (n=2) "
            "(threshold >= 0.6)") in out
    assert ("FAIL forbidden_rate <= 0 on tag:risk=high: 0.5000 (n=2) (threshold <= 0)") in out
    assert "PASS hit_rate >= 0.5 on query_class=descriptive: 0.6667 (n=3)" in out
    assert ("FAIL revision_mismatch_rate <= 0.1 on query_class=descriptive: 0.3333 (n=3)") in out
    result = load_results(str(runs[0]))
    verdict = decide(result, load_policy(str(policy)))
    assert [c.cases for c in verdict.failures] == [["e2"], ["d1"], ["d2"]]
    assert "cases: e2" in out and "cases: d1" in out and "cases: d2" in out


def test_slice_with_too_few_cases_fails(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, "rules:\n"
                     "  - {metric: hit_rate, min: 0.1, slice: 'tag:risk=high', min_cases: 3}\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 1
    assert "n=2 (threshold n >= 3)" in res.output
    assert res.output.count("too few scored cases") == 1


def test_slice_the_results_do_not_hold_is_bad_input(
        tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, "rules:\n  - {metric: hit_rate, min: 0.1, slice: 'tag:team=none'}\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 2, res.output
    assert "tag:team=none" in res.output and "tag:risk=high" in res.output


@pytest.mark.parametrize(("option", "offenders"), [
    ("forbidden_sources", "d1"),
    ("revision_mismatches", "d2"),
    ("invalid_cases", "d3"),
    ("missing_cases", "d4"),
])
def test_zero_tolerance(tmp_path: Path, runs: tuple[Path, Path], option: str,
                        offenders: str) -> None:
    policy = _policy(tmp_path, f"zero_tolerance: [{option}]\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 1, res.output
    assert f"FAIL zero tolerance: {option}: 1 case(s) (threshold 0)" in res.output
    assert f"cases: {offenders}" in res.output


def test_zero_tolerance_passes_on_a_clean_run(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    clean = _results(tmp_path, [attempt(str(i), c["id"], [HIT]) for i, c in enumerate(CASES)],
                     "clean")
    policy = _policy(tmp_path, "zero_tolerance: [forbidden_sources, revision_mismatches, "
                     "invalid_cases, missing_cases]\nrules: [{metric: hit_rate, min: 1.0}]\n")
    res = _gate(str(clean), "--policy", str(policy))
    assert res.exit_code == 0, res.output
    assert len(_check_lines(res.output)) == 5


def test_baseline_from_the_policy_relative_path(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    # e2 and d1 passed in the baseline and fail now; d4 is missing now (counts as a failure);
    # d2 failed before too; d3 is invalid (not a failure of ranking).
    policy = _policy(tmp_path, "baseline: {results: baseline.json, max_new_failures: 3}\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 0, res.output
    assert "baseline: cases that passed before and fail now: 3 case(s) (threshold <= 3)" in res.output
    assert "cases: e2, d1, d4" in res.output

    policy = _policy(tmp_path, "baseline: {results: baseline.json, max_new_failures: 2}\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 1
    assert "FAIL baseline" in res.output


def test_baseline_on_the_command_line(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    current, baseline = runs
    policy = _policy(tmp_path, "rules: []\n")
    res = _gate(str(current), "--policy", str(policy), "--baseline", str(baseline))
    assert res.exit_code == 1  # max_new_failures defaults to 0
    assert "3 case(s) (threshold <= 0)" in res.output
    res = _gate(str(current), "--policy", str(policy), "--baseline", str(baseline),
                "--max-new-failures", "3")
    assert res.exit_code == 0, res.output
    # the same run as its own baseline never has new failures
    res = _gate(str(current), "--policy", str(policy), "--baseline", str(current))
    assert res.exit_code == 0


def test_report_only_prints_the_same_and_exits_zero(
        tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, "rules: [{metric: hit_rate, min: 0.9}]\n"
                     "zero_tolerance: [forbidden_sources]\n")
    strict = _gate(str(runs[0]), "--policy", str(policy))
    lenient = _gate(str(runs[0]), "--policy", str(policy), "--report-only")
    assert strict.exit_code == 1 and lenient.exit_code == 0
    assert lenient.output == strict.output
    assert "gate: FAIL" in lenient.output


def test_json_verdict(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, "rules: [{metric: hit_rate, min: 0.9}]\n")
    res = _gate(str(runs[0]), "--policy", str(policy), "--json")
    assert res.exit_code == 1
    verdict = json.loads(res.output)
    assert verdict["passed"] is False
    check = verdict["checks"][0]
    assert check["cases"] == ["e2", "d4"] and check["threshold"] == ">= 0.9"


BAD_POLICIES = [
    ("unknown_key", "rules:\n  - {metric: hit_rate, mni: 0.5}\n", "mni"),
    ("unknown_top_key", "rulez: []\n", "rulez"),
    ("bound_above_one", "rules:\n  - {metric: hit_rate, min: 1.5}\n", "[0, 1]"),
    ("bound_below_zero", "rules:\n  - {metric: forbidden_rate, max: -0.1}\n", "[0, 1]"),
    ("bad_slice_key", "rules:\n  - {metric: hit_rate, min: 0.5, slice: 'risk=high'}\n",
     "risk=high"),
    ("slice_without_value", "rules:\n  - {metric: hit_rate, min: 0.5, slice: 'tag:risk'}\n",
     "tag:risk"),
    ("unknown_metric", "rules:\n  - {metric: precision, min: 0.5}\n", "precision"),
    ("no_bound", "rules:\n  - {metric: hit_rate}\n", "neither"),
    ("unknown_zero_tolerance", "zero_tolerance: [forbidden]\n", "forbidden"),
    ("yaml_syntax", "rules: [\n", "invalid YAML"),
]


@pytest.mark.parametrize(("name", "text", "words"), BAD_POLICIES, ids=[b[0] for b in BAD_POLICIES])
def test_bad_policy_exits_2_with_one_line(tmp_path: Path, runs: tuple[Path, Path], name: str,
                                          text: str, words: str) -> None:
    policy = _policy(tmp_path, text)
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1, res.output
    assert lines[0].startswith(f"error: {policy}")
    assert words in lines[0]
    assert "Traceback" not in res.output


def test_policy_without_format_or_missing_files(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    no_format = tmp_path / "nofmt.yaml"
    no_format.write_text("rules: []\n", encoding="utf-8")
    wrong_format = tmp_path / "fmt9.yaml"
    wrong_format.write_text("format: 9\n", encoding="utf-8")
    good = _policy(tmp_path, "rules: []\n")
    for args in ([str(runs[0]), "--policy", str(no_format)],
                 [str(runs[0]), "--policy", str(wrong_format)],
                 [str(runs[0]), "--policy", str(tmp_path / "absent.yaml")],
                 [str(tmp_path / "absent.json"), "--policy", str(good)],
                 [str(runs[0]), "--policy", str(good), "--baseline", str(tmp_path / "x.json")]):
        res = _gate(*args)
        assert res.exit_code == 2, res.output
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), res.output


def test_max_new_failures_without_a_baseline_is_a_usage_error(
        tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, "rules: []\n")
    res = _gate(str(runs[0]), "--policy", str(policy), "--max-new-failures", "2")
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "baseline" in lines[0] and lines[0].startswith("error: ")


MORE_BAD_POLICIES = [
    ("min_above_max", "rules:\n  - {metric: hit_rate, min: 0.8, max: 0.5}\n", ["min", ":3"]),
    ("min_cases_zero", "rules:\n  - {metric: hit_rate, min: 0.5, min_cases: 0}\n",
     ["min_cases", ":3"]),
    ("negative_new_failures", "baseline: {results: baseline.json, max_new_failures: -1}\n",
     ["max_new_failures", ":2"]),
    ("negative_failed_cases", "max_failed_cases: -1\n", ["max_failed_cases"]),
    ("no_rules", "rules: []\n", ["checks nothing"]),
    ("nothing_at_all", "zero_tolerance: []\n", ["checks nothing"]),
    ("unknown_metric_lists_names", "rules:\n  - {metric: precision@5, min: 0.5}\n",
     ["precision@5", "hit_rate", "pass_rate", ":3"]),
    ("zero_cutoff", "rules:\n  - {metric: hit_rate@0, min: 0.5}\n", ["hit_rate@0"]),
    ("string_bound", "rules:\n  - {metric: hit_rate, min: high}\n", ["min"]),
    ("rules_not_a_list", "rules: {metric: hit_rate}\n", ["rules"]),
]


@pytest.mark.parametrize(("name", "text", "words"), MORE_BAD_POLICIES,
                         ids=[b[0] for b in MORE_BAD_POLICIES])
def test_policy_validation_is_located(tmp_path: Path, runs: tuple[Path, Path], name: str,
                                      text: str, words: list[str]) -> None:
    policy = _policy(tmp_path, text)
    res = _gate(str(runs[0]), "--policy", str(policy), "--report-only")
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {policy}"), res.output
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_max_failed_cases_catches_what_hit_rate_forgives(
        tmp_path: Path, runs: tuple[Path, Path]) -> None:
    # d1 and d2 are hit yet fail (forbidden source, other revision): hit rate 3/5 passes a
    # 0.6 floor while three scored cases fail.
    policy = _policy(tmp_path, "rules: [{metric: hit_rate, min: 0.6}]\nmax_failed_cases: 0\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 1
    assert "PASS hit_rate >= 0.6" in res.output
    assert ("FAIL failed cases (fail + missing) on all cases: 4 of 5 scored case(s) "
            "(threshold <= 0)") in res.output
    assert "cases: e2, d1, d2, d4" in res.output
    policy = _policy(tmp_path, "max_failed_cases: 4\n")
    assert _gate(str(runs[0]), "--policy", str(policy)).exit_code == 0


def test_pass_rate_rule_lists_failing_cases(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, "rules: [{metric: pass_rate, min: 0.5}]\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 1
    assert "FAIL pass_rate >= 0.5 on all cases: 0.2000 (n=5)" in res.output
    assert "cases: e2, d1, d2, d4" in res.output


def test_metric_at_the_case_cutoff(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    policy = _policy(tmp_path, "rules: [{metric: hit_rate@3, min: 0.5}]\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 0, res.output
    assert "PASS hit_rate@3 >= 0.5 on all cases: 0.6000 (n=5)" in res.output
    policy = _policy(tmp_path, "rules: [{metric: hit_rate@10, min: 0.5}]\n")
    res = _gate(str(runs[0]), "--policy", str(policy))
    assert res.exit_code == 2
    assert "cutoff 3" in res.output and "error:" in res.output


def _shrunk(tmp_path: Path) -> Path:
    """The current run on a case file without e1 and d4 (a different case-set digest)."""
    cases = write_cases(tmp_path, CASES[1:5], DEFAULTS, name="shrunk.yaml")
    att = write_attempts(tmp_path, [attempt("2", "e2", [HIT]), attempt("3", "d1", [HIT]),
                                    attempt("4", "d2", [MISS]), attempt("5", "d3", [HIT])],
                         name="shrunk.jsonl")
    out = tmp_path / "shrunk.json"
    out.write_bytes(dump_results(evaluate_files(str(cases), str(att))))
    return out


def test_baseline_cases_dropped_from_the_run_fail_unless_allowed(
        tmp_path: Path, runs: tuple[Path, Path]) -> None:
    shrunk = _shrunk(tmp_path)
    policy = _policy(tmp_path, "baseline: {results: baseline.json}\n")
    res = _gate(str(shrunk), "--policy", str(policy))
    assert res.exit_code == 1, res.output
    assert "PASS baseline: cases that passed before and fail now: 0 case(s)" in res.output
    assert ("FAIL baseline: cases in the baseline missing from this run (dropped): 2 case(s)"
            in res.output)
    assert "cases: e1, d4" in res.output
    verdict = json.loads(_gate(str(shrunk), "--policy", str(policy), "--json").output)
    assert "different case file" in verdict["checks"][0]["note"]

    policy = _policy(tmp_path, "baseline: {results: baseline.json, allow_dropped_cases: true}\n")
    res = _gate(str(shrunk), "--policy", str(policy))
    assert res.exit_code == 0, res.output
    assert "PASS baseline: cases in the baseline missing from this run (dropped)" in res.output


def test_report_only_exits_zero_even_with_markup_in_case_ids(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, [case("[/]", TARGET), case("[bold]x", TARGET)], DEFAULTS)
    att = write_attempts(tmp_path, [attempt("1", "[/]", [MISS])])
    results = tmp_path / "r.json"
    results.write_bytes(dump_results(evaluate_files(str(cases), str(att))))
    policy = _policy(tmp_path, "rules: [{metric: hit_rate, min: 0.9}]\n")
    res = _gate(str(results), "--policy", str(policy), "--report-only")
    assert res.exit_code == 0, res.output
    assert "cases: [/], [bold]x" in res.output


def test_report_and_gate_give_the_same_verdict(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    current, baseline = runs
    policy = _policy(tmp_path, "rules:\n  - {metric: hit_rate, min: 0.9}\n"
                     "  - {metric: mrr, min: 0.1, slice: 'query_class=descriptive'}\n"
                     "zero_tolerance: [invalid_cases]\n")
    # The report's verdict is the policy's, as `gate --policy` gives it: --compare shows a
    # comparison apart and adds no baseline check the policy does not have.
    gate = _gate(str(current), "--policy", str(policy), "--json")
    assert gate.exit_code == 1, gate.output
    verdict = json.loads(gate.output)
    md = tmp_path / "summary.md"
    res = CliRunner().invoke(cli, ["report", str(current), "--gate-policy", str(policy),
                                   "--compare", str(baseline), "--md", str(md)])
    assert res.exit_code == 0, res.output
    text = md.read_text(encoding="utf-8")
    failed = [c for c in verdict["checks"] if not c["passed"]]
    assert len(verdict["checks"]) == 3 and len(failed) == 2
    assert f"({len(failed)} of {len(verdict['checks'])} checks failed)" in text
    listed = [ln for ln in text.splitlines() if ln.startswith("- ")]
    assert len(listed) == len(failed)

    from codegold.assemble import report_input
    from codegold.gate import run_gate

    run = load_results(str(current))
    same = run_gate(run, load_policy(str(policy)))
    assert report_input(run, results_name="r", verdict=same).gate == same
    assert msgspec.to_builtins(same) == verdict


def test_report_uses_the_policy_baseline_as_gate_does(
        tmp_path: Path, runs: tuple[Path, Path]) -> None:
    # Before one verdict, the report ignored the policy's baseline (one check fewer).
    policy = _policy(tmp_path, "rules: [{metric: hit_rate, min: 0.9}]\n"
                     "baseline: {results: baseline.json}\n")
    verdict = json.loads(_gate(str(runs[0]), "--policy", str(policy), "--json").output)
    md = tmp_path / "summary.md"
    res = CliRunner().invoke(cli, ["report", str(runs[0]), "--gate-policy", str(policy),
                                   "--md", str(md)])
    assert res.exit_code == 0, res.output
    failed = [c for c in verdict["checks"] if not c["passed"]]
    assert len(verdict["checks"]) == 2 and len(failed) == 2
    assert "(2 of 2 checks failed)" in md.read_text(encoding="utf-8")
