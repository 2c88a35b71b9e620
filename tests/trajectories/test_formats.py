"""Each format's fixture imports to exactly the spans its observations show, in the order
they entered the context, with edits and the final patch apart."""

from __future__ import annotations

import pytest

from codegold.model import CaseSet, Edit
from codegold.trajectories import import_trajectories
from trajkit import FIXTURES, spans

V = "1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a"


def test_swe_agent_windows_searches_editor_views_and_shell_reads(cases: CaseSet) -> None:
    result = import_trajectories([FIXTURES / "swe-agent"], format_name="swe-agent", cases=cases)
    (attempt,) = result.attempts
    assert attempt.case_id == "demo__repo-1"  # from the file name
    assert spans(attempt) == [
        (0, "search_hit", "find_file", "src/app/session.py", None, None),
        (0, "search_hit", "find_file", "src/legacy/session.py", None, None),
        (1, "read", "open", "src/app/session.py", 10, 14),
        # the next window overlaps 13-14: only its new lines count, as a new chunk
        (2, "read", "scroll_down", "src/app/session.py", 15, 17),
        # search_file shows line 12 (already read) and 30
        (3, "search_hit", "search_file", "src/app/session.py", 30, 30),
        (4, "read", "bash", "/usr/lib/python3.11/os.py", 1, 3),
        (5, "read", "str_replace_editor view", "src/app/refresh.py", 1, 6),
        # the edit's window is post-edit text: not context
        (7, "read", "bash", "src/app/session.py", 20, 25),
    ]
    outside = [c.file for c in attempt.ranked if c.outside_repo]
    assert outside == ["/usr/lib/python3.11/os.py"]
    assert attempt.edits == [Edit(file="src/app/session.py", start_line=12, end_line=12, step=6,
                                  tool="edit")]
    assert attempt.final is not None and attempt.final.startswith("diff --git")
    assert all(c.revision == V for c in attempt.ranked)
    assert attempt.ranked[2].chunk_id == "traj:src/app/session.py#L10-14@1"
    assert attempt.ranked[2].excerpt is not None and "def create_session" in attempt.ranked[2].excerpt
    (report,) = result.report.trajectories
    assert report.skipped_calls == {"output of `frobnicate` is not a file read or search": 1}
    assert report.steps == 10 and report.reads == 5 and report.search_hits == 3


def test_mini_swe_agent_shell_commands_by_command_and_output_length(cases: CaseSet) -> None:
    result = import_trajectories([FIXTURES / "mini-swe-agent"], format_name="mini-swe-agent",
                                 cases=cases)
    (attempt,) = result.attempts
    assert spans(attempt) == [
        (0, "search_hit", "bash", "src/app/session.py", 10, 10),
        # a read is never hidden by an earlier search hit on its lines
        (1, "read", "bash", "src/app/session.py", 8, 14),
        (2, "read", "bash", "src/app/refresh.py", 1, 4),
        (3, "read", "bash", "src/app/session.py", 30, 34),
        (6, "read", "bash", "/etc/hostname", 1, 1),
        (7, "read", "bash", "src/app/util.py", 1, 2),
    ]
    assert attempt.edits == [Edit(file="src/app/session.py", step=5, tool="bash")]
    assert attempt.final == "diff --git a/src/app/session.py b/src/app/session.py\n"
    (report,) = result.report.trajectories
    # the submitting command printed the patch: it is the final answer, not context
    assert report.skipped_calls == {"the call reported an error": 1}


def test_openhands_events_matched_by_cause(cases: CaseSet) -> None:
    result = import_trajectories([FIXTURES / "openhands" / "demo__repo-1.json"],
                                 format_name="openhands", cases=cases)
    (attempt,) = result.attempts
    assert spans(attempt) == [
        (0, "search_hit", "run", "src/app/session.py", 10, 10),
        (0, "search_hit", "run", "src/app/session.py", 30, 30),
        (1, "read", "read", "src/app/session.py", 9, 12),
        (3, "search_hit", "mcp:code_search", "src/app/refresh.py", 3, 4),
    ]
    assert attempt.edits == [Edit(file="src/app/session.py", start_line=13, end_line=13, step=2,
                                  tool="edit insert")]
    assert attempt.final == "create_session is in src/app/session.py"
    (report,) = result.report.trajectories
    assert report.skipped_calls == {"unknown tool 'run_ipython'": 1}


def test_claude_code_transcript(cases: CaseSet) -> None:
    result = import_trajectories([FIXTURES / "claude-code" / "5e55.jsonl"],
                                 format_name="claude-code", cases=cases,
                                 case_id="session-question")
    (attempt,) = result.attempts
    assert spans(attempt) == [
        (0, "search_hit", "Grep", "src/app/session.py", 10, 10),
        (1, "read", "Read", "src/app/session.py", 8, 12),
        (1, "search_hit", "Glob", "src/app/refresh.py", None, None),  # same turn as the Read
        (3, "read", "Bash", "src/app/session.py", 30, 32),
        (4, "search_hit", "mcp__codesearch__find_symbol", "src/app/refresh.py", 3, 3),
    ]
    assert attempt.edits == [Edit(file="src/app/session.py", start_line=11, end_line=12, step=2,
                                  tool="Edit")]
    assert attempt.final == "create_session is defined in src/app/session.py at line 10."
    (report,) = result.report.trajectories
    assert any("cut short" in note for note in report.notes)
    assert any("sidechain" in note for note in report.notes)


def test_otel_tool_and_retrieval_spans(cases: CaseSet) -> None:
    result = import_trajectories([FIXTURES / "otel"], format_name="otel", cases=cases)
    (attempt,) = result.attempts
    assert attempt.case_id == "demo__repo-1"  # the codegold.case_id attribute
    assert spans(attempt) == [
        (0, "read", "read_file", "src/app/session.py", 10, 12),
        (1, "search_hit", "grep", "src/app/session.py", 30, 30),
        (1, "search_hit", "retrieve", "src/app/refresh.py", 3, 4),
        (1, "search_hit", "retrieve", "src/app/util.py", 1, 2),
    ]
    assert result.report.trajectories[0].skipped_calls == {"unknown tool 'deploy'": 1}


def test_mapped_json_through_field_paths(cases: CaseSet) -> None:
    mapping = {"events": "steps", "case": "task.id", "tool": "name", "arguments": "args",
               "output": "result", "command": "cmd", "final": "answer"}
    result = import_trajectories([FIXTURES / "mapped"], format_name="mapped", cases=cases,
                                 mapping=mapping)
    (attempt,) = result.attempts
    assert spans(attempt) == [(0, "read", "open", "src/app/session.py", 10, 12),
                              (1, "read", "bash", "src/app/util.py", 1, 2)]
    assert attempt.edits == [Edit(file="src/app/util.py", step=2, tool="write_file")]
    assert attempt.final == "It is in session.py"


def test_import_is_deterministic(cases: CaseSet) -> None:
    first = import_trajectories([FIXTURES / "swe-agent"], format_name="swe-agent", cases=cases)
    second = import_trajectories([FIXTURES / "swe-agent"], format_name="swe-agent", cases=cases)
    assert first.attempts == second.attempts


@pytest.mark.parametrize("name", ["swe-agent", "mini-swe-agent", "openhands", "otel"])
def test_every_chunk_id_is_unique_and_sized(cases: CaseSet, name: str) -> None:
    (attempt,) = import_trajectories([FIXTURES / name], format_name=name, cases=cases).attempts
    ids = [c.chunk_id for c in attempt.ranked]
    assert len(ids) == len(set(ids))
    assert all(c.tokens is not None and c.step is not None and c.kind for c in attempt.ranked)


@pytest.mark.parametrize(("last", "ending", "skipped"), [
    (b'{"type":"assistant","x":"ab', b"", True),       # cut short while being written
    (b'{"type":"assistant","x":"ab', b"\n", True),     # cut short, newline after it
    (b'{"type":"assistant","x":"\xff\xfe"}', b"\n", False),  # whole, but not UTF-8
    (b'{"type":"assistant"}}', b"\n", False),          # whole, but not JSON
])
def test_only_a_last_line_cut_short_is_skipped(last: bytes, ending: bytes, skipped: bool) -> None:
    """A trajectory still being written ends mid-line: that line is skipped and noted. A
    whole last line that is not JSON (or not UTF-8) is an error naming its line, never
    passed off as a truncated file."""
    from codegold.errors import SchemaError
    from codegold.trajectories.formats._common import decode_lines

    raw = b'{"type":"user"}\n' + last + ending
    if skipped:
        values, notes = decode_lines(raw, "t.jsonl")
        assert len(values) == 1 and notes == ["line 2 is cut short (a truncated file?) and was skipped"]
    else:
        with pytest.raises(SchemaError) as caught:
            decode_lines(raw, "t.jsonl")
        assert caught.value.line == 2
