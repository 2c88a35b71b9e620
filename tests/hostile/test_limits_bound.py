"""Limits that must bound: an answer just under the answer cap fails its own attempt, not
the whole attempts file; millions of tiny chunks are refused before they are decoded;
``index parse`` of a device; the wait between HTTP retries; a timeout no timer takes."""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from codegold.plumbing import http
from goldkit import attempt, chunk, write_cases
from hostilekit import assert_clean_error, assert_no_traceback, run_cli

REVISION = "a" * 40
CASES = (f"format: 1\ndefaults: {{revision: {REVISION}, cutoff: 3}}\ncases:\n"
         "  - {id: one, query: q, accepted: [{file: a.py}]}\n"
         "  - {id: two, query: q, accepted: [{file: b.py}]}\n")


def _run(tmp_path: Path, body: str) -> tuple[object, Path]:
    script = tmp_path / "r.py"
    script.write_text("import sys\nsys.stdin.read()\n" + body)
    (tmp_path / "cases.yaml").write_text(CASES)
    out = tmp_path / "attempts.jsonl"
    proc = run_cli("run", tmp_path / "cases.yaml", "-o", out, "-q", "--retriever",
                   f"command:{sys.executable} {script}", "--timeout", "120", timeout=240)
    return proc, out


def test_an_answer_just_under_the_cap_fails_its_attempt_and_eval_reads_the_rest(
        tmp_path: Path) -> None:
    body = ("import json\nsize = 64 * 1024 * 1024 - 40\n"
            "head = '{\"ranked\": [{\"chunk_id\": \"c\", \"file\": \"a.py\", \"excerpt\": \"'\n"
            "tail = '\"}]}'\n"
            "sys.stdout.write(head + 'a' * (size - len(head) - len(tail)) + tail)\n")
    proc, out = _run(tmp_path, body)
    assert_no_traceback(proc)  # type: ignore[arg-type]
    assert proc.returncode == 3, proc.stderr[-2000:]  # type: ignore[attr-defined]
    lines = out.read_bytes().splitlines()
    assert len(lines) == 2 and all(len(line) < 64 * 1024**2 for line in lines)
    assert all("MiB" in json.loads(line)["error"] for line in lines)
    evaluated = run_cli("eval", tmp_path / "cases.yaml", out, "-o", tmp_path / "r.json", "-q",
                        timeout=120)
    assert_no_traceback(evaluated)
    assert evaluated.returncode in (0, 1), evaluated.stderr[-2000:]


def test_millions_of_tiny_chunks_are_one_error_attempt_fast(tmp_path: Path) -> None:
    body = ("sys.stdout.write('[' + ','.join(['{\"chunk_id\":\"c\",\"file\":\"a\"}'] * 2_200_000)"
            " + ']')\n")
    started = time.monotonic()
    proc, out = _run(tmp_path, body)
    assert_no_traceback(proc)  # type: ignore[arg-type]
    assert proc.returncode == 3, proc.stderr[-2000:]  # type: ignore[attr-defined]
    assert time.monotonic() - started < 60
    attempts = [json.loads(line) for line in out.read_text().splitlines()]
    assert all("at most 10000" in a["error"] for a in attempts), attempts


def test_an_attempt_with_too_many_chunks_is_refused_by_eval(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "a.py"}]}])
    line = attempt("a", "c", [chunk(f"c{i}", "a.py") for i in range(25_000)])
    attempts = tmp_path / "attempts.jsonl"
    attempts.write_text(json.dumps(line) + "\n")
    proc = run_cli("eval", cases, attempts, "-o", tmp_path / "r.json", "-q", timeout=60)
    assert_clean_error(proc, contains=["25000 chunks", "at most 10000", "attempts.jsonl:1"])


def test_index_parse_of_a_device_is_one_clean_error() -> None:
    proc = run_cli("index", "parse", "/dev/zero", "--text", timeout=60)
    assert_clean_error(proc, contains=["/dev/zero", "larger than"])


@pytest.mark.parametrize("value", ["1e10", "86401"])
def test_a_timeout_no_timer_takes_is_refused(tmp_path: Path, value: str) -> None:
    (tmp_path / "cases.yaml").write_text(CASES)
    proc = run_cli("run", tmp_path / "cases.yaml", "-o", tmp_path / "a.jsonl", "--retriever",
                   "http://127.0.0.1:9/x", "--timeout", value, timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "at most 86400" in proc.stderr


class _Busy(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_the_wait_between_retries_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(http.time, "sleep", waits.append)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Busy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/x"
        with pytest.raises(Exception, match="503"):
            http.post_json(url, b"{}", policy=http.HttpPolicy(timeout=5, retries=8))
    finally:
        server.shutdown()
        server.server_close()
    assert len(waits) == 8
    assert max(waits) <= 8.0 and sum(waits) <= 60, waits
