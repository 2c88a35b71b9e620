"""command:, http:// and python: retrievers: good answers, crashes, hangs, bad JSON."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from fake_retrievers import REVISION, SCRIPT_BAD_JSON, SCRIPT_CRASH, SCRIPT_HANG, SCRIPT_OK

from codegold.adapters.command import CommandRetriever
from codegold.adapters.http import HttpRetriever
from codegold.adapters.protocol import RetrievalRequest
from codegold.adapters.python import PythonRetriever
from codegold.adapters.registry import RetrieverOptions, make_retriever
from codegold.errors import InputError, RetrieverError

HERE = Path(__file__).parent
REQUEST = RetrievalRequest(case_id="c1", query="login flow", k=4, revision=REVISION)


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "retriever.py"
    path.write_text(body)
    return f"{sys.executable} {path}"


def test_command_answers(tmp_path: Path) -> None:
    retriever = CommandRetriever(_script(tmp_path, SCRIPT_OK.format(here=str(HERE))), timeout=20)
    response = retriever.retrieve(REQUEST)
    assert [c.file for c in response.ranked][:2] == ["src/login.py", "src/other.py"]
    assert len(response.ranked) == 4
    assert response.manifest is not None and response.manifest.revision == REVISION


def test_command_crash_names_status_and_stderr(tmp_path: Path) -> None:
    retriever = CommandRetriever(_script(tmp_path, SCRIPT_CRASH), timeout=20)
    with pytest.raises(RetrieverError, match=r"exited with status 3: boom: database locked"):
        retriever.retrieve(REQUEST)


def test_command_hang_times_out(tmp_path: Path) -> None:
    retriever = CommandRetriever(_script(tmp_path, SCRIPT_HANG), timeout=0.5)
    started = time.perf_counter()
    with pytest.raises(RetrieverError, match=r"timed out after 0\.5s"):
        retriever.retrieve(REQUEST)
    assert time.perf_counter() - started < 10


def test_command_bad_json(tmp_path: Path) -> None:
    retriever = CommandRetriever(_script(tmp_path, SCRIPT_BAD_JSON), timeout=20)
    with pytest.raises(RetrieverError, match="invalid JSON"):
        retriever.retrieve(REQUEST)


def test_command_missing_program() -> None:
    with pytest.raises(RetrieverError, match="could not start"):
        CommandRetriever("/nonexistent/retriever --flag").retrieve(REQUEST)


def test_python_function_forms() -> None:
    assert PythonRetriever("fake_retrievers:answer").retrieve(REQUEST).ranked[0].file == "src/login.py"
    assert len(PythonRetriever("fake_retrievers:as_list").retrieve(REQUEST).ranked) == 4
    with pytest.raises(RetrieverError, match="raised ValueError: index offline"):
        PythonRetriever("fake_retrievers:explode").retrieve(REQUEST)
    with pytest.raises(RetrieverError, match="not a retrieval response"):
        PythonRetriever("fake_retrievers:wrong_shape").retrieve(REQUEST)
    with pytest.raises(InputError, match="no function"):
        PythonRetriever("fake_retrievers:nope")


class _Server:
    """A local HTTP retriever whose behaviour per request is scripted by a list of actions."""

    def __init__(self, actions: list[str]) -> None:
        self.actions = actions
        self.calls = 0
        self.bodies: list[dict[str, object]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.bodies.append(body)
                action = outer.actions[min(outer.calls, len(outer.actions) - 1)]
                outer.calls += 1
                if action == "hang":
                    time.sleep(2)
                    return
                if action.isdigit():
                    self.send_response(int(action))
                    self.end_headers()
                    return
                from fake_retrievers import answer

                payload = b"{oops" if action == "bad" else json.dumps(answer(body)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/retrieve"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[type[_Server]]:
    made: list[_Server] = []

    class Factory(_Server):
        def __init__(self, actions: list[str]) -> None:
            super().__init__(actions)
            made.append(self)

    yield Factory
    for s in made:
        s.close()


def test_http_answers(server: type[_Server]) -> None:
    s = server(["ok"])
    response = HttpRetriever(s.url, timeout=5).retrieve(REQUEST)
    assert response.ranked[0].file == "src/login.py"
    assert s.bodies[0]["case_id"] == "c1" and s.bodies[0]["k"] == 4


def test_http_retries_5xx_with_backoff(server: type[_Server]) -> None:
    s = server(["503", "500", "ok"])
    started = time.perf_counter()
    response = HttpRetriever(s.url, timeout=5, retries=2, backoff=0.1).retrieve(REQUEST)
    assert response.ranked and s.calls == 3
    assert time.perf_counter() - started >= 0.1 + 0.2  # backoff doubled between tries


def test_http_gives_up_and_does_not_retry_4xx(server: type[_Server]) -> None:
    s = server(["503"])
    with pytest.raises(RetrieverError, match=r"after 3 tries: HTTP 503"):
        HttpRetriever(s.url, timeout=5, retries=2, backoff=0.01).retrieve(REQUEST)
    t = server(["404"])
    with pytest.raises(RetrieverError, match="HTTP 404"):
        HttpRetriever(t.url, timeout=5, retries=2, backoff=0.01).retrieve(REQUEST)
    assert t.calls == 1


def test_http_timeout_and_bad_json(server: type[_Server]) -> None:
    s = server(["hang"])
    with pytest.raises(RetrieverError, match="timed out"):
        HttpRetriever(s.url, timeout=0.3, retries=1, backoff=0.01).retrieve(REQUEST)
    assert s.calls == 2
    b = server(["bad"])
    with pytest.raises(RetrieverError, match="invalid JSON"):
        HttpRetriever(b.url, timeout=5).retrieve(REQUEST)


def test_registry_schemes() -> None:
    options = RetrieverOptions(timeout=3.0)
    assert isinstance(make_retriever("command:echo hi", options), CommandRetriever)
    assert isinstance(make_retriever("http://127.0.0.1:1/x", options), HttpRetriever)
    assert isinstance(make_retriever("python:fake_retrievers:answer", options), PythonRetriever)
    with pytest.raises(InputError, match="unknown retriever"):
        make_retriever("ftp://x", options)
    with pytest.raises(InputError, match="needs something after"):
        make_retriever("command:", options)
