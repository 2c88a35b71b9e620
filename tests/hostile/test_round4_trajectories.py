"""Hostile trajectories, fourth round: commands that failed but printed something (read as
the file before), two sed scripts, a head header, a search whose first line is a
complaint, ``rg --json`` (cut inside a record too), the home directory, colours, lone
surrogates and bytes that are not UTF-8, and JSON nested deep inside a string.

Each runs ``codegold import trajectories`` in a child process (bounded time and memory)
and checks what the attempt holds: no file counted as read that was not, no line placed
where it was not shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hostilekit import assert_clean_error, assert_no_traceback, import_swe_steps, run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "trajectories" / "fixtures"
CASES = FIXTURES / "cases.yaml"
TIMEOUT = 60
BODY = "".join(f"line {n}\n" for n in range(1, 4))


def _spans(attempt: dict[str, Any]) -> list[tuple[str, int | None, int | None, str]]:
    return [(c["file"], c.get("start_line"), c.get("end_line"), c["kind"])
            for c in attempt.get("ranked", [])]


def _one(tmp_path: Path, steps: list[tuple[str, str]]) -> tuple[str, dict[str, Any]]:
    written, attempts = import_swe_steps(tmp_path, steps, CASES, timeout=TIMEOUT)
    (attempt,) = attempts
    return written, attempt


# --- a command that failed printed its complaint, not the file ----------------------------

@pytest.mark.parametrize(("command", "output"), [
    # git's complaint was read as line 1 of the file the agent asked for
    ("git show HEAD~3:src/app/session.py", "fatal: invalid object name 'HEAD~3'.\n"),
    ("git show v9:src/app/session.py", "fatal: path 'src/app/session.py' does not exist in 'v9'\n"),
    # the cd failed, so the cat never ran: the shell's complaint is all there is
    ("cd src/app && cat session.py", "bash: cd: src/app: No such file or directory\n"),
    ("cd src/app && cat session.py", "bash: line 1: cd: src/app: No such file or directory\n"),
    ("cd src/app && head -n 5 session.py", "/bin/sh: 1: cd: can't cd to src/app\n"),
    ("cd src/app && cat session.py", "cd: no such file or directory: src/app\n"),
    # a program named by its path names itself so in its complaint
    ("/bin/cat src/app/session.py", "/bin/cat: src/app/session.py: No such file or directory\n"),
    ("/usr/bin/sed -n '1,5p' src/app/session.py",
     "/usr/bin/sed: can't read src/app/session.py: No such file or directory\n"),
])
def test_a_failed_read_counts_no_line_of_the_file(tmp_path: Path, command: str,
                                                  output: str) -> None:
    _, attempt = _one(tmp_path, [(command, output)])
    assert _spans(attempt) == []
    assert [p["reason"] for p in attempt["passed_over"]] == [
        f"{command.split(' && ')[-1].split()[0].rsplit('/', 1)[-1]} reported an error"]


def test_a_file_whose_first_line_reads_like_a_search_complaint_is_still_read(
        tmp_path: Path) -> None:
    """Only the complaints of the program that printed the file (and the shell's) stop a
    read: a file beginning ``grep: ...`` (a YAML key) is read."""
    _, attempt = _one(tmp_path, [("cat ci.yml", "grep: -rn\nfind: .\n")])
    assert _spans(attempt) == [("ci.yml", 1, 2, "read")]


# --- lines placed where the output never showed them -------------------------------------

def test_two_sed_scripts_are_not_read_as_the_last_one(tmp_path: Path) -> None:
    """``sed -n -e '1,3p' -e '50,60p'`` of a 3-line file prints lines 1-3; they were
    placed at 50-52 (the last script's range)."""
    _, attempt = _one(tmp_path, [("sed -n -e '1,3p' -e '50,60p' src/app/session.py", BODY),
                                 ("sed -n '1,2p' -e '7p' src/app/util.py", "a\nb\n")])
    assert _spans(attempt) == []


@pytest.mark.parametrize("command", ["head -v -n 10 src/app/session.py",
                                     "cat src/app/session.py | head -v -n 10",
                                     "head --verbose src/app/session.py"])
def test_a_head_header_is_not_line_one(tmp_path: Path, command: str) -> None:
    """``head -v`` prints ``==> FILE <==`` first: the file's first line was read as its
    second, every line one off."""
    _, attempt = _one(tmp_path, [(command, "==> src/app/session.py <==\n" + BODY)])
    assert _spans(attempt) == []


# --- search output around its complaints -----------------------------------------------

@pytest.mark.parametrize("first", ["grep: ./static/logo.png: binary file matches",
                                   "grep: ./build: Is a directory",
                                   "Binary file ./static/logo.png matches"])
def test_a_search_whose_first_line_is_a_complaint_keeps_its_hits(tmp_path: Path,
                                                                 first: str) -> None:
    """GNU grep prints ``binary file matches`` among its hits: when it came first, every
    hit of the search was dropped ("grep reported an error")."""
    _, attempt = _one(tmp_path, [("grep -rn create_session .",
                                  f"{first}\n./src/app/session.py:10:def create_session(user):\n")])
    assert _spans(attempt) == [("src/app/session.py", 10, 10, "search_hit")]


def _rg_json(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_rg_json_is_read_as_its_messages_and_a_cut_record_shows_nothing(
        tmp_path: Path) -> None:
    """``rg --json`` was read as ``path:text`` lines: a file named ``{"type"`` took a
    place in the ranking and no hit was read."""
    def match(path: str, line: int, text: str, kind: str = "match") -> dict[str, Any]:
        return {"type": kind, "data": {"path": {"text": path}, "lines": {"text": text},
                                       "line_number": line, "absolute_offset": 0,
                                       "submatches": []}}

    output = _rg_json(
        {"type": "begin", "data": {"path": {"text": "src/app/session.py"}}},
        match("src/app/session.py", 9, "# sessions\n", "context"),
        match("src/app/session.py", 10, "def create_session(user):\n"),
        {"type": "end", "data": {"path": {"text": "src/app/session.py"}, "stats": {}}},
        match("src/a:b-1-c.py", 3, "x = create_session\ny = 2\n"),  # two lines, one hit
        {"type": "match", "data": {"path": {"bytes": "c3JjL/8ucHk="}, "line_number": 1,
                                   "lines": {"text": "x"}}},
        match("src/app/util.py", 5, "create_session()\n"),
    )
    cut = output[:-40]  # the output was cut inside the last record
    _, attempt = _one(tmp_path, [("rg --json create_session", cut),
                                 ("rg --json -n create_session src | head -n 50", cut)])
    assert _spans(attempt) == [("src/app/session.py", 9, 10, "search_hit"),
                               ("src/a:b-1-c.py", 3, 4, "search_hit")]


@pytest.mark.parametrize("command", ["grep -rn --color=always create_session .",
                                     "rg -n --color always create_session"])
def test_coloured_search_output_is_read(tmp_path: Path, command: str) -> None:
    """``--color=always`` (or a terminal's rg) puts escapes inside the path and number."""
    line = ("\x1b[35m\x1b[K./src/app/session.py\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K"
            "\x1b[32m\x1b[K10\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[Kdef "
            "\x1b[01;31m\x1b[Kcreate_session\x1b[m\x1b[K(user):\n")
    written, attempt = _one(tmp_path, [(command, line)])
    assert _spans(attempt) == [("src/app/session.py", 10, 10, "search_hit")]
    assert "\\u001b" not in written


# --- the home directory is not the repository -------------------------------------------

@pytest.mark.parametrize(("command", "skipped"), [
    ("cd ~ && cat src/app/session.py", "output after a cd to a directory the shell expands"),
    ("cd ~/other && cat src/app/session.py",
     "output after a cd to a directory the shell expands"),
    ("cd && cat src/app/session.py", "output after a cd to a directory the shell expands"),
    ("cd /tmp && cd - && cat src/app/session.py",
     "output after a cd to a directory the shell expands"),
])
def test_a_cd_home_or_back_is_not_the_repository(tmp_path: Path, command: str,
                                                 skipped: str) -> None:
    """``cd ~`` joined ``~`` to the directory the shell was in (``/testbed/~``): the home
    directory's files were read as the repository's."""
    _, attempt = _one(tmp_path, [(command, BODY)])
    assert _spans(attempt) == []
    assert [p["reason"] for p in attempt["passed_over"]] == [skipped]


def test_a_file_in_the_home_directory_lies_outside_the_repository(tmp_path: Path) -> None:
    _, attempt = _one(tmp_path, [("cat ~/src/app/session.py", BODY)])
    assert [(c["file"], c.get("outside_repo")) for c in attempt["ranked"]] == [
        ("~/src/app/session.py", True)]


# --- text JSON allows and UTF-8 does not ---------------------------------------------------

def _mapped(folder: Path, steps: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "run.json"
    path.write_text(json.dumps({"task": {"id": "demo__repo-1"}, "steps": steps}),
                    encoding="utf-8")
    return path


MAPPED = ("--format", "mapped", "--map", "events=steps", "--map", "case=task.id", "--map",
          "tool=name", "--map", "arguments=args", "--map", "output=result")


def test_a_lone_surrogate_inside_a_json_string_is_mended_not_a_traceback(tmp_path: Path) -> None:
    """A tool's JSON result (or JSON-string arguments) spelling a lone surrogate
    (``\\ud800``): Python's reader keeps it, and writing the attempt stopped the import
    with a UnicodeEncodeError traceback."""
    traj = _mapped(tmp_path / "t", [
        {"name": "search_code", "args": {"query": "x"},
         "result": '{"results": [{"path": "src/app/session\\ud800.py", "start_line": 10,'
                   ' "content": "def create_session(user): \\udcff"}]}'},
        {"name": "read_file", "args": '{"path": "src/app/util\\udcff.py"}',
         "result": "     1\tx = 1\n"},
    ])
    out = tmp_path / "a.jsonl"
    proc = run_cli("import", "trajectories", traj, *MAPPED, "--cases", CASES, "-o", out,
                   timeout=TIMEOUT)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (attempt,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert _spans(attempt) == [("src/app/session\ufffd.py", 10, 10, "search_hit"),
                               ("src/app/util\ufffd.py", 1, 1, "read")]


@pytest.mark.parametrize("layout", ["document", "last-line", "middle-line", "first-line"])
def test_a_lone_surrogate_escape_in_the_file_is_read_not_called_truncated(
        tmp_path: Path, layout: str) -> None:
    """A file holding ``"\\ud83d"`` (an output cut inside an emoji, as Node and Python
    write it) was refused as "not valid JSON (the file looks truncated)", and as the last
    line of JSON lines silently skipped as a line still being written."""
    observation = "x = 'cut \\ud83d'\\n"
    if layout == "document":
        traj = tmp_path / "demo__repo-1.traj"
        traj.write_text('{"trajectory": [{"action": "cat src/app/session.py", '
                        f'"observation": "{observation}"}}]}}', encoding="utf-8")
        args: tuple[str, ...] = ("--format", "swe-agent")
    else:
        first = json.dumps({"id": 1, "source": "agent", "action": "run",
                            "args": {"command": "cat src/app/session.py"}})
        second = ('{"id": 2, "cause": 1, "observation": "run", '
                  f'"content": "{observation}"}}')
        task = '{"id": 0, "source": "user", "action": "message", "args": {"content": "\\ud83d"}}'
        lines = {"last-line": [first, second], "middle-line": [first, second, "[]"],
                 "first-line": [task, first, second]}[layout]
        traj = tmp_path / "demo__repo-1.json"
        traj.write_text("\n".join(lines) + "\n", encoding="utf-8")
        args = ("--format", "openhands")
    out = tmp_path / "a.jsonl"
    proc = run_cli("import", "trajectories", traj, *args, "--cases", CASES, "-o", out,
                   "--json", timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "cut short" not in proc.stdout
    (attempt,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert _spans(attempt) == [("src/app/session.py", 1, 1, "read")]
    assert attempt["ranked"][0]["excerpt"] == "x = 'cut \ufffd'"


def test_bytes_that_are_not_utf8_are_named_with_their_line(tmp_path: Path) -> None:
    traj = tmp_path / "demo__repo-1.traj"
    traj.write_bytes(b'{"trajectory": [\n {"action": "cat a.py",\n  "observation": "\xff"}]}')
    assert_clean_error(run_cli("import", "trajectories", traj, "--format", "swe-agent",
                               "--cases", CASES, "-o", tmp_path / "a.jsonl", timeout=TIMEOUT),
                       contains=["demo__repo-1.traj:3:", "not UTF-8", "0xff"])


# --- JSON nested deep inside a string -----------------------------------------------------

def test_json_nested_deep_inside_a_string_is_no_traceback(tmp_path: Path) -> None:
    """A retriever span's ``metadata`` and a SWE-agent ``state`` are JSON in a string:
    100,000 levels of it raised RecursionError out of the reader."""
    deep = "[" * 100_000 + "]" * 100_000
    spans = [{"traceId": "t", "spanId": "r", "name": "retrieve", "startTimeUnixNano": "1",
              "attributes": [
                  {"key": "openinference.span.kind", "value": {"stringValue": "RETRIEVER"}},
                  {"key": "case_id", "value": {"stringValue": "demo__repo-1"}},
                  {"key": "retrieval.documents.0.document.id",
                   "value": {"stringValue": "src/app/session.py:10-12"}},
                  {"key": "retrieval.documents.0.document.metadata",
                   "value": {"stringValue": deep}}]}]
    otel = tmp_path / "otel" / "t.json"
    otel.parent.mkdir()
    otel.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}),
                    encoding="utf-8")
    swe = tmp_path / "swe" / "demo__repo-1.traj"
    swe.parent.mkdir()
    swe.write_text(json.dumps({"trajectory": [{"action": "cat src/app/session.py",
                                               "observation": BODY, "state": deep}]}),
                   encoding="utf-8")
    for traj, name in ((otel, "otel"), (swe, "swe-agent")):
        out = tmp_path / f"{name}.jsonl"
        proc = run_cli("import", "trajectories", traj, "--format", name, "--cases", CASES,
                       "-o", out, timeout=TIMEOUT)
        assert_no_traceback(proc)
        assert proc.returncode == 0, proc.stderr[-2000:]
        (attempt,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert [c["file"] for c in attempt["ranked"]] == ["src/app/session.py"]


# --- ids that repeat ----------------------------------------------------------------------

@pytest.mark.parametrize("sdk", [False, True])
def test_an_answer_is_taken_once_when_ids_repeat(tmp_path: Path, sdk: bool) -> None:
    """Two runs joined in one event stream (a resumed session numbers its events from the
    start again): the first observation of id 1 was every later action 1's answer, so a
    ``cat`` of the case's file that failed showed the other file's lines as its own."""
    shown = "a = 1\nb = 2\n"
    failed = "cat: src/app/session.py: No such file or directory\n"
    if sdk:
        def action(command: str) -> dict[str, Any]:
            return {"kind": "ActionEvent", "id": "a1", "tool_call_id": "t1",
                    "tool_name": "terminal", "action": {"command": command}}

        def observation(text: str) -> dict[str, Any]:
            return {"kind": "ObservationEvent", "action_id": "a1", "tool_call_id": "t1",
                    "observation": {"content": text}}
    else:
        def action(command: str) -> dict[str, Any]:
            return {"id": 1, "source": "agent", "action": "run", "args": {"command": command}}

        def observation(text: str) -> dict[str, Any]:
            return {"id": 2, "cause": 1, "observation": "run", "content": text}
    events = [action("cat src/app/util.py"), observation(shown),
              action("cat src/app/session.py"), observation(failed),
              action("cat src/app/other.py")]  # never answered
    traj = tmp_path / "demo__repo-1.json"
    traj.write_text(json.dumps(events), encoding="utf-8")
    out = tmp_path / "a.jsonl"
    proc = run_cli("import", "trajectories", traj, "--format", "openhands", "--cases", CASES,
                   "-o", out, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (attempt,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert _spans(attempt) == [("src/app/util.py", 1, 2, "read")]
    assert [p["reason"] for p in attempt["passed_over"]] == ["cat reported an error"]


# --- a file name that is not UTF-8 --------------------------------------------------------

def test_a_file_name_that_is_not_utf8_is_spelled_with_escapes(tmp_path: Path) -> None:
    """The label (and so the attempt id) held the name's bytes as lone surrogates, and
    writing the attempt stopped the import with a UnicodeEncodeError traceback."""
    folder = tmp_path / "runs"
    folder.mkdir()
    name = bytes(folder) + b"/demo\xff.traj"
    with open(name, "wb") as handle:
        handle.write(json.dumps({"trajectory": [{"action": "cat src/app/session.py",
                                                 "observation": BODY}]}).encode())
    out, report = tmp_path / "a.jsonl", tmp_path / "r.json"
    proc = run_cli("import", "trajectories", folder, "--format", "swe-agent", "--case",
                   "demo__repo-1", "--cases", CASES, "-o", out, "--report", report,
                   timeout=TIMEOUT)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (attempt,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert attempt["attempt_id"].startswith("traj:demo\\xff:")
    assert json.loads(report.read_text(encoding="utf-8"))["trajectories"][0]["label"] == \
        "demo\\xff"


# --- which operand a grep named -------------------------------------------------------------

@pytest.mark.parametrize(("command", "output", "spans"), [
    # GNU grep -r of one file prints no file name: its hits were read as nothing
    ("grep -rn create_session src/app/session.py", "10:def create_session(user):\n",
     [("src/app/session.py", 10, 10, "search_hit")]),
    # a glob the shell expanded to two files: their names show ("src/*.py" read as one
    # file that printed no name found nothing)
    ("grep -n create_session src/app/*.py",
     "src/app/session.py:10:def create_session(user):\nsrc/app/util.py:3:create_session()\n",
     [("src/app/session.py", 10, 10, "search_hit"), ("src/app/util.py", 3, 3, "search_hit")]),
    # ... and to one file: which one is not known, and `src/app/*.py` is no file
    ("grep -n create_session src/app/*.py", "10:def create_session(user):\n", []),
    ("rg -n create_session src/app/*.py", "10:def create_session(user):\n", []),
])
def test_the_files_a_grep_names(tmp_path: Path, command: str, output: str,
                                spans: list[tuple[str, int, int, str]]) -> None:
    _, attempt = _one(tmp_path, [(command, output)])
    assert _spans(attempt) == spans


def test_an_otel_array_value_that_is_no_list_is_no_traceback(tmp_path: Path) -> None:
    """``{"arrayValue": {"values": 5}}`` raised TypeError out of the attribute reader."""
    span = {"traceId": "t", "spanId": "1", "name": "execute_tool grep",
            "startTimeUnixNano": "1", "attributes": [
                {"key": "case_id", "value": {"stringValue": "demo__repo-1"}},
                {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                {"key": "gen_ai.tool.call.result",
                 "value": {"stringValue": "src/app/session.py:10:def create_session(user):"}},
                {"key": "tags", "value": {"arrayValue": {"values": 5}}}]}
    traj = tmp_path / "t.json"
    traj.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}),
                    encoding="utf-8")
    out = tmp_path / "a.jsonl"
    proc = run_cli("import", "trajectories", traj, "--format", "otel", "--cases", CASES,
                   "-o", out, timeout=TIMEOUT)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (attempt,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert _spans(attempt) == [("src/app/session.py", 10, 10, "search_hit")]


# --- tools that name a file without showing it ------------------------------------------------

@pytest.mark.parametrize(("tool", "args", "result"), [
    # a tool codegold knows by neither name nor kind printed something about the file
    ("git_log", {"path": "src/app/session.py"}, "commit 1a2b3c\nAuthor: dev\n\n    fix\n"),
    ("run_tests", {"path": "tests/test_session.py"}, "3 passed in 0.1s\n"),
    # a read tool that reports a failure in its text instead of flagging an error
    ("read_file", {"path": "src/app/session.py"},
     "Error: ENOENT: no such file or directory, open 'src/app/session.py'\n"),
    ("read_file", {"path": "src/app/session.py", "start_line": 10, "end_line": 20},
     "File not found: src/app/session.py\n"),
    # a search tool answering an error object that names the file it could not search
    ("search_code", {"query": "x"},
     '{"error": "index not built", "path": "src/app/session.py", "line": 10}'),
])
def test_a_file_named_but_not_shown_is_not_read(tmp_path: Path, tool: str,
                                                args: dict[str, Any], result: str) -> None:
    """Each was counted as a read (or a hit) of the file it names, at line 1 on: the
    case's file "seen" with lines it never showed."""
    traj = _mapped(tmp_path / "t", [{"name": tool, "args": args, "result": result}])
    out = tmp_path / "a.jsonl"
    proc = run_cli("import", "trajectories", traj, *MAPPED, "--cases", CASES, "-o", out,
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (attempt,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert _spans(attempt) == []


def test_a_numbered_view_by_an_unknown_tool_is_still_read(tmp_path: Path) -> None:
    traj = _mapped(tmp_path / "t", [{"name": "peek", "args": {"path": "src/app/session.py"},
                                     "result": "    10\tdef create_session(user):\n"
                                               "    11\t    return 1\n"}])
    out = tmp_path / "a.jsonl"
    proc = run_cli("import", "trajectories", traj, *MAPPED, "--cases", CASES, "-o", out,
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (attempt,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert _spans(attempt) == [("src/app/session.py", 10, 11, "read")]


# --- an agent run on Windows -------------------------------------------------------------------

def test_windows_paths_are_placed_under_the_sessions_directory(tmp_path: Path) -> None:
    """A Claude Code session on Windows (``cwd`` ``C:\\Users\\me\\shop``): its reads were
    kept as files named ``C:\\Users\\me\\shop\\src\\app\\session.py`` inside the repository,
    so the case's file was never seen, and another drive's file was not outside."""
    cwd = "C:\\Users\\me\\shop"

    def line(kind: str, message: dict[str, Any], result: Any = None) -> str:
        record: dict[str, Any] = {"type": kind, "cwd": cwd, "sessionId": "s",
                                  "message": message}
        if result is not None:
            record["toolUseResult"] = result
        return json.dumps(record)

    def read(ident: str, path: str, text: str) -> list[str]:
        return [line("assistant", {"id": f"m{ident}", "role": "assistant", "content": [
                    {"type": "tool_use", "id": ident, "name": "Read",
                     "input": {"file_path": path}}]}),
                line("user", {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": ident, "content": text}]})]

    lines = [*read("t1", "c:\\Users\\me\\shop\\src\\app\\session.py",
                   "    10\u2192def create_session(user):\n    11\u2192    return 1"),
             *read("t2", "src\\app\\util.py", "     1\u2192a = 1"),
             *read("t3", "D:\\other\\notes.py", "     1\u2192x = 1")]
    traj = tmp_path / "s.jsonl"
    traj.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "a.jsonl"
    proc = run_cli("import", "trajectories", traj, "--format", "claude-code", "--case",
                   "demo__repo-1", "--cases", CASES, "-o", out, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (attempt,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(c["file"], c["start_line"], c.get("outside_repo", False))
            for c in attempt["ranked"]] == [("src/app/session.py", 10, False),
                                            ("src/app/util.py", 1, False),
                                            ("/D:/other/notes.py", 1, True)]


# --- a file changed and shown by one command ----------------------------------------------------

@pytest.mark.parametrize(("command", "after"), [
    ("sed -i '1d' src/app/session.py && cat src/app/session.py", True),
    ("cd src/app && sed -i '1d' session.py && cat -n /testbed/src/app/session.py", True),
    ("cat src/app/session.py && sed -i '1d' src/app/session.py", False),
    ("sed -i '1d' src/app/util.py && cat src/app/session.py", False),
])
def test_lines_shown_after_the_same_command_changed_the_file_are_after_edit(
        tmp_path: Path, command: str, after: bool) -> None:
    """The edit was recorded after the read, so the changed file's lines (every number
    past the deleted line one off) counted as the pinned revision's."""
    output = "     1\tline 2\n     2\tline 3\n" if "cat -n" in command else "line 2\nline 3\n"
    _, attempt = _one(tmp_path, [(command, output)])
    (chunk,) = attempt["ranked"]
    assert (chunk["file"], chunk["start_line"], chunk["end_line"]) == ("src/app/session.py", 1, 2)
    assert chunk.get("after_edit", False) is after


# --- counts a line number cannot hold, and head -n -K ----------------------------------------------

LONG = "".join(f"line {n}\n" for n in range(1, 9))


@pytest.mark.parametrize(("command", "span"), [
    # more digits than a line number: past the end of any file, so the whole file (these
    # were passed over as "not a file read")
    ("sed -n '1,999999999999p' src/app/session.py", (1, 8)),
    ("head -n 99999999999 src/app/session.py", (1, 8)),
    ("sed -n '3,+99999999999p' src/app/session.py", (3, 10)),
    # all but the last 2: from line 1 (was "more lines printed than the command asks for")
    ("head -n -2 src/app/session.py", (1, 8)),
    ("cat src/app/session.py | head -n -2", (1, 8)),
    # ... and a tail after it cannot be placed, the file's length known or not
    ("head -n -2 src/app/session.py | tail -n 2", None),
])
def test_huge_counts_and_head_minus(tmp_path: Path, command: str,
                                    span: tuple[int, int] | None) -> None:
    window = "[File: /testbed/src/app/session.py (10 lines total)]\n1:line 1\n(9 more lines below)\n"
    output = "line 7\nline 8\n" if span is None else "".join(
        f"line {n}\n" for n in range(span[0], span[0] + 8))
    _, attempt = _one(tmp_path, [("open src/app/session.py", window), (command, output)])
    got = [(c["start_line"], c["end_line"]) for c in attempt["ranked"]][1:]
    assert got == ([] if span is None else
                   [(2, span[1])] if span[0] == 1 else [span]), got


@pytest.mark.parametrize(("command", "output"), [
    # a filter that prefixes each line: its number or count was read into the file's path
    ("grep -rn create_session . | cat -n",
     "     1\t./src/app/session.py:10:def create_session(user):\n"),
    ("grep -rn create_session . | sort | uniq -c",
     "      2 ./src/app/session.py:10:def create_session(user):\n"),
    # a filter adding a file of its own: its lines were read as the first file's
    ("cat -n src/app/session.py | cat - src/app/util.py", "     1\tline 1\n     2\tline 2\n"),
])
def test_a_filter_that_changes_lines_is_not_read_through(tmp_path: Path, command: str,
                                                         output: str) -> None:
    _, attempt = _one(tmp_path, [(command, output)])
    assert _spans(attempt) == []


@pytest.mark.parametrize("command", ["rg create_session", "rg -n -C1 create_session",
                                     "ag create_session"])
def test_rg_on_a_terminal_is_read_by_its_headings(tmp_path: Path, command: str) -> None:
    """rg on a terminal (OpenHands' shell runs in tmux) prints each file's name above its
    numbered lines: its line numbers were read as files named ``10`` and ``3``."""
    output = ("src/app/session.py\n9-# sessions\n10:def create_session(user):\n\n"
              "src/app/util.py\n3:create_session()\n")
    if "-C1" not in command:
        output = output.replace("9-# sessions\n", "")
    _, attempt = _one(tmp_path, [(command, output)])
    first = 9 if "-C1" in command else 10
    assert _spans(attempt) == [("src/app/session.py", first, 10, "search_hit"),
                               ("src/app/util.py", 3, 3, "search_hit")]


def test_git_grep_outside_a_repository_names_no_file(tmp_path: Path) -> None:
    """``fatal: not a git repository`` was read as a hit on a file named ``fatal``."""
    _, attempt = _one(tmp_path, [("git grep create_session",
                                  "fatal: not a git repository (or any of the parent "
                                  "directories): .git\n")])
    assert _spans(attempt) == []
