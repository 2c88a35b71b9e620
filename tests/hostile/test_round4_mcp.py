"""Hostile MCP servers, fourth round, through the real CLI: a server written by hand
(plain JSON-RPC on stdio, no SDK) so that it can send what the SDK never would: lone
surrogates, paths that climb out of the checkout or spell a file two ways, answers to
requests nobody sent, results of the wrong type, notifications before the answer.

Each run ends in bounded time, never with a traceback, and the attempts say what the
server answered: a file the server named under another spelling is that file, and one
outside the checkout never counts as the repository's."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hostilekit import RUN_CASES, assert_clean_error, assert_no_traceback, run_cli

pytest.importorskip("mcp")

SERVER = '''
import json, os, sys
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "answer.json")) as f:
    ANSWER = json.load(f)
TOOL = {"name": "search", "description": "Search.", "inputSchema": {
    "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.json")
if os.path.exists(SCHEMA):
    with open(SCHEMA) as f:
        TOOL["inputSchema"] = json.load(f)

def send(text):
    sys.stdout.write(text + "\\n")
    sys.stdout.flush()

for line in sys.stdin:
    message = json.loads(line)
    ident, method = message.get("id"), message.get("method")
    if method == "initialize":
        send(json.dumps({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "raw", "version": "1"}}}))
    elif method == "tools/list":
        send(json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"tools": [TOOL]}}))
    elif method == "tools/call":
        for text in ANSWER:  # raw lines, "ID" standing for the request's id
            send(text.replace('"ID"', json.dumps(ident)))
    elif ident is not None:
        send(json.dumps({"jsonrpc": "2.0", "id": ident, "result": {}}))
'''


def _run(tmp_path: Path, answer: list[str], *extra: str, timeout: float = 60
         ) -> tuple[list[dict[str, Any]], float]:
    server = tmp_path / "server.py"
    server.write_text(SERVER, encoding="utf-8")
    (tmp_path / "answer.json").write_text(json.dumps(answer), encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(RUN_CASES, encoding="utf-8")
    out = tmp_path / "attempts.jsonl"
    spec = f"mcp:stdio:{sys.executable} {server}"
    started = time.monotonic()
    proc = run_cli("run", tmp_path / "cases.yaml", "-o", out, "--quiet", "--retriever", spec,
                   "--timeout", "3", *extra, cwd=tmp_path, timeout=timeout)
    seconds = time.monotonic() - started
    assert_no_traceback(proc)
    assert proc.returncode in (0, 3), proc.stderr[-2000:]
    attempts = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [a["case_id"] for a in attempts] == ["one", "two"]
    return attempts, seconds


def _result(text: str) -> str:
    """A tools/call answer holding one text block (``text``, raw JSON string content)."""
    return ('{"jsonrpc": "2.0", "id": "ID", "result": {"content": [{"type": "text", "text": '
            + text + "}]}}")


def test_a_lone_surrogate_in_an_answer_is_mended_not_a_traceback(tmp_path: Path) -> None:
    """The tool's text is JSON naming ``src/a\\ud800.py``: Python's JSON reader keeps the
    lone surrogate, and writing the attempt stopped the whole run with a
    UnicodeEncodeError traceback (no attempt file for the cases after it)."""
    hits = '{"results": [{"file": "src/a\\ud800.py", "start_line": 3, "text": "x \\udcff"}]}'
    attempts, _ = _run(tmp_path, [_result(json.dumps(hits))])
    for attempt in attempts:
        assert attempt.get("error") is None, attempt.get("error")
        assert [(c["file"], c["start_line"], c.get("excerpt")) for c in attempt["ranked"]] == [
            ("src/a\ufffd.py", 3, "x \ufffd")]


def test_paths_are_read_as_the_servers_file_system_would(tmp_path: Path) -> None:
    """``src/./login.py`` is ``src/login.py`` (it was a miss); ``src/../../etc/passwd``,
    ``~/x.py`` and a Windows drive path lie outside the repository; ``src/..`` is the
    checkout itself, no file."""
    hits = {"results": [{"file": "src/./login.py"}, {"file": "src/x/../billing.py"},
                        {"file": "src/../../etc/passwd"}, {"file": "src/.."},
                        {"file": "~/login.py"}, {"file": "C:\\co\\src\\login.py"}]}
    attempts, _ = _run(tmp_path, [_result(json.dumps(json.dumps(hits)))])
    for attempt in attempts:
        assert [(c["file"], c.get("outside_repo", False)) for c in attempt["ranked"]] == [
            ("src/login.py", False), ("src/billing.py", False), ("../etc/passwd", True),
            ("~/login.py", True), ("C:\\co\\src\\login.py", True)]


def test_paths_under_the_checkout_are_normalised_before_they_are_compared(
        tmp_path: Path) -> None:
    """``CHECKOUT/../NAME/src/login.py`` is under the checkout (it was kept outside), the
    checkout itself is no file, and ``CHECKOUT/../etc/passwd`` lies outside."""
    checkout = tmp_path / "co"
    checkout.mkdir()
    hits = {"results": [{"file": f"{checkout}/../co/src/login.py"}, {"file": f"{checkout}/"},
                        {"file": f"file://{checkout}/./src/billing.py"},
                        {"file": f"{checkout}/../etc/passwd"}]}
    attempts, _ = _run(tmp_path, [_result(json.dumps(json.dumps(hits)))],
                       "--mcp-checkout", str(checkout))
    for attempt in attempts:
        assert [(c["file"], c.get("outside_repo", False)) for c in attempt["ranked"]] == [
            ("src/login.py", False), ("src/billing.py", False),
            (f"{tmp_path}/etc/passwd", True)]


GOOD = _result(json.dumps('{"results": [{"file": "src/login.py", "start_line": 1}]}'))
NOTICE = '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}'


@pytest.mark.parametrize(("answer", "ranked", "error"), [
    # notifications, a request to the client and an answer to an id nobody used, then
    # the answer: the answer is read
    ([NOTICE, '{"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"}',
      GOOD.replace('"ID"', "987654"), GOOD], ["src/login.py"], None),
    # only an answer to another id: the case times out, bounded
    ([GOOD.replace('"ID"', "987654")], None, "did not answer within 3s"),
    # a result of the wrong type (a string, content not a list): one case's error each
    (['{"jsonrpc": "2.0", "id": "ID", "result": "hello"}'], None, "not JSON-RPC"),
    (['{"jsonrpc": "2.0", "id": "ID", "result": {"content": "src/login.py:1:x"}}'], None,
     "Input should be a valid list"),
    # the same id answered twice: the first answer is the case's, the second is ignored
    ([GOOD, _result(json.dumps('{"results": [{"file": "src/billing.py"}]}'))],
     ["src/login.py"], None),
])
def test_answers_out_of_turn_or_of_the_wrong_type(tmp_path: Path, answer: list[str],
                                                  ranked: list[str] | None,
                                                  error: str | None) -> None:
    attempts, seconds = _run(tmp_path, answer)
    for attempt in attempts:
        if error is None:
            assert attempt.get("error") is None, attempt.get("error")
            assert [c["file"] for c in attempt["ranked"]] == ranked
        else:
            assert error in str(attempt.get("error")), attempt.get("error")
    assert seconds < 40


@pytest.mark.parametrize(("template", "expected"), [
    # json.loads and the template walk raised RecursionError tracebacks
    ("[" * 20_000 + '"{query}"' + "]" * 20_000, "nested deeper than 32 levels"),
    ('{"q": ' + "[" * 900 + '"{query}"' + "]" * 900 + "}", "nested deeper than 32 levels"),
    # a list is no tool's arguments: every case failed with a validation error
    ('["{query}"]', "expected an object"),
])
def test_an_argument_template_nested_deep_or_not_an_object_is_one_error(
        tmp_path: Path, template: str, expected: str) -> None:
    (tmp_path / "cases.yaml").write_text(RUN_CASES, encoding="utf-8")
    server = tmp_path / "server.py"
    server.write_text(SERVER, encoding="utf-8")
    (tmp_path / "answer.json").write_text(json.dumps([GOOD]), encoding="utf-8")
    for flag in ("--mcp-args", "--mcp-setup"):
        proc = run_cli("run", tmp_path / "cases.yaml", "-o", tmp_path / "a.jsonl", "--quiet",
                       "--retriever", f"mcp:stdio:{sys.executable} {server}", flag, template,
                       cwd=tmp_path, timeout=60)
        assert_clean_error(proc, contains=[flag, expected])
        assert not (tmp_path / "a.jsonl").exists()


@pytest.mark.parametrize(("schema", "error"), [
    # JSON Schema allows `true` for a property ("anything"): it raised AttributeError, and
    # the server was stopped and started again for every case
    ({"type": "object", "properties": {"query": True, "limit": True}}, None),
    ({"type": "object", "properties": {"needle": True}, "required": ["needle"]},
     "cannot tell which argument of tool 'search' takes the query"),
])
def test_a_tool_schema_of_the_wrong_shape(tmp_path: Path, schema: dict[str, Any],
                                          error: str | None) -> None:
    (tmp_path / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    attempts, _ = _run(tmp_path, [GOOD])
    for attempt in attempts:
        if error is None:
            assert attempt.get("error") is None, attempt.get("error")
            assert [c["file"] for c in attempt["ranked"]] == ["src/login.py"]
        else:
            assert error in str(attempt.get("error")), attempt.get("error")
            assert "AttributeError" not in str(attempt.get("error"))


@pytest.mark.parametrize(("text", "files"), [
    # grep lines whose code holds a literal: the literal was read as the answer
    ('src/login.py:3:DEFAULT = {"path": "/etc/app.yaml"}\nsrc/billing.py:9:x = 1\n',
     ["src/login.py", "src/billing.py"]),
    ('src/login.py:3:SOURCES = ["a.py", "b.py"]\n', ["src/login.py"]),
    # a Markdown answer whose code block holds one
    ('## src/login.py:3-4\n```\nDEFAULT = {"file": "x.py"}\n```\n', ["src/login.py"]),
    # a JSON answer wrapped in prose is still read
    ('Found 1 result: [{"file": "src/billing.py", "line": 3}]', ["src/billing.py"]),
])
def test_a_literal_in_the_code_a_tool_found_is_not_its_answer(tmp_path: Path, text: str,
                                                              files: list[str]) -> None:
    attempts, _ = _run(tmp_path, [_result(json.dumps(text))])
    for attempt in attempts:
        assert attempt.get("error") is None, attempt.get("error")
        assert [c["file"] for c in attempt["ranked"]] == files


def test_files_named_by_resource_blocks_are_hits(tmp_path: Path) -> None:
    """A search tool answering with ``resource_link`` blocks (or embedded resources) and
    no text: nothing was read, and the attempt did not even say so."""
    checkout = tmp_path / "co"
    checkout.mkdir()
    blocks = [{"type": "resource_link", "uri": f"file://{checkout}/src/login.py",
               "name": "login"},
              {"type": "resource", "resource": {"uri": "src/billing.py", "text": "def total():",
                                                "mimeType": "text/x-python"}}]
    answer = ('{"jsonrpc": "2.0", "id": "ID", "result": {"content": ' + json.dumps(blocks)
              + "}}")
    attempts, _ = _run(tmp_path, [answer], "--mcp-checkout", str(checkout))
    for attempt in attempts:
        assert attempt.get("error") is None, attempt.get("error")
        assert [(c["file"], c.get("excerpt")) for c in attempt["ranked"]] == [
            ("src/login.py", None), ("src/billing.py", "def total():")]
