"""Third round: failed edits are passed over with their reason, in every format; files
the agent created are marked and left out of line precision; spans shown after the
agent's own edit are marked; the report says at which steps calls were passed over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegold.errors import SchemaError
from codegold.evaluate.engine import evaluate_files
from codegold.model import CaseSet, encode_attempt, load_cases
from codegold.trajectories import import_trajectories
from trajkit import FIXTURES


def _swe(tmp_path: Path, steps: list[tuple[str, str]], submission: str = "") -> Path:
    path = tmp_path / "demo__repo-1.traj"
    path.write_text(json.dumps({"trajectory": [
        {"action": a, "observation": o, "state": {"working_dir": "/testbed"}} for a, o in steps],
        "info": {"submission": submission}}), encoding="utf-8")
    return path


def _one(path: Path, cases: CaseSet, format_name: str, **options: Any) -> Any:
    result = import_trajectories([path], format_name=format_name, cases=cases, **options)
    return result.attempts[0], result.report.trajectories[0]


NO_REPLACEMENT = ("ERROR:\nNo replacement was performed, old_str `x = 1` did not appear "
                  "verbatim in /workspace/repo/src/app/session.py.")


def test_failed_openhands_edits_are_passed_over_with_their_reason(tmp_path: Path,
                                                                  cases: CaseSet) -> None:
    events: list[dict[str, Any]] = []
    for n, content in enumerate([NO_REPLACEMENT, NO_REPLACEMENT,
                                 "The file /workspace/repo/src/app/session.py has been edited."]):
        events += [{"id": 2 * n, "source": "agent", "action": "edit",
                    "args": {"path": "/workspace/repo/src/app/session.py",
                             "command": "str_replace", "old_str": "x = 1", "new_str": "x = 2"}},
                   {"id": 2 * n + 1, "cause": 2 * n, "observation": "edit", "content": content}]
    path = tmp_path / "demo__repo-1.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    attempt, report = _one(path, cases, "openhands")
    assert [(e.file, e.step) for e in attempt.edits] == [("src/app/session.py", 2)]
    assert report.skipped_calls == {"failed edit: No replacement was performed": 2}
    assert report.skipped_steps == {"failed edit: No replacement was performed": [0, 1]}


def test_failed_edits_of_the_other_formats(tmp_path: Path, cases: CaseSet) -> None:
    (tmp_path / "swe").mkdir()
    swe = _swe(tmp_path / "swe", [
        ("str_replace_editor str_replace /testbed/a.py --old_str x --new_str y",
         "No replacement was performed. Multiple occurrences of old_str `x`"),
        ("str_replace_editor create /testbed/c.py --file_text x", "File created successfully")])
    attempt, report = _one(swe, cases, "swe-agent")
    assert [e.file for e in attempt.edits] == ["c.py"]
    assert report.skipped_calls == {"failed edit: No replacement was performed": 1}
    claude = tmp_path / "session.jsonl"
    lines = [{"type": "assistant", "cwd": "/repo", "message": {"id": "m1", "content": [
                 {"type": "tool_use", "id": "t1", "name": "Edit",
                  "input": {"file_path": "/repo/a.py", "old_string": "x", "new_string": "y"}}]}},
             {"type": "user", "cwd": "/repo", "message": {"content": [
                 {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                  "content": "<tool_use_error>String to replace not found in file."
                             "</tool_use_error>"}]}}]
    claude.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    attempt, report = _one(claude, cases, "claude-code", case_id="demo__repo-1")
    assert attempt.edits is None
    assert report.skipped_calls == {"failed edit: String to replace not found in file": 1}
    mini = tmp_path / "demo__repo-1.traj.json"
    mini.write_text(json.dumps({"messages": [
        {"role": "assistant", "content": "```bash\nsed -i 's/x/y/' b.py\n```"},
        {"role": "user", "content": "<returncode>2</returncode>\n<output>\nsed: can't read "
                                    "b.py: No such file or directory\n</output>"}]}),
        encoding="utf-8")
    attempt, report = _one(mini, cases, "mini-swe-agent")
    assert attempt.edits is None
    assert report.skipped_calls == {
        "failed edit: sed: can't read b.py: No such file or directory": 1}


def test_created_files_and_reads_after_edits_are_marked(tmp_path: Path, cases: CaseSet) -> None:
    numbered = "".join(f"{n}\tline {n}\n" for n in range(1, 4))
    steps = [
        ("cat -n src/app/session.py", numbered),
        ("cat > reproduce_issue.py <<'EOF'\nimport app\nprint(app.x)\nEOF", ""),
        ("cat reproduce_issue.py", "import app\nprint(app.x)\n"),
        ("cp src/app/session.py src/app/session.py.backup", ""),
        ("cat src/app/session.py.backup", "line 1\nline 2\n"),
        ("sed -i 's/a/b/' src/app/session.py", ""),
        ("sed -n '4,6p' src/app/session.py", "line 4\nline 5\nline 6\n"),
        ("git diff > patch.txt && cat patch.txt", "diff\n"),
        ("cat > src/app/new.py <<'EOF'\nx\nEOF", ""),
        ("cat src/app/new.py", "x\n")]
    # the final patch adds src/app/new.py: a file it adds is still the agent's
    final = "diff --git a/src/app/new.py b/src/app/new.py\n--- /dev/null\n+++ b/src/app/new.py\n"
    path = _swe(tmp_path, steps, final)
    cases_path = tmp_path / "cases.yaml"
    cases_path.write_text(
        "format: 1\ncases:\n  - id: demo__repo-1\n    query: where\n    repository: demo/repo\n"
        "    revision: 1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a\n    cutoff: 20\n"
        "    groups:\n      - {id: d, any_of: [{file: src/app/session.py, lines: [1, 6]}]}\n",
        encoding="utf-8")
    mine = load_cases(str(cases_path))
    result = import_trajectories([path], format_name="swe-agent", cases=mine)
    attempt = result.attempts[0]
    marks = [(c.file, c.start_line, c.created, c.after_edit) for c in attempt.ranked]
    assert marks == [("src/app/session.py", 1, False, False),
                     ("reproduce_issue.py", 1, True, True),
                     ("src/app/session.py.backup", 1, True, True),
                     ("src/app/session.py", 4, False, True),
                     ("patch.txt", 1, True, True),
                     ("src/app/new.py", 1, True, True)]
    attempts = tmp_path / "a.jsonl"
    attempts.write_bytes(b"".join(encode_attempt(a) + b"\n" for a in result.attempts))
    (scored,) = evaluate_files(str(cases_path), str(attempts)).cases
    # only the repository's own lines count as what was seen
    assert scored.lines.seen == 6 and scored.lines.precision == 1.0


def test_a_file_the_final_patch_shows_as_existing_is_not_created(tmp_path: Path,
                                                                  cases: CaseSet) -> None:
    """Written whole before any read, but the patch says it existed: not the agent's."""
    path = tmp_path / "demo__repo-1.traj"
    path.write_text(json.dumps({"trajectory": [
        {"action": "cat > src/app/session.py <<'EOF'\nx\nEOF", "observation": ""},
        {"action": "cat src/app/session.py", "observation": "x\n"}],
        "info": {"submission": "diff --git a/src/app/session.py b/src/app/session.py\n"
                               "--- a/src/app/session.py\n+++ b/src/app/session.py\n"}}),
        encoding="utf-8")
    attempt, _ = _one(path, cases, "swe-agent")
    assert [(c.file, c.created, c.after_edit) for c in attempt.ranked] == [
        ("src/app/session.py", False, True)]


FIXTURE_FILES = {"swe-agent": "swe-agent/demo__repo-1.traj",
                 "mini-swe-agent": "mini-swe-agent/demo__repo-1.traj.json",
                 "openhands": "openhands/demo__repo-1.json",
                 "claude-code": "claude-code/5e55.jsonl", "otel": "otel/traces.jsonl"}


@pytest.mark.parametrize("written", sorted(FIXTURE_FILES))
@pytest.mark.parametrize("asked", sorted(FIXTURE_FILES))
def test_a_format_that_does_not_fit_is_refused_naming_the_one_it_looks_like(
        tmp_path: Path, cases: CaseSet, written: str, asked: str) -> None:
    path = tmp_path / "input"
    path.write_bytes((FIXTURES / FIXTURE_FILES[written]).read_bytes())
    if written == asked:
        assert import_trajectories([path], format_name=asked, cases=cases,
                                   case_id="demo__repo-1").attempts[0].ranked
        return
    with pytest.raises(SchemaError, match=f"import it with 'format' {written}$"):
        import_trajectories([path], format_name=asked, cases=cases, case_id="demo__repo-1")
