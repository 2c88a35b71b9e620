"""Credentials given to an HTTP retriever or embedder never reach attempts, errors or the
terminal: not the ``user:password@`` of its URL, not secret query values, not a request
header a server echoes back into its error page."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.adapters.http import HttpRetriever
from codegold.adapters.protocol import RetrievalRequest
from codegold.cli.main import cli
from codegold.errors import RetrieverError
from codegold.plumbing.http import HttpPolicy, post_json, redact_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plumbing"))
from rawserver import serve

PASSWORD = "pw-Zx81kQ2mP9vL"
TOKEN = "tok-4rT7wY3nB6cF"
BEARER = "sk-live-0123456789abcdefXYZ"


def _echo(status: str = "500 Internal Server Error"):  # type: ignore[no-untyped-def]
    """Answer every request with its own head (headers included) as the error body."""
    def handle(conn, request: bytes) -> None:  # type: ignore[no-untyped-def]
        head = request.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
        # what a debugging proxy shows: the request line and its credentials first
        body = b"\n".join([head[0], *(h for h in head if b"authoriz" in h.lower()
                                       or b"api-key" in h.lower()), *head[1:]])
        conn.sendall(f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\nConnection: close"
                     "\r\n\r\n".encode() + body)
    return handle


def test_redact_url_removes_userinfo_and_secret_parameters() -> None:
    assert redact_url(f"https://bob:{PASSWORD}@h.example/x?api_key={TOKEN}&q=1") == \
        "https://<redacted>@h.example/x?api_key=<redacted>&q=1"
    assert redact_url("http://h/x?page=2") == "http://h/x?page=2"


def test_an_echoed_authorization_header_is_not_in_the_error() -> None:
    with serve(_echo()) as url, pytest.raises(RetrieverError) as caught:
        post_json(url + "/embed", b"{}", headers={"Authorization": f"Bearer {BEARER}",
                                                   "X-Api-Key": TOKEN},
                  policy=HttpPolicy(timeout=2.0, retries=0))
    message = str(caught.value)
    assert "HTTP 500" in message
    assert BEARER not in message and TOKEN not in message


def test_the_retriever_url_credentials_are_not_in_its_errors() -> None:
    with serve(_echo()) as base:
        url = base.replace("http://", f"http://bob:{PASSWORD}@") + f"/r?token={TOKEN}"
        retriever = HttpRetriever(url, retries=0, timeout=2.0)
        with pytest.raises(RetrieverError) as caught:
            retriever.retrieve(RetrievalRequest(case_id="c", query="q", k=3, revision="a" * 40))
    assert PASSWORD not in str(caught.value) and TOKEN not in str(caught.value)


def test_attempts_and_the_terminal_never_hold_the_credentials(cases_file: Path,
                                                              tmp_path: Path) -> None:
    out = tmp_path / "attempts.jsonl"
    with serve(_echo()) as base:
        url = base.replace("http://", f"http://bob:{PASSWORD}@") + f"/r?token={TOKEN}"
        done = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(out), "--retriever",
                                        url, "--retries", "0"])
    text = out.read_text(encoding="utf-8")
    attempts = [json.loads(line) for line in text.splitlines()]
    assert attempts and all(a["error"] for a in attempts)
    assert all("<redacted>" in a["retriever"] for a in attempts)
    for secret in (PASSWORD, TOKEN):
        assert secret not in text
        assert secret not in done.output
