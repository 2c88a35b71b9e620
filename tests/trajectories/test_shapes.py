"""The other shapes each format comes in: SWE-agent history messages, OpenHands output
records and action/observation pairs, Claude Code file-listing greps, multi-trace OTLP."""

from __future__ import annotations

import json
from pathlib import Path

from codegold.model import CaseSet
from codegold.trajectories import import_trajectories
from trajkit import spans


def test_swe_agent_history_reads_the_state_from_the_prompt_footer(tmp_path: Path,
                                                                   cases: CaseSet) -> None:
    footer = "\n(Open file: /owner__repo/src/app/session.py)\n(Current directory: /owner__repo)\nbash-$"
    history = [
        {"role": "system", "content": "SETTING", "message_type": "system_prompt"},
        {"role": "assistant", "content": "look", "action": 'find_file "session.py"',
         "message_type": "action"},
        {"role": "tool", "content": 'Found 1 matches for "session.py" in /owner__repo:\r\n'
         "/owner__repo/src/app/session.py" + footer, "message_type": "observation"},
        {"role": "assistant", "content": "open", "action": 'open "src/app/session.py"',
         "message_type": "action"},
        {"role": "tool", "content": "[File: src/app/session.py (2 lines total)]\r\n1:a\r\n2:b"
         + footer, "message_type": "observation"},
        {"role": "assistant", "content": "fix", "action": "edit 'a' 'c'", "message_type": "action"},
        {"role": "tool", "content": "Text replaced." + footer, "message_type": "observation"},
        {"role": "assistant", "content": "done", "action": "submit", "message_type": "action"},
        {"role": "tool", "content": "\r\ndiff --git a/src/app/session.py b/src/app/session.py\r\n"
         + footer, "message_type": "observation"},
    ]
    path = tmp_path / "demo__repo-1.traj"
    path.write_text(json.dumps({"history": history}), encoding="utf-8")
    (attempt,) = import_trajectories([path], format_name="swe-agent", cases=cases).attempts
    assert spans(attempt) == [(0, "search_hit", "find_file", "src/app/session.py", None, None),
                              (1, "read", "open", "src/app/session.py", 1, 2)]
    assert [(e.file, e.step) for e in attempt.edits or []] == [("src/app/session.py", 2)]
    assert attempt.final is not None and attempt.final.startswith("diff --git")


def test_openhands_output_records_and_pairs(tmp_path: Path, cases: CaseSet) -> None:
    read = {"action": "read", "args": {"path": "/workspace/repo__1.0/src/app/util.py", "start": 0,
                                       "end": -1, "impl_source": "default"}}
    shown = {"observation": "read", "content": "a = 1\nb = 2\n", "extras": {}}
    records = [
        {"instance_id": "demo__repo-1", "history": [[read, shown]],
         "test_result": {"git_patch": "diff --git a/x b/x\n"}},
        {"instance_id": "session-question", "history": [
            {"id": 1, "source": "agent", "action": "run", "args": {"command": "head -n 1 src/app/util.py"}},
            {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "a = 1",
             "extras": {"metadata": {"exit_code": 0, "working_dir": "/workspace/repo__1.0"}}}]},
    ]
    path = tmp_path / "output.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = import_trajectories([path], format_name="openhands", cases=cases)
    first, second = result.attempts
    assert first.case_id == "demo__repo-1" and first.final == "diff --git a/x b/x\n"
    assert spans(first) == [(0, "read", "read", "src/app/util.py", 1, 2)]
    assert second.case_id == "session-question"
    assert spans(second) == [(0, "read", "run", "src/app/util.py", 1, 1)]
    assert first.attempt_id != second.attempt_id


def test_claude_code_grep_listing_files_is_hits_on_files(tmp_path: Path, cases: CaseSet) -> None:
    lines = [
        {"type": "assistant", "cwd": "/r", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t1", "name": "Grep", "input": {"pattern": "x"}}]}},
        {"type": "user", "cwd": "/r", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "Found 2 files\n/r/a.py\n/r/b.py"}]},
         "toolUseResult": {"mode": "files_with_matches", "filenames": ["/r/a.py", "/r/b.py"],
                           "numFiles": 2}},
        {"type": "assistant", "cwd": "/r", "message": {"id": "m2", "content": [
            {"type": "tool_use", "id": "t2", "name": "Grep",
             "input": {"pattern": "x", "path": "/r/a.py", "output_mode": "content", "-n": True}}]}},
        {"type": "user", "cwd": "/r", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "3:x = 1\n4:y = x"}]}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    (attempt,) = import_trajectories([path], format_name="claude-code", cases=cases,
                                     case_id="demo__repo-1").attempts
    # a name in a list first, then lines of one searched file ("3:x = 1", no file name)
    assert spans(attempt) == [(0, "search_hit", "Grep", "a.py", None, None),
                              (0, "search_hit", "Grep", "b.py", None, None),
                              (1, "search_hit", "Grep", "a.py", 3, 4)]


def test_otel_one_trajectory_per_trace(tmp_path: Path, cases: CaseSet) -> None:
    def tool_span(trace: str, case: str, path: str) -> dict[str, object]:
        return {"traceId": trace, "spanId": trace[:4], "name": "execute_tool cat",
                "startTimeUnixNano": "1", "attributes": [
                    {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                    {"key": "gen_ai.tool.name", "value": {"stringValue": "bash"}},
                    {"key": "case_id", "value": {"stringValue": case}},
                    {"key": "gen_ai.tool.call.arguments",
                     "value": {"stringValue": json.dumps({"command": f"cat {path}"})}},
                    {"key": "gen_ai.tool.call.result", "value": {"stringValue": "x\n"}}]}
    requests = [{"resourceSpans": [{"scopeSpans": [{"spans": [
        tool_span("aaaa1111", "demo__repo-1", "a.py")]}]}]},
                {"resourceSpans": [{"scopeSpans": [{"spans": [
                    tool_span("bbbb2222", "session-question", "b.py")]}]}]}]
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in requests), encoding="utf-8")
    result = import_trajectories([path], format_name="otel", cases=cases)
    assert [(a.case_id, a.ranked[0].file) for a in result.attempts] == [
        ("demo__repo-1", "a.py"), ("session-question", "b.py")]


def test_openinference_tool_spans(tmp_path: Path, cases: CaseSet) -> None:
    span = {"traceId": "cccc", "spanId": "1", "name": "read_file", "startTimeUnixNano": "5",
            "attributes": [
                {"key": "openinference.span.kind", "value": {"stringValue": "TOOL"}},
                {"key": "tool.name", "value": {"stringValue": "read_file"}},
                {"key": "input.value", "value": {"stringValue": json.dumps({"path": "src/a.py"})}},
                {"key": "output.value", "value": {"stringValue": "     7\tx = 1\n     8\ty = 2\n"}},
                {"key": "instance_id", "value": {"stringValue": "demo__repo-1"}}]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}),
                    encoding="utf-8")
    (attempt,) = import_trajectories([path], format_name="otel", cases=cases).attempts
    assert spans(attempt) == [(0, "read", "read_file", "src/a.py", 7, 8)]


def test_a_subagent_transcript_is_no_session(tmp_path: Path, cases: CaseSet) -> None:
    folder = tmp_path / "project"
    (folder / "s1" / "subagents").mkdir(parents=True)
    side = {"type": "assistant", "isSidechain": True, "cwd": "/r", "message": {"id": "m", "content": [
        {"type": "tool_use", "id": "t", "name": "Read", "input": {"file_path": "/r/a.py"}}]}}
    (folder / "s1" / "subagents" / "agent-1.jsonl").write_text(json.dumps(side) + "\n",
                                                               encoding="utf-8")
    main = {"type": "user", "cwd": "/r", "message": {"content": "hi"}}
    (folder / "demo__repo-1.jsonl").write_text(json.dumps(main) + "\n", encoding="utf-8")
    result = import_trajectories([folder], format_name="claude-code", cases=cases)
    assert [a.case_id for a in result.attempts] == ["demo__repo-1"]
    skipped = [r for r in result.report.trajectories if r.status == "skipped"]
    assert [r.label for r in skipped] == ["agent-1.jsonl"]
    assert "subagent" in (skipped[0].reason or "")


def test_openhands_sdk_events(tmp_path: Path, cases: CaseSet) -> None:
    root = "/workspace/project"
    events = [
        {"id": "m1", "kind": "MessageEvent", "source": "user",
         "llm_message": {"role": "user", "content": [{"type": "text", "text": "where?"}]}},
        {"id": "a1", "kind": "ActionEvent", "source": "agent", "tool_name": "terminal",
         "tool_call_id": "c1", "llm_response_id": "r1",
         "action": {"kind": "TerminalAction", "command": "grep -rn create_session src"}},
        {"id": "o1", "kind": "ObservationEvent", "source": "environment", "tool_name": "terminal",
         "tool_call_id": "c1", "action_id": "a1", "observation": {
             "kind": "TerminalObservation", "is_error": False,
             "content": [{"type": "text", "text": "src/app/session.py:10:def create_session(user):"}]}},
        {"id": "a2", "kind": "ActionEvent", "source": "agent", "tool_name": "file_editor",
         "tool_call_id": "c2", "llm_response_id": "r2",
         "action": {"kind": "FileEditorAction", "command": "view",
                    "path": f"{root}/src/app/session.py", "view_range": [9, 11]}},
        {"id": "o2", "kind": "ObservationEvent", "source": "environment", "action_id": "a2",
         "tool_call_id": "c2", "observation": {"kind": "FileEditorObservation", "content": [
             {"type": "text", "text": f"Here's the result of running `cat -n` on {root}/src/app/session.py:\n"
              "     9\t\n    10\tdef create_session(user):\n    11\t    token = new()\n"}]}},
        {"id": "a3", "kind": "ActionEvent", "source": "agent", "tool_name": "finish",
         "llm_response_id": "r3", "action": {"kind": "FinishAction", "message": "line 10"}},
    ]
    path = tmp_path / "demo__repo-1.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    (attempt,) = import_trajectories([path], format_name="openhands", cases=cases).attempts
    assert spans(attempt) == [(0, "search_hit", "terminal", "src/app/session.py", 10, 10),
                              (1, "read", "file_editor", "src/app/session.py", 9, 11)]
    assert attempt.final == "line 10"


def test_tool_spans_without_recorded_results_and_named_searches(tmp_path: Path,
                                                               cases: CaseSet) -> None:
    def span(ident: str, start: int, tool: str, args: dict[str, object],
             result: str | None) -> dict[str, object]:
        attributes = [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                      {"key": "gen_ai.tool.name", "value": {"stringValue": tool}},
                      {"key": "case_id", "value": {"stringValue": "demo__repo-1"}},
                      {"key": "gen_ai.tool.call.arguments",
                       "value": {"stringValue": json.dumps(args)}}]
        if result is not None:
            attributes.append({"key": "gen_ai.tool.call.result", "value": {"stringValue": result}})
        return {"traceId": "t", "spanId": ident, "name": f"execute_tool {tool}",
                "startTimeUnixNano": str(start), "attributes": attributes}
    spans_ = [span("1", 1, "read_file", {"path": "src/a.py", "start_line": 5, "end_line": 9}, None),
              span("2", 2, "lookup_references", {"name": "f"}, "src/b.py:3\nsrc/c.py:7:f()")]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans_}]}]}),
                    encoding="utf-8")
    result = import_trajectories([path], format_name="otel", cases=cases)
    assert spans(result.attempts[0]) == [
        (0, "read", "read_file", "src/a.py", 5, 9),
        (1, "search_hit", "lookup_references", "src/b.py", 3, 3),
        (1, "search_hit", "lookup_references", "src/c.py", 7, 7)]
    assert result.report.trajectories[0].notes == [
        "1 call(s): read placed by its arguments (no output recorded)"]


def test_openhands_flat_events_and_agentskills(tmp_path: Path, cases: CaseSet) -> None:
    """The older output.jsonl history: fields on the event itself, no ids, an observation
    following its action, the shell prompt after the output, agentskills in IPython."""
    history = [
        {"content": "fix it", "action": "message"},
        {"command": "cat src/app/util.py", "thought": "look", "action": "run"},
        {"content": "a = 1\r\nb = 2\r\nroot@bcd3959393a1:/workspace # ", "command_id": -1,
         "command": "cat src/app/util.py", "exit_code": 0, "observation": "run"},
        {"code": "open_file('/workspace/src/app/session.py')", "action": "run_ipython"},
        {"content": "[File: /workspace/src/app/session.py (3 lines total)]\n"
                    "(this is the beginning of the file)\n1|x\n2|y\n3|z\n"
                    "(this is the end of the file)\n[Jupyter current working directory: /workspace]",
         "code": "open_file('/workspace/src/app/session.py')", "observation": "run_ipython"},
        {"code": "search_dir('create_session', '/workspace/src')", "action": "run_ipython"},
        {"content": '[Found 1 matches for "create_session" in /workspace/src]\n'
                    "/workspace/src/app/refresh.py (Line 3): create_session()\n"
                    '[End of matches for "create_session" in /workspace/src]',
         "observation": "run_ipython"},
        {"code": "edit_file_by_replace('/workspace/src/app/session.py', to_replace='x', "
                 "new_content='w')", "action": "run_ipython"},
        {"content": "[File updated]", "observation": "run_ipython"},
        {"outputs": {}, "thought": "done", "action": "finish"},
    ]
    path = tmp_path / "output.jsonl"
    path.write_text(json.dumps({"instance_id": "demo__repo-1", "history": history,
                                "git_patch": "diff"}) + "\n", encoding="utf-8")
    (attempt,) = import_trajectories([path], format_name="openhands", cases=cases).attempts
    assert spans(attempt) == [(0, "read", "run", "src/app/util.py", 1, 2),
                              (1, "read", "open_file", "src/app/session.py", 1, 3),
                              (2, "search_hit", "search_dir", "src/app/refresh.py", 3, 3)]
    assert attempt.final == "diff"
    assert [(e.file, e.tool) for e in attempt.edits or []] == [
        ("src/app/session.py", "edit_file_by_replace")]


def test_mini_swe_agent_json_observations(tmp_path: Path, cases: CaseSet) -> None:
    messages = [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "bash", "arguments": json.dumps({"command": "cat a.py"})}}]},
        {"role": "tool", "tool_call_id": "c1",
         "content": json.dumps({"returncode": 0, "output": "x\ny\n"})},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "type": "function",
         "function": {"name": "bash", "arguments": json.dumps({"command": "cat b.py"})}}]},
        {"role": "tool", "tool_call_id": "c2", "content": json.dumps(
            {"returncode": 0, "output_head": "p\nq\n", "output_tail": "z\n", "elided_chars": 9})},
    ]
    path = tmp_path / "demo__repo-1.traj.json"
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    (attempt,) = import_trajectories([path], format_name="mini-swe-agent", cases=cases).attempts
    assert spans(attempt) == [(0, "read", "bash", "a.py", 1, 2), (1, "read", "bash", "b.py", 1, 2)]
