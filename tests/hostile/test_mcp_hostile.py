"""Hostile MCP servers and persistent commands through the real CLI: each ends in bounded
time with one clear error attempt per case (exit 3), never a traceback or a hang."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from hostilekit import RUN_CASES, assert_no_traceback, run_cli

pytest.importorskip("mcp")

FAKE_SERVER = Path(__file__).resolve().parents[1] / "adapters" / "mcp_fake_server.py"


def _run(tmp_path: Path, spec: str, *extra: str, timeout: float = 60
         ) -> tuple[list[dict[str, object]], float, str]:
    (tmp_path / "cases.yaml").write_text(RUN_CASES)
    out = tmp_path / "attempts.jsonl"
    started = time.monotonic()
    proc = run_cli("run", tmp_path / "cases.yaml", "-o", out, "--quiet", "--retriever", spec,
                   *extra, cwd=tmp_path, timeout=timeout)
    seconds = time.monotonic() - started
    assert_no_traceback(proc)
    assert proc.returncode in (0, 3), proc.stderr[-2000:]
    attempts = [json.loads(line) for line in out.read_text().splitlines()]
    assert [a["case_id"] for a in attempts] == ["one", "two"]
    return attempts, seconds, proc.stderr


def _server(tmp_path: Path, body: str) -> str:
    path = tmp_path / "server.py"
    path.write_text(body)
    return f"{sys.executable} {path}"


def _errors(attempts: list[dict[str, object]]) -> list[str]:
    return [str(a.get("error")) for a in attempts]


def test_a_server_that_never_answers_initialize(tmp_path: Path) -> None:
    # It also forks a grandchild that holds the pipes: the whole group goes.
    spec = "mcp:stdio:" + _server(tmp_path, "import subprocess, sys, time\n"
                                  "subprocess.Popen(['sleep', '300'])\n"
                                  "sys.stdin.readline(); time.sleep(300)\n")
    attempts, seconds, _ = _run(tmp_path, spec, "--timeout", "2")
    errors = _errors(attempts)
    assert all("did not answer initialize within 2s" in e for e in errors), errors
    assert seconds < 30


def test_a_server_answering_garbage(tmp_path: Path) -> None:
    spec = "mcp:stdio:" + _server(tmp_path, "import sys\nsys.stdin.readline()\n"
                                  "print('Welcome to my server!', flush=True)\n"
                                  "sys.stdin.read()\n")
    attempts, seconds, _ = _run(tmp_path, spec, "--timeout", "3")
    errors = _errors(attempts)
    assert "did not answer initialize within 3s" in errors[0], errors
    assert "1 line(s) on stdout that are not JSON-RPC, the last: 'Welcome" in errors[0]
    assert "did not answer initialize within 3s" in errors[1], errors
    assert seconds < 30


def test_a_server_that_exits_at_once_keeps_its_stderr(tmp_path: Path) -> None:
    spec = "mcp:stdio:" + _server(tmp_path, "import sys\n"
                                  "sys.stderr.write('no index found; api_key=sk-live-abcdefghijklmnopqrstuvwx\\n')\n"
                                  "sys.exit(2)\n")
    attempts, _, stderr = _run(tmp_path, spec, "--timeout", "10")
    errors = _errors(attempts)
    assert "exited with status 2" in errors[0] and "no index found" in errors[0], errors
    assert "not started again after 2 failed starts" in errors[1] or "exited" in errors[1]
    assert errors[1].count("MCP server") == 1, errors[1]
    assert "sk-live-abcdefghijklmnopqrstuvwx" not in stderr + "".join(errors)


def test_a_server_crashing_mid_run_costs_one_case(tmp_path: Path) -> None:
    spec = f"mcp:stdio:{sys.executable} {FAKE_SERVER} crash-after-1"
    attempts, _, _ = _run(tmp_path, spec, "--timeout", "20")
    assert attempts[0].get("error") is None and attempts[0]["ranked"]
    assert "exited with status 7" in str(attempts[1]["error"])


def test_a_huge_answer_is_cut_off_at_the_cap(tmp_path: Path) -> None:
    spec = "mcp:stdio:" + _server(tmp_path, "import sys\nsys.stdin.readline()\n"
                                  "block = b'x' * (1 << 20)\n"
                                  "for _ in range(200):\n    sys.stdout.buffer.write(block)\n")
    attempts, seconds, _ = _run(tmp_path, spec, "--timeout", "20", timeout=90)
    assert all("more than 67108864 bytes" in e for e in _errors(attempts)), _errors(attempts)
    assert seconds < 60


def test_persistent_command_that_hangs_floods_or_babbles(tmp_path: Path) -> None:
    hang = "command+jsonl:" + _server(tmp_path, "import subprocess, time\n"
                                      "subprocess.Popen(['sleep', '300'])\ntime.sleep(300)\n")
    attempts, seconds, _ = _run(tmp_path, hang, "--timeout", "2")
    assert all("timed out after 2s" in e for e in _errors(attempts)) and seconds < 30
    (tmp_path / "babble").mkdir()
    attempts, _, _ = _run(tmp_path / "babble", "command+jsonl:yes", "--timeout", "20")
    assert all("invalid JSON" in e for e in _errors(attempts)), _errors(attempts)
    (tmp_path / "flood").mkdir()
    flood = "command+jsonl:" + _server(tmp_path / "flood", "import sys\nblock = b'{' * (1 << 20)\n"
                                       "while True:\n    sys.stdout.buffer.write(block)\n")
    attempts, seconds, _ = _run(tmp_path / "flood", flood, "--timeout", "20", timeout=90)
    assert all("more than 67108864 bytes on one line" in e for e in _errors(attempts))
    assert seconds < 60


def test_answers_no_parser_can_read_cost_nothing_but_their_lines(tmp_path: Path) -> None:
    """A 5,000-digit line number (past int()'s limit), JSON nested past the recursion
    limit and a 300,000-character line the grep pattern backtracked over: the run ends
    at once, with the hits that could be read, never a traceback."""
    spec = "mcp:stdio:" + _server(tmp_path, (
        "from mcp.server.mcpserver import MCPServer\napp = MCPServer('x')\n"
        "@app.tool()\ndef search(query: str) -> str:\n"
        "    '''Search.'''\n"
        "    return ('src/a.py:' + '9' * 5000 + ':x\\n' + '[' * 5000 + ']' * 5000 + '\\n'\n"
        "            + 'a/' * 150_000 + '\\nsrc/login.py:3:def login():\\n')\n"
        "app.run()\n"))
    attempts, seconds, _ = _run(tmp_path, spec, "--timeout", "20")
    assert [a.get("error") for a in attempts] == [None, None]
    assert [[c["file"] for c in a["ranked"]] for a in attempts] == [["src/login.py"]] * 2
    assert seconds < 30
