"""Hostile trajectories, in process: each is refused with a named error or imported with
what could not be read passed over and reported, never a traceback or a wrong span."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegold.errors import InputError, SchemaError
from codegold.model import CaseSet
from codegold.trajectories import import_trajectories
from codegold.trajectories.ledger import MAX_CHUNKS
from trajkit import FIXTURES, spans


def swe(tmp_path: Path, steps: list[tuple[str, Any]], name: str = "demo__repo-1") -> Path:
    doc = {"trajectory": [{"action": a, "observation": o, "state": {"working_dir": "/testbed"}}
                          for a, o in steps], "info": {"submission": ""}}
    path = tmp_path / f"{name}.traj"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def run(path: Path, cases: CaseSet, **options: Any) -> Any:
    return import_trajectories([path], format_name=options.pop("format_name", "swe-agent"),
                               cases=cases, **options)


def test_truncated_file_is_a_schema_error(tmp_path: Path, cases: CaseSet) -> None:
    path = tmp_path / "demo__repo-1.traj"
    path.write_bytes((FIXTURES / "swe-agent" / "demo__repo-1.traj").read_bytes()[:700])
    with pytest.raises(SchemaError, match="not valid JSON"):
        run(path, cases)


def test_deep_nesting_is_refused(tmp_path: Path, cases: CaseSet) -> None:
    path = tmp_path / "demo__repo-1.traj"
    path.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    with pytest.raises(SchemaError, match="nested deeper"):
        run(path, cases)


def test_nul_bytes_in_the_file_are_invalid_json(tmp_path: Path, cases: CaseSet) -> None:
    path = tmp_path / "demo__repo-1.traj"
    path.write_bytes(b'{"trajectory": [\x00]}')
    with pytest.raises(SchemaError):
        run(path, cases)


def test_binary_output_shows_nothing(tmp_path: Path, cases: CaseSet) -> None:
    path = swe(tmp_path, [("cat logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00"),
                          ("cat a.py", "ok\n")])
    result = run(path, cases)
    assert spans(result.attempts[0]) == [(1, "read", "bash", "a.py", 1, 1)]
    assert result.report.trajectories[0].skipped_calls == {"binary output": 1}


def test_megabyte_observation_is_clipped_not_misplaced(tmp_path: Path, cases: CaseSet) -> None:
    big = "x" * 100 + "\n"
    path = swe(tmp_path, [("cat huge.py", big * 30_000),
                          ("cat -n huge.py", "".join(f"{n:6}\t{'y' * 60}\n"
                                                     for n in range(1, 30_001)))])
    result = run(path, cases)
    first, second = result.attempts[0].ranked
    # both are read from their first line as far as codegold reads (a million characters):
    # 101 characters a line for the first, 68 for the second (a new chunk for new lines)
    assert (first.step, first.start_line, first.end_line) == (0, 1, 1_000_000 // 101 + 1)
    assert (second.step, second.start_line) == (1, 1_000_000 // 101 + 2)
    assert second.end_line == 1_000_000 // 68 + 1


def test_a_framework_cut_reads_only_what_came_before_it(tmp_path: Path, cases: CaseSet) -> None:
    cut = "a\nb\nc\n[... Observation truncated due to length ...]\nx\ny\n"
    clipped = "     1\ta\n     2\tb<response clipped><NOTE>Too long.</NOTE>\n     9\tz\n"
    result = run(swe(tmp_path, [("cat a.py", cut), ("cat -n b.py", clipped)]), cases)
    assert spans(result.attempts[0]) == [(0, "read", "bash", "a.py", 1, 3),
                                         (1, "read", "bash", "b.py", 1, 2)]


def test_chunk_count_is_capped_and_reported(tmp_path: Path, cases: CaseSet) -> None:
    hits = "".join(f"src/f{n}.py:1:x\n" for n in range(MAX_CHUNKS + 50))
    result = run(swe(tmp_path, [("grep -rn x src", hits)]), cases)
    assert len(result.attempts[0].ranked) == MAX_CHUNKS
    assert result.report.trajectories[0].dropped_chunks == 50


def test_paths_outside_the_repository_are_kept_and_flagged(tmp_path: Path, cases: CaseSet) -> None:
    path = swe(tmp_path, [("cat ../../etc/passwd", "root:x:0:0\n"),
                          ("cat /opt/lib/site.py", "import os\n"),
                          ("cat /testbed/../testbed/src/a.py", "a\n"),
                          ("cat /workspace/other/src/b.py", "b\n")])
    ranked = run(path, cases).attempts[0].ranked
    assert [(c.file, c.outside_repo) for c in ranked] == [
        ("/etc/passwd", True), ("/opt/lib/site.py", True), ("src/a.py", False),
        ("src/b.py", False)]


def test_unknown_tools_are_reported(tmp_path: Path, cases: CaseSet) -> None:
    line = {"type": "assistant", "cwd": "/r", "message": {"id": "m", "content": [
        {"type": "tool_use", "id": "t1", "name": "Frobnicate", "input": {"level": 3}}]}}
    answer = {"type": "user", "cwd": "/r", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "done"}]}}
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(line) + "\n" + json.dumps(answer) + "\n", encoding="utf-8")
    result = run(path, cases, format_name="claude-code", case_id="session-question")
    assert result.attempts[0].ranked == []
    assert result.report.trajectories[0].skipped_calls == {"unknown tool 'Frobnicate'": 1}


def test_a_case_that_does_not_exist_stops_the_import(tmp_path: Path, cases: CaseSet) -> None:
    path = swe(tmp_path, [("cat a.py", "a\n")], name="nobody__nothing-9")
    with pytest.raises(InputError, match="nobody__nothing-9"):
        run(path, cases)
    result = run(path, cases, unknown_cases="skip")
    assert result.attempts == []
    (report,) = result.report.trajectories
    assert report.status == "skipped" and "not in" in (report.reason or "")


def test_case_option_names_one_trajectory_only(tmp_path: Path, cases: CaseSet) -> None:
    other = swe(tmp_path, [("cat a.py", "a\n")], name="second")
    with pytest.raises(InputError, match="one trajectory"):
        import_trajectories([FIXTURES / "swe-agent", other], format_name="swe-agent",
                            cases=cases, case_id="demo__repo-1")
    with pytest.raises(InputError, match="not in"):
        import_trajectories([FIXTURES / "swe-agent"], format_name="swe-agent", cases=cases,
                            case_id="nope")


@pytest.mark.parametrize("data", [b"", b"{}", b"[1, 2]", b'{"trajectory": "x"}', b"null"])
def test_wrong_shapes_are_named(tmp_path: Path, cases: CaseSet, data: bytes) -> None:
    path = tmp_path / "demo__repo-1.traj"
    path.write_bytes(data)
    with pytest.raises(InputError):
        run(path, cases)


def test_odd_values_inside_steps_are_passed_over(tmp_path: Path, cases: CaseSet) -> None:
    path = tmp_path / "demo__repo-1.traj"
    path.write_text(json.dumps({"trajectory": [
        {"action": 5, "observation": "x"}, {"action": "open a.py", "observation": None},
        {"action": "cat a.py", "observation": {"not": "text"}}, "junk",
        {"action": "open a.py", "observation": "[File: a.py (2 lines total)]\n1:x\n2:y\n",
         "state": "{not json"}]}), encoding="utf-8")
    result = run(path, cases)
    assert spans(result.attempts[0]) == [(4, "read", "open", "a.py", 1, 2)]


def test_a_middle_line_broken_in_json_lines_is_an_error(tmp_path: Path, cases: CaseSet) -> None:
    path = tmp_path / "s.jsonl"
    good = json.dumps({"type": "user", "message": {"content": "hi"}})
    path.write_text(f"{good}\n{{broken\n{good}\n", encoding="utf-8")
    with pytest.raises(SchemaError, match=r":2"):
        run(path, cases, format_name="claude-code", case_id="session-question")


def test_mapping_fields_are_checked(cases: CaseSet) -> None:
    with pytest.raises(InputError, match="does not apply"):
        import_trajectories([FIXTURES / "swe-agent"], format_name="swe-agent", cases=cases,
                            mapping={"tool": "name"})
    with pytest.raises(InputError, match="needs 'map'"):
        import_trajectories([FIXTURES / "mapped"], format_name="mapped", cases=cases,
                            mapping={"case": "task.id"})


def test_resolve_needs_an_index(cases: CaseSet) -> None:
    with pytest.raises(InputError, match="give 'index'"):
        import_trajectories([FIXTURES / "swe-agent"], format_name="swe-agent", cases=cases,
                            resolve=True)


def test_an_empty_folder_is_named(tmp_path: Path, cases: CaseSet) -> None:
    with pytest.raises(InputError, match="no trajectory files"):
        run(tmp_path, cases)


def test_the_same_file_twice_gets_two_attempt_ids(tmp_path: Path, cases: CaseSet) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "demo__repo-1.traj").write_bytes(
            (FIXTURES / "swe-agent" / "demo__repo-1.traj").read_bytes())
    attempts = run(tmp_path, cases).attempts
    assert len({a.attempt_id for a in attempts}) == 2


def test_a_file_shown_whole_places_a_later_tail(tmp_path: Path, cases: CaseSet) -> None:
    whole = "".join(f"l{n}\n" for n in range(1, 21))
    path = swe(tmp_path, [("tail -n 3 a.py", "l18\nl19\nl20\n"), ("cat a.py", whole),
                          ("tail -n 3 b.py", "x\n"), ("cat b.py", "x\n"),
                          ("sed -i 's/x/y/' b.py", ""), ("tail -n 2 a.py", "l19\nl20\n"),
                          ("tail -n 1 b.py", "y\n")])
    result = run(path, cases)
    # the first tail comes before the length is known; the one after the cat is placed
    # (and adds nothing new: cat showed lines 1-20)
    assert spans(result.attempts[0]) == [(1, "read", "bash", "a.py", 1, 20),
                                         (3, "read", "bash", "b.py", 1, 1)]
    # b.py's length is forgotten once it is edited
    assert result.report.trajectories[0].skipped_calls == {
        "tail -n N of a file whose length the trajectory never showed": 3}


HUGE = "9" * 5000  # past Python's 4,300-digit limit on int(str)
NUMBER_COMMANDS = ["sed -n '{n},{n}p' a.py", "sed -n '1,+{n}p' a.py", "head -n {n} a.py",
                   "head -{n} a.py", "tail -n +{n} a.py", "tail -n {n} a.py",
                   "awk 'NR>={n} && NR<={n}' a.py", "awk 'NR=={n}' a.py", "edit {n}:{n}",
                   "insert {n}", "sed -i '{n}d' a.py", "cat a.py | sed -n {n},{n}p",
                   "grep -n x a.py", "grep -rn x .", "search_file x a.py", "search_dir x",
                   "str_replace_editor view /testbed/a.py --view_range {n} {n}", "open a.py {n}",
                   "patch -p1 < fix.diff"]
NUMBER_OUTPUT = ("[File: /testbed/a.py ({n} lines total)]\n{n}:x\na.py:{n}:x\na.py:{n}\n"
                 "Found 1 matches for \"x\" in /testbed/a.py:\nLine {n}:x\n"
                 "Found 1 matches for \"x\" in /testbed:\n/testbed/a.py:{n}:x\n"
                 "--- a/a.py\n+++ b/a.py\n@@ -{n},{n} +{n},{n} @@\n-x\n+y\n")


@pytest.mark.parametrize("number", [HUGE, "²", "1²"])
def test_numbers_no_int_can_hold_are_passed_over(tmp_path: Path, cases: CaseSet,
                                                 number: str) -> None:
    """A line number of 5,000 digits, or a superscript that ``str.isdigit`` takes, in a
    command or in what it printed: no ValueError, and no span claims that line."""
    output = NUMBER_OUTPUT.format(n=number)
    steps = [(command.format(n=number), output) for command in NUMBER_COMMANDS]
    result = run(swe(tmp_path, steps), cases)
    lines = [n for c in result.attempts[0].ranked for n in (c.start_line, c.end_line)
             if n is not None]
    assert all(n < 10**12 for n in lines), lines


def test_numbers_in_json_fields_that_int_cannot_read(tmp_path: Path, cases: CaseSet) -> None:
    path = tmp_path / "s.jsonl"
    rows = [{"type": "assistant", "message": {"content": [
                {"type": "tool_use", "id": "t1", "name": "Read",
                 "input": {"file_path": "/repo/a.py", "offset": HUGE, "limit": "²"}}]}},
            {"type": "user", "toolUseResult": {"file": {"filePath": "/repo/a.py",
                                                         "content": "x\n", "startLine": "²",
                                                         "numLines": HUGE, "totalLines": "²"}},
             "message": {"content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "     1\u2192x\n"}]}},
            {"type": "assistant", "message": {"content": [
                {"type": "tool_use", "id": "t2", "name": "mcp__search__code_search",
                 "input": {"query": "x"}}]}},
            {"type": "user", "message": {"content": [
                {"type": "tool_result", "tool_use_id": "t2",
                 "content": json.dumps([{"id": "a.py:" + HUGE}, {"path": "b.py",
                                         "start_line": HUGE, "end_line": "²"}])}]}}]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    result = run(path, cases, format_name="claude-code", case_id="session-question")
    assert [c.file for c in result.attempts[0].ranked] == ["a.py", "b.py"]


def _otel(spans: list[Any], resource: Any = None) -> bytes:
    scope: dict[str, Any] = {"spans": spans}
    block: dict[str, Any] = {"scopeSpans": [scope]}
    if resource is not None:
        block = resource
    return json.dumps({"resourceSpans": [block]}).encode()


def _span(**attributes: Any) -> dict[str, Any]:
    return {"traceId": "t", "spanId": "s", "name": "execute_tool",
            "startTimeUnixNano": attributes.pop("start", "1"),
            "attributes": [{"key": k, "value": v} for k, v in attributes.items()]}


@pytest.mark.parametrize("data", [
    _otel([], {"scopeSpans": 5}), _otel([], {"scopeSpans": [{"spans": True}]}),
    _otel([_span(**{"gen_ai.operation.name": {"arrayValue": {"values": []}}})]),
    _otel([_span(**{"gen_ai.operation.name": {"kvlistValue": {"values": []}}})]),
    _otel([_span(**{"case_id": {"arrayValue": {"values": [{"stringValue": "x"}]}}})]),
    _otel([_span(start="²")]), _otel([_span(start=HUGE)]),
    _otel([_span(**{"gen_ai.tool.name": {"stringValue": "read"},
                    "gen_ai.tool.call.arguments": {"stringValue": '{"path": "a.py"}'},
                    "count": {"intValue": HUGE}, "other": {"intValue": "²"}})]),
], ids=["scope-spans-a-number", "spans-a-boolean", "operation-a-list", "operation-a-map",
        "case-a-list", "start-superscript", "start-huge", "int-values"])
def test_otel_values_of_the_wrong_type(tmp_path: Path, cases: CaseSet, data: bytes) -> None:
    """Every OTLP field of the wrong JSON type is passed over or named, never a TypeError."""
    path = tmp_path / "traces.jsonl"
    path.write_bytes(data)
    try:
        run(path, cases, format_name="otel", case_id="session-question")
    except SchemaError as err:
        assert "resourceSpans" in str(err)


@pytest.mark.parametrize("ident", [[1], {"a": 1}])
def test_openhands_ids_of_the_wrong_type(tmp_path: Path, cases: CaseSet, ident: Any) -> None:
    """An event id or an observation's cause that is a list or an object (unhashable)."""
    events = [{"id": ident, "action": "run", "source": "agent", "args": {"command": "cat a.py"}},
              {"id": 2, "observation": "run", "cause": ident, "content": "x = 1\n"},
              {"id": 3, "action": "run", "source": "agent", "args": {"command": "cat b.py"}},
              {"id": 4, "observation": "run", "cause": 3, "content": "y = 2\n"}]
    path = tmp_path / "demo__repo-1.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    result = run(path, cases, format_name="openhands")
    assert "b.py" in [c.file for c in result.attempts[0].ranked]
