"""The calls an import passed over, by step, from the trajectory to the attempt, through
``eval`` into results.json, and into the report (HTML payload, Markdown) and the evidence
bundles; escaped there like every other text a trajectory wrote. Attempts and results
without them keep their bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from codegold.diagnose import diagnose_run
from codegold.diagnose.bundle import render_bundle_markdown
from codegold.evaluate.engine import evaluate_files
from codegold.model import (
    Attempt,
    CaseSet,
    Manifest,
    PassedOver,
    RunResult,
    decode_attempt,
    dump_results,
    encode_attempt,
    load_results,
)
from codegold.report import ReportInput, render_html, render_markdown
from codegold.report.payload import build_payload, embed_json
from codegold.trajectories import import_trajectories
from goldkit import attempt, case, chunk, manifest, run_eval
from trajkit import FIXTURES

REVISION = "1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a"
REPO = Path(__file__).resolve().parents[2]
REFUSED = ("ERROR:\nNo replacement was performed, old_str `x` did not appear verbatim in "
           "/workspace/repo/src/app/session.py.")
FAILED_EDIT = "failed edit: No replacement was performed"
# A secret built at run time, so that no scanner of this file takes it for a real one.
TOKEN = "ghp_" + "Zr8Kq2Lm5Nx7Pb3Vd9Wf1Yh4Tj6Sc0Ga2Ue8"
HOSTILE = "</script><img src=x onerror=alert(1)>|**x**"


def _openhands(tmp_path: Path, actions: list[tuple[str, dict[str, Any], str]]) -> Path:
    """An OpenHands event list: each action and the observation it caused."""
    events: list[dict[str, Any]] = []
    for n, (action, args, content) in enumerate(actions):
        events += [{"id": 2 * n, "source": "agent", "action": action, "args": args},
                   {"id": 2 * n + 1, "source": "agent", "observation": action, "cause": 2 * n,
                    "content": content}]
    path = tmp_path / "demo__repo-1.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    return path


def _edit(content: str) -> tuple[str, dict[str, Any], str]:
    return ("edit", {"path": "/workspace/repo/src/app/session.py", "command": "str_replace",
                     "old_str": "x", "new_str": "y"}, content)


def _imported(cases: CaseSet) -> Attempt:
    """The fixture's OpenHands trajectory, its attempt vouched for by an index manifest of
    the case's revision (so the case is scored, and fails: the session file is not read
    as its target asks)."""
    result = import_trajectories([FIXTURES / "openhands"], format_name="openhands",
                                 cases=cases)
    (found,) = result.attempts
    return msgspec.structs.replace(found, manifest=msgspec.convert(manifest(REVISION), Manifest))


def _evaluated(tmp_path: Path, attempts: list[Attempt]) -> RunResult:
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "format: 1\n"
        f"defaults: {{repository: demo/repo, revision: {REVISION}, cutoff: 20}}\n"
        "cases:\n"
        "  - id: demo__repo-1\n"
        "    query: Where is create_session defined?\n"
        "    groups:\n"
        "      - {id: definition, any_of: [{file: src/app/nowhere.py}]}\n", encoding="utf-8")
    path = tmp_path / "attempts.jsonl"
    path.write_bytes(b"".join(encode_attempt(a) + b"\n" for a in attempts))
    return evaluate_files(str(cases), str(path))


# --- the importer ---------------------------------------------------------------------------

@pytest.mark.parametrize(("folder", "format_name", "expected"), [
    ("openhands", "openhands", [(4, "unknown tool 'run_ipython'")]),
    ("swe-agent", "swe-agent", [(8, "output of `frobnicate` is not a file read or search")]),
    ("mini-swe-agent", "mini-swe-agent", [(4, "the call reported an error")]),
    ("otel", "otel", [(1, "unknown tool 'deploy'")]),
])
def test_the_importer_keeps_the_passed_over_steps_on_the_attempt(
        cases: CaseSet, folder: str, format_name: str, expected: list[tuple[int, str]]) -> None:
    result = import_trajectories([FIXTURES / folder], format_name=format_name, cases=cases)
    (found,) = result.attempts
    (report,) = result.report.trajectories
    assert [(p.step, p.reason) for p in found.passed_over or []] == expected
    # the same steps the import summary lists, per reason
    assert {why: [p.step for p in found.passed_over or [] if p.reason == why]
            for why in report.skipped_steps} == report.skipped_steps
    assert decode_attempt(encode_attempt(found)) == found


def test_steps_of_several_reasons_come_in_step_order(tmp_path: Path, cases: CaseSet) -> None:
    path = _openhands(tmp_path, [_edit(REFUSED), ("run_ipython", {"code": "1"}, "1"),
                                 _edit(REFUSED), _edit("The file has been edited.")])
    (found,) = import_trajectories([path], format_name="openhands", cases=cases).attempts
    assert found.passed_over == [PassedOver(step=0, reason=FAILED_EDIT),
                                 PassedOver(step=1, reason="unknown tool 'run_ipython'"),
                                 PassedOver(step=2, reason=FAILED_EDIT)]
    line = encode_attempt(found)
    assert b'"passed_over":[{"step":0,"reason":"failed edit: No replacement' in line


def test_a_trajectory_with_nothing_passed_over_writes_no_field(cases: CaseSet) -> None:
    result = import_trajectories([FIXTURES / "claude-code"], format_name="claude-code",
                                 cases=cases, case_id="demo__repo-1")
    (found,) = result.attempts
    assert found.passed_over is None and b"passed_over" not in encode_attempt(found)


# --- eval ---------------------------------------------------------------------------------

def test_eval_copies_them_into_results_json(tmp_path: Path, cases: CaseSet) -> None:
    run = _evaluated(tmp_path, [_imported(cases)])
    (result,) = run.cases
    assert result.status == "fail"
    assert result.passed_over_steps == [PassedOver(step=4, reason="unknown tool 'run_ipython'")]
    raw = dump_results(run)
    assert b'"passed_over":[{"step":4,"reason":"unknown tool \'run_ipython\'"}]' in raw
    written = tmp_path / "results.json"
    written.write_bytes(raw)
    assert load_results(str(written)).cases[0].passed_over_steps == result.passed_over_steps


def test_a_case_without_them_keeps_its_bytes(tmp_path: Path) -> None:
    run = run_eval(tmp_path, [case("c", [{"file": "a.py"}])],
                   [attempt("t", "c", [chunk("a", "a.py", step=0, kind="read")])])
    assert run.cases[0].passed_over_steps == []
    assert b"passed_over" not in dump_results(run)
    assert "passed_over" not in msgspec.json.encode(build_payload(ReportInput(results=run))
                                                    ).decode()


# --- report and bundles ----------------------------------------------------------------

def test_the_report_names_the_steps(tmp_path: Path, cases: CaseSet) -> None:
    run = _evaluated(tmp_path, [_imported(cases)])
    report = ReportInput(results=run)
    row = build_payload(report).cases[0]
    assert row.passed_over == "step 4 (unknown tool 'run_ipython')"
    assert "step 4 (unknown tool 'run_ipython')" in embed_json(build_payload(report))
    assert 'kv(box, "passed over", c.passed_over)' in render_html(report)
    line = next(x for x in render_markdown(report).splitlines()
                if x.startswith("- **demo\\_\\_repo-1**"))
    assert "passed over: step 4" in line and "run\\_ipython" in line


def test_the_evidence_bundle_names_the_steps(tmp_path: Path, cases: CaseSet) -> None:
    run = _evaluated(tmp_path, [_imported(cases)])
    _, diagnosed = diagnose_run(run, attempts_path=str(tmp_path / "attempts.jsonl"))
    (item,) = diagnosed
    assert item.bundle.passed_over == [PassedOver(step=4, reason="unknown tool 'run_ipython'")]
    text = render_bundle_markdown(item.bundle, item.diagnosis)
    assert "- passed over: step 4 (unknown tool 'run\\_ipython')" in text
    assert b'"passed_over":[{"step":4' in msgspec.json.encode(item.bundle)


def test_a_long_list_is_cut_with_a_count(tmp_path: Path, cases: CaseSet) -> None:
    path = _openhands(tmp_path, [_edit(REFUSED)] * 25 + [_edit("The file has been edited.")])
    (found,) = import_trajectories([path], format_name="openhands", cases=cases).attempts
    found = msgspec.structs.replace(found, manifest=msgspec.convert(manifest(REVISION),
                                                                    Manifest))
    assert len(found.passed_over or []) == 25
    run = _evaluated(tmp_path, [found])
    text = build_payload(ReportInput(results=run)).cases[0].passed_over
    assert isinstance(text, str)
    assert text.startswith(f"step 0 ({FAILED_EDIT}), step 1 (")
    assert f"step 19 ({FAILED_EDIT}) and 5 more" in text and "step 20" not in text
    assert "and 5 more" in render_markdown(ReportInput(results=run))
    _, diagnosed = diagnose_run(run, attempts_path=str(tmp_path / "attempts.jsonl"))
    assert "and 5 more" in render_bundle_markdown(diagnosed[0].bundle, diagnosed[0].diagnosis)


def test_what_a_trajectory_wrote_is_escaped_and_redacted(tmp_path: Path,
                                                          cases: CaseSet) -> None:
    path = _openhands(tmp_path, [(HOSTILE, {}, "1"), (TOKEN, {}, "1"),
                                 _edit("The file has been edited.")])
    (found,) = import_trajectories([path], format_name="openhands", cases=cases).attempts
    assert [p.reason for p in found.passed_over or []] == [
        f"unknown tool '{HOSTILE}'", "unknown tool '<SECRET:github_token>'"]
    found = msgspec.structs.replace(found, manifest=msgspec.convert(manifest(REVISION),
                                                                    Manifest))
    run = _evaluated(tmp_path, [found])
    report = ReportInput(results=run)
    html = render_html(report)
    assert "<img src=x" not in html and TOKEN not in html
    markdown = render_markdown(report)
    line = next(x for x in markdown.splitlines() if "passed over:" in x)
    assert "<img" not in line and "**x**" not in line and "|" not in line.replace("\\|", "")
    _, diagnosed = diagnose_run(run, attempts_path=str(tmp_path / "attempts.jsonl"))
    bundle = render_bundle_markdown(diagnosed[0].bundle, diagnosed[0].diagnosis)
    line = next(x for x in bundle.splitlines() if x.startswith("- passed over:"))
    assert "<img" not in line and "**x**" not in line and TOKEN not in bundle


# --- files written before ----------------------------------------------------------------

def test_an_attempts_file_without_the_field_reads_and_keeps_its_bytes() -> None:
    lines = (REPO / "examples" / "acme-shop" / "recorded" / "attempts.jsonl").read_bytes()
    for line in lines.splitlines():
        found = decode_attempt(line)
        assert found.passed_over is None
        assert encode_attempt(found) == line


def test_a_hand_written_reason_is_redacted_as_it_is_read() -> None:
    line = json.dumps({"attempt_id": "a", "case_id": "c", "passed_over": [
        {"step": 3, "reason": f"unknown tool '{TOKEN}'"}]}).encode()
    found = decode_attempt(line)
    assert found.passed_over == [PassedOver(step=3, reason="unknown tool '<SECRET:github_token>'")]
