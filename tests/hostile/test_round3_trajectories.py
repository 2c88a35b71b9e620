"""Hostile trajectories, third round: a key shown in two reads, imports that grow
quadratically, numbers that size memory, an output that already holds attempts, folders
nested deep, a broken line in pretty-printed JSON, failed edits, a file of another
format, files the agent made itself and which steps were passed over.

Each runs ``codegold import trajectories`` in a child process (bounded time and memory);
a "linear, not quadratic" case runs at two sizes, the larger one far past what a
quadratic reader finishes within the timeout."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from hostilekit import assert_clean_error, assert_no_traceback, run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "trajectories" / "fixtures"
CASES = FIXTURES / "cases.yaml"
TIMEOUT = 60


def _import(*args: str | Path) -> list[str | Path]:
    return ["import", "trajectories", *args, "--cases", CASES]


def _swe(folder: Path, steps: list[tuple[str, str]], name: str = "demo__repo-1") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.traj"
    path.write_text(json.dumps({"trajectory": [
        {"action": a, "observation": o, "state": {"working_dir": "/testbed"}} for a, o in steps]}),
        encoding="utf-8")
    return path


def _attempts(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- a private key shown in two reads --------------------------------------------------

def _key_lines() -> list[str]:
    body = base64.b64encode(b"".join(hashlib.sha256(bytes([n])).digest()
                                     for n in range(40))).decode()
    return (["-----BEGIN RSA PRIVATE KEY-----"]
            + [body[i:i + 64] for i in range(0, len(body), 64)]
            + ["-----END RSA PRIVATE KEY-----"])


@pytest.mark.parametrize("second", ["cat server.key", "sed -n '4,30p' server.key"])
def test_a_private_key_read_in_two_parts_never_reaches_an_output(tmp_path: Path,
                                                                 second: str) -> None:
    """``head -n 3`` shows the key's first lines; a later ``cat`` (or ``sed -n 4,30p``)
    shows the rest: the part no earlier call showed holds the body without its BEGIN
    line, and must still be redacted."""
    key = _key_lines()
    tail = key if second.startswith("cat") else key[3:30]
    traj = _swe(tmp_path / "t", [("head -n 3 server.key", "\n".join(key[:3]) + "\n"),
                                 (second, "\n".join(tail) + "\n")])
    out, report = tmp_path / "a.jsonl", tmp_path / "report.json"
    proc = run_cli(*_import(traj, "--format", "swe-agent", "-o", out, "--report", report),
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    written = out.read_text(encoding="utf-8") + report.read_text(encoding="utf-8")
    for line in key[1:-1]:
        assert line[:40] not in written, line
    (attempt,) = _attempts(out)
    assert [(c["start_line"], c["end_line"]) for c in attempt["ranked"]][:2] == [
        (1, 3), (4, len(key) if second.startswith("cat") else 29)]
    assert set(attempt["ranked"][1]["excerpt"]) <= set("\n<SECRET:private_key>")


# --- linear, not quadratic ---------------------------------------------------------------

def _openhands(folder: Path, events: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "demo__repo-1.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    return path


def _one_line_reads(folder: Path, count: int) -> Path:
    """``count`` reads of one line each of one file, every other line (no two merge)."""
    events: list[dict[str, Any]] = []
    for n in range(count):
        line = 2 * n + 1
        events += [{"id": 2 * n, "source": "agent", "action": "read",
                    "args": {"path": "/workspace/repo/a.py", "impl_source": "oh_aci",
                             "view_range": [line, line]}},
                   {"id": 2 * n + 1, "cause": 2 * n, "observation": "read",
                    "content": f"Here's the result of running `cat -n` on /workspace/repo/a.py:"
                               f"\n{line:6d}\tx = {n}\n"}]
    return _openhands(folder, events)


def _answered_in_reverse(folder: Path, count: int) -> Path:
    """One mini-swe-agent message of ``count`` actions, answered last first (submissions,
    so that nothing but the matching costs time)."""
    folder.mkdir(parents=True, exist_ok=True)
    actions = [{"command": f"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT {n}",
                "tool_call_id": f"call{n}"} for n in range(count)]
    messages: list[dict[str, Any]] = [{"role": "assistant", "content": "",
                                       "extra": {"actions": actions}}]
    messages += [{"role": "tool", "tool_call_id": f"call{n}", "content": "x\n"}
                 for n in reversed(range(count))]
    path = folder / "demo__repo-1.traj.json"
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    return path


def _trailers(folder: Path, count: int) -> Path:
    """A ``run`` output ending in ``count`` exit-code trailers."""
    return _openhands(folder, [
        {"id": 1, "source": "agent", "action": "run", "args": {"command": "cat a.py"}},
        {"id": 2, "cause": 1, "observation": "run",
         "content": "x = 1\n" + "[The command completed with exit code 0.]\n" * count}])


def _quote_cells(folder: Path, count: int) -> Path:
    """``count`` run_ipython cells of 4,000 quotes that never close the call."""
    events: list[dict[str, Any]] = []
    for n in range(count):
        events += [{"id": 2 * n, "source": "agent", "action": "run_ipython",
                    "args": {"code": "open_file('" + "''" * 2000 + "x"}},
                   {"id": 2 * n + 1, "cause": 2 * n, "observation": "run_ipython",
                    "content": "ok"}]
    return _openhands(folder, events)


GROWING = {
    # 20,000 one-line reads of one file took 83 s: every read re-sorted every span
    "one-line-reads": (_one_line_reads, "openhands", (2_500, 20_000)),
    # 40,000 actions answered in reverse took 34 s: each answer scanned the pending list
    "answers-in-reverse": (_answered_in_reverse, "mini-swe-agent", (10_000, 80_000)),
    # 100,000 trailers took 36 s: each was taken off by rebuilding the output
    "run-trailers": (_trailers, "openhands", (25_000, 200_000)),
    # a backtracking pattern read cells of quotes at about 15 s a megabyte
    "ipython-quotes": (_quote_cells, "openhands", (250, 2_000)),
}


@pytest.mark.parametrize("name", sorted(GROWING))
def test_imports_grow_linearly(tmp_path: Path, name: str) -> None:
    """Each input at two sizes, eight times apart: the larger finishes within the timeout
    (a quadratic reader takes minutes on it)."""
    make, format_name, sizes = GROWING[name]
    for size in sizes:
        traj = make(tmp_path / str(size), size)
        out = tmp_path / f"{size}.jsonl"
        proc = run_cli(*_import(traj, "--format", format_name, "-o", out, "-q"),
                       timeout=TIMEOUT)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert len(_attempts(out)) == 1


# --- numbers that would size memory ------------------------------------------------------

def _tool_span(ident: str, tool: str, args: dict[str, Any], result: str | None) -> dict[str, Any]:
    attributes = [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                  {"key": "gen_ai.tool.name", "value": {"stringValue": tool}},
                  {"key": "case_id", "value": {"stringValue": "demo__repo-1"}},
                  {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps(args)}}]
    if result is not None:
        attributes.append({"key": "gen_ai.tool.call.result", "value": {"stringValue": result}})
    return {"traceId": "t", "spanId": ident, "name": f"execute_tool {tool}",
            "startTimeUnixNano": ident, "attributes": attributes}


def test_spans_from_numbers_are_bounded_and_cut_at_the_file_end(tmp_path: Path) -> None:
    """An OTel read with ``end_line: 200000000`` and no result, search results ending at
    line 1e9 and 1e30: imported in bounded memory, no traceback; a span of a file whose
    length an earlier view showed ends at the file's end."""
    window = "[File: /testbed/short.py (50 lines total)]\n1:a\n2:b\n(48 more lines below)\n"
    hits = json.dumps({"results": [{"path": "big.py", "start_line": 5, "end_line": 1e9},
                                   {"path": "huge.py", "start_line": 7, "end_line": 1e30},
                                   {"path": "short.py", "start_line": 40, "end_line": 10**8}]})
    spans = [_tool_span("1", "read_file", {"path": "src/a.py", "start_line": 1,
                                           "end_line": 200_000_000}, None),
             _tool_span("2", "read_file", {"path": "/testbed/short.py"}, window),
             _tool_span("3", "search_code", {"query": "x"}, hits),
             _tool_span("4", "read_file", {"path": "short.py", "start_line": 10,
                                           "end_line": 200_000_000}, None)]
    traj = tmp_path / "t.json"
    traj.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}),
                    encoding="utf-8")
    out, report = tmp_path / "a.jsonl", tmp_path / "r.json"
    proc = run_cli(*_import(traj, "--format", "otel", "-o", out, "--report", report),
                   timeout=TIMEOUT, memory=1024**3)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (attempt,) = _attempts(out)
    got = [(c["file"], c["start_line"], c["end_line"]) for c in attempt["ranked"]]
    # 1e9 and 1e30 are no line numbers: a hit on the line the result starts at
    assert got == [("src/a.py", 1, 20_000), ("short.py", 1, 2), ("big.py", 5, 5),
                   ("huge.py", 7, 7), ("short.py", 40, 50), ("short.py", 10, 50)]
    (summary,) = json.loads(report.read_text(encoding="utf-8"))["trajectories"]
    assert summary["lines"] < 50_000


# --- an output that already holds attempts -----------------------------------------------

def test_an_output_holding_attempts_is_refused_and_nothing_imported_is_an_error(
        tmp_path: Path) -> None:
    """As ``run`` refuses an ``-o`` that holds attempts unless ``--resume``, the import
    refuses one unless ``--replace``; an import of nothing (every trajectory skipped)
    writes nothing and says why."""
    out = tmp_path / "attempts.jsonl"
    kept = b'{"attempt_id": "run-1", "case_id": "demo__repo-1", "ranked": [], "format": 1}\n'
    out.write_bytes(kept)
    stray = _swe(tmp_path / "stray", [("cat a.py", "x\n")], name="nobody__nothing-1")
    proc = run_cli(*_import(stray, "--format", "swe-agent", "-o", out, "--skip-unknown"),
                   timeout=TIMEOUT)
    assert_clean_error(proc, contains=["already holds attempts", "--replace"])
    assert out.read_bytes() == kept
    good = FIXTURES / "swe-agent" / "demo__repo-1.traj"
    proc = run_cli(*_import(good, "--format", "swe-agent", "-o", out), timeout=TIMEOUT)
    assert_clean_error(proc, contains="--replace")
    assert out.read_bytes() == kept
    proc = run_cli(*_import(stray, "--format", "swe-agent", "-o", out, "--skip-unknown",
                            "--replace"), timeout=TIMEOUT)
    assert_clean_error(proc, contains=["no trajectory was imported", "nobody__nothing-1"])
    assert out.read_bytes() == kept
    fresh = tmp_path / "fresh.jsonl"
    proc = run_cli(*_import(stray, "--format", "swe-agent", "-o", fresh, "--skip-unknown"),
                   timeout=TIMEOUT)
    assert_clean_error(proc, contains="no trajectory was imported")
    assert not fresh.exists()
    proc = run_cli(*_import(good, "--format", "swe-agent", "-o", out, "--replace"),
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [a["case_id"] for a in _attempts(out)] == ["demo__repo-1"]


# --- deep folders, a broken line in pretty-printed JSON ----------------------------------

def _remove_chain(top: Path, bottom: Path) -> None:
    """Remove a chain of single folders from ``bottom`` up to ``top``, files included."""
    for item in bottom.iterdir():
        item.unlink()
    while bottom != top.parent:
        bottom.rmdir()
        bottom = bottom.parent


def test_a_folder_nested_1200_deep_is_one_error_line(tmp_path: Path) -> None:
    deep = tmp_path / "runs"
    folder = deep
    folder.mkdir()
    for _ in range(1200):  # one level at a time: mkdir(parents=True) recurses
        folder = folder / "d"
        folder.mkdir()
    (folder / "demo__repo-1.traj").write_bytes((FIXTURES / "swe-agent" / "demo__repo-1.traj")
                                               .read_bytes())
    out = tmp_path / "a.jsonl"
    try:
        proc = run_cli(*_import(deep, "--format", "swe-agent", "-o", out), timeout=TIMEOUT)
    finally:
        _remove_chain(deep, folder)  # pytest's own clean-up recurses
    assert_clean_error(proc, contains="nested deeper than")
    assert not out.exists()
    shallow = tmp_path / "shallow" / "a" / "b"
    shallow.mkdir(parents=True)
    (shallow / "demo__repo-1.traj").write_bytes((FIXTURES / "swe-agent" / "demo__repo-1.traj")
                                                .read_bytes())
    proc = run_cli(*_import(tmp_path / "shallow", "--format", "swe-agent", "-o", out),
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize(("text", "where", "cause"), [
    ('{\n "trajectory": [\n  {"action": "cat a.py", "observation": "x"},\n ],\n "info": {}\n}\n',
     ":3:", "trailing comma"),
    ('{\n "trajectory": [\n  {"action": "cat a.py",\n   "observation": "x" "y"}\n ]\n}\n',
     ":4:", "malformed"),
    ('{\n "trajectory": [\n  {"action": "cat a.py",\n', ":3:", "truncated"),
])
def test_a_broken_pretty_printed_file_names_its_line_and_cause(tmp_path: Path, text: str,
                                                                where: str, cause: str) -> None:
    traj = tmp_path / "demo__repo-1.traj"
    traj.write_text(text, encoding="utf-8")
    line = assert_clean_error(run_cli(*_import(traj, "--format", "swe-agent", "-o",
                                               tmp_path / "a.jsonl"), timeout=TIMEOUT),
                              contains=[f"demo__repo-1.traj{where}", cause])
    if cause != "truncated":
        assert "truncated" not in line


# --- which steps were passed over ---------------------------------------------------------

def test_the_summary_says_at_which_steps_calls_were_passed_over(tmp_path: Path) -> None:
    """``passed over 3: …`` read like a step number; the line names the steps."""
    refused = ("ERROR:\nNo replacement was performed, old_str `x` did not appear verbatim in "
               "/workspace/repo/a.py.")
    events: list[dict[str, Any]] = []
    for n, content in enumerate([refused, "ok", refused, refused]):
        events += [{"id": 2 * n, "source": "agent", "action": "edit",
                    "args": {"path": "/workspace/repo/a.py", "command": "str_replace"}},
                   {"id": 2 * n + 1, "cause": 2 * n, "observation": "edit", "content": content}]
    traj = _openhands(tmp_path / "oh", events)
    out, report = tmp_path / "a.jsonl", tmp_path / "r.json"
    proc = run_cli(*_import(traj, "--format", "openhands", "-o", out, "--report", report),
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert ("passed over 3 call(s) at steps 0, 2, 3: failed edit: No replacement was "
            "performed") in proc.stderr
    (summary,) = json.loads(report.read_text(encoding="utf-8"))["trajectories"]
    assert summary["skipped_steps"] == {"failed edit: No replacement was performed": [0, 2, 3]}
    assert summary["edits"] == 1


# --- a file of another format --------------------------------------------------------------

def test_an_openhands_output_jsonl_read_as_mini_swe_agent_is_refused(tmp_path: Path) -> None:
    """It wrote an empty attempt and exit 0: refused, naming the format it looks like."""
    events = json.loads((FIXTURES / "openhands" / "demo__repo-1.json").read_text("utf-8"))
    traj = tmp_path / "output.jsonl"
    traj.write_text("".join(json.dumps({"instance_id": case, "history": events,
                                        "test_result": {"git_patch": ""}}) + "\n"
                            for case in ("demo__repo-1", "session-question")), encoding="utf-8")
    out = tmp_path / "a.jsonl"
    proc = run_cli(*_import(traj, "--format", "mini-swe-agent", "-o", out), timeout=TIMEOUT)
    assert_clean_error(proc, contains=["no mini-swe-agent trajectory", "--format openhands"])
    assert not out.exists()
    proc = run_cli(*_import(traj, "--format", "openhands", "-o", out), timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
