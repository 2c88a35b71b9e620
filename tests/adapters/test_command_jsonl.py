"""``command+jsonl:CMD``: one process serves every case, a line in and a line out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.adapters.jsonl import JsonlCommandRetriever
from codegold.adapters.protocol import RetrievalRequest
from codegold.cli.main import cli
from codegold.errors import InputError, RetrieverError

HERE = Path(__file__).resolve().parent
SERVE = f"""
import json, os, sys
sys.path.insert(0, {str(HERE)!r})
from fake_retrievers import answer
for line in sys.stdin:
    reply = answer(json.loads(line))
    reply["rewritten"] = str(os.getpid())
    if "{{crash}}" in line:
        sys.stderr.write("serve: cannot go on\\n"); sys.exit(4)
    print(json.dumps(reply), flush=True)
"""


def _script(tmp_path: Path, body: str = SERVE) -> str:
    path = tmp_path / "serve.py"
    path.write_text(body)
    return f"{sys.executable} {path}"


def _request(query: str = "login flow") -> RetrievalRequest:
    return RetrievalRequest(case_id="c", query=query, k=3, revision="a" * 40)


def test_every_case_goes_to_one_process(cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    done = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(out), "--quiet",
                                    "--retriever", "command+jsonl:" + _script(tmp_path)])
    assert done.exit_code == 0, done.output
    attempts = [json.loads(line) for line in out.read_text().splitlines()]
    assert [a["ranked"][0]["file"] for a in attempts] == [
        "src/login.py", "src/billing.py", "src/search.py"]
    assert len({a["query"]["rewritten"] for a in attempts}) == 1  # one pid answered all


def test_a_crash_fails_that_case_and_the_next_starts_afresh(tmp_path: Path) -> None:
    retriever = JsonlCommandRetriever(_script(tmp_path), timeout=10)
    try:
        first = retriever.retrieve(_request()).rewritten
        with pytest.raises(RetrieverError, match=r"exited with status 4.*cannot go on"):
            retriever.retrieve(_request("{crash} now"))
        again = retriever.retrieve(_request()).rewritten
    finally:
        retriever.close()
    assert first != again and retriever.starts == 2


def test_a_slow_answer_times_out_and_the_process_is_replaced(tmp_path: Path) -> None:
    slow = SERVE.replace("for line in sys.stdin:", "import time\nfor line in sys.stdin:\n"
                         "    time.sleep(30) if 'slow' in line else None")
    retriever = JsonlCommandRetriever(_script(tmp_path, slow), timeout=4)
    try:
        with pytest.raises(RetrieverError, match="timed out after 4s"):
            retriever.retrieve(_request("slow one"))
        assert retriever.retrieve(_request()).ranked
    finally:
        retriever.close()
    assert retriever.starts == 2


def test_a_line_over_the_cap_and_bad_json_are_error_attempts(tmp_path: Path) -> None:
    loud = "import sys\nfor line in sys.stdin:\n    print('x' * 5000 if 'big' in line else '{nope', flush=True)\n"
    retriever = JsonlCommandRetriever(_script(tmp_path, loud), timeout=60, max_output=1000)
    try:
        with pytest.raises(RetrieverError, match="more than 1000 bytes on one line"):
            retriever.retrieve(_request("big"))
        with pytest.raises(RetrieverError, match="invalid JSON"):
            retriever.retrieve(_request())
    finally:
        retriever.close()


def test_an_empty_command_is_an_input_error() -> None:
    with pytest.raises(InputError, match="needs a command"):
        JsonlCommandRetriever("  ")


def test_a_whole_line_over_the_cap_in_one_write_is_refused(tmp_path: Path) -> None:
    body = "import sys\nfor line in sys.stdin:\n    sys.stdout.write('x' * 5000 + '\\n'); sys.stdout.flush()\n"
    retriever = JsonlCommandRetriever(_script(tmp_path, body), timeout=60, max_output=1000)
    try:
        for _ in range(3):  # whatever the pipe's chunking, every time
            with pytest.raises(RetrieverError, match="more than 1000 bytes on one line"):
                retriever.retrieve(_request())
    finally:
        retriever.close()
