"""``mcp:`` retrievers against a real MCP server made with the SDK (tests/adapters/
mcp_fake_server.py), over stdio and Streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from recipe_fakes import BILLING, LOGIN

from codegold.adapters.mcp import McpSettings
from codegold.adapters.protocol import RetrievalRequest
from codegold.adapters.registry import RetrieverOptions, make_retriever
from codegold.cli.main import cli
from codegold.errors import InputError, RetrieverError
from codegold.evaluate import evaluate_files
from codegold.index import build_index
from gitrepo import Repo

pytest.importorskip("mcp")

SERVER = Path(__file__).resolve().parent / "mcp_fake_server.py"


def stdio(mode: str) -> str:
    return f"mcp:stdio:{sys.executable} {SERVER} {mode}"


def _request(query: str = "login flow", k: int = 3) -> RetrievalRequest:
    return RetrievalRequest(case_id="c1", query=query, k=k, revision="a" * 40)


def _retriever(spec: str, timeout: float = 20, **settings: str) -> object:
    return make_retriever(spec, RetrieverOptions(timeout=timeout, mcp=McpSettings(**settings)))


def _run(cases: Path, out: Path, spec: str, *extra: str) -> list[dict[str, object]]:
    done = CliRunner().invoke(cli, ["run", str(cases), "-o", str(out), "--quiet",
                                    "--retriever", spec, "--timeout", "20", *extra])
    assert done.exit_code in (0, 3), done.output
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_structured_hits_become_ranked_chunks_over_stdio(cases_file: Path,
                                                          tmp_path: Path) -> None:
    attempts = _run(cases_file, tmp_path / "a.jsonl", stdio("structured"))
    assert [a["case_id"] for a in attempts] == ["login", "billing", "search"]
    assert all(a.get("error") is None for a in attempts), attempts
    first = attempts[0]["ranked"]
    assert isinstance(first, list) and len(first) == 10  # k (the default depth), as limit
    assert first[0]["file"] == "src/login.py"
    assert (first[0]["start_line"], first[0]["end_line"]) == (1, 2)
    assert first[0]["revision"] == "a" * 40 and first[0]["score"] == 3.0
    assert attempts[1]["ranked"][0]["file"] == "src/billing.py"  # type: ignore[index]


def test_the_default_arguments_follow_the_tool_schema() -> None:
    retriever = _retriever(stdio("structured"), tool="search_code")
    try:
        response = retriever.retrieve(_request(k=2))  # type: ignore[attr-defined]
        assert [c.file for c in response.ranked] == ["src/login.py", "src/other0.py"]
    finally:
        retriever.close()  # type: ignore[attr-defined]


def test_one_server_serves_every_case_initialised_once() -> None:
    retriever = _retriever(stdio("count"))
    try:
        files = [retriever.retrieve(_request()).ranked[0] for _ in range(3)]  # type: ignore[attr-defined]
    finally:
        retriever.close()  # type: ignore[attr-defined]
    assert len({c.file for c in files}) == 1  # one process
    assert [c.start_line for c in files] == [1, 2, 3]  # its call counter


def test_grep_lines_join_adjacent_hits_and_drop_dot_slash() -> None:
    retriever = _retriever(stdio("grep"), parse="grep")
    try:
        ranked = retriever.retrieve(_request()).ranked  # type: ignore[attr-defined]
    finally:
        retriever.close()  # type: ignore[attr-defined]
    assert [(c.file, c.start_line, c.end_line) for c in ranked] == [
        ("src/login.py", 1, 2), ("src/x.py", 9, 9)]
    assert ranked[0].excerpt == "def login():\n    pass"


def test_two_search_like_tools_name_every_tool_in_the_error() -> None:
    retriever = _retriever(stdio("two"))
    try:
        with pytest.raises(RetrieverError, match=r"search_code, read_file, find_symbol.*--mcp-tool"):
            retriever.retrieve(_request())  # type: ignore[attr-defined]
        with pytest.raises(RetrieverError, match="has no tool 'nope'; it lists: search_code"):
            _retriever(stdio("two"), tool="nope").retrieve(_request())  # type: ignore[attr-defined]
    finally:
        retriever.close()  # type: ignore[attr-defined]


def test_a_tool_error_is_an_error_attempt_and_the_server_stays(cases_file: Path,
                                                               tmp_path: Path) -> None:
    attempts = _run(cases_file, tmp_path / "a.jsonl", stdio("failing"))
    assert len(attempts) == 3
    assert all("tool 'search' reported an error" in str(a["error"]) for a in attempts), attempts


def test_a_crashing_server_is_restarted_for_the_next_case() -> None:
    retriever = _retriever(stdio("crash-after-1"))
    try:
        assert retriever.retrieve(_request()).ranked  # type: ignore[attr-defined]
        with pytest.raises(RetrieverError, match=r"exited with status 7.*giving up"):
            retriever.retrieve(_request())  # type: ignore[attr-defined]
        assert retriever.retrieve(_request()).ranked  # type: ignore[attr-defined]  # a new process
    finally:
        retriever.close()  # type: ignore[attr-defined]


def test_bad_settings_are_input_errors_before_any_case() -> None:
    with pytest.raises(InputError, match="unknown field"):
        _retriever(stdio("grep"), arguments='{"q": "{quest}"}')
    with pytest.raises(InputError, match="not JSON"):
        _retriever(stdio("grep"), arguments="{query}")
    with pytest.raises(InputError, match="no checkout was given"):
        _retriever(stdio("disk"), arguments='{"query": "{query}", "root": "{checkout}"}')
    with pytest.raises(InputError, match="unknown 'mcp_parse'"):
        _retriever(stdio("grep"), parse="nope")
    with pytest.raises(InputError, match="expected mcp:stdio:COMMAND"):
        _retriever("mcp:ftp://x")


def test_mcp_options_need_an_mcp_retriever(cases_file: Path, tmp_path: Path) -> None:
    done = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(tmp_path / "a.jsonl"),
                                    "--retriever", "python:fake_retrievers:answer",
                                    "--mcp-tool", "search"])
    assert done.exit_code == 2 and "only apply to mcp: retrievers" in done.output


def test_a_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "codegold.adapters.mcp.client", None)
    with pytest.raises(Exception, match=r"pip install 'codegold\[mcp\]'"):
        _retriever(stdio("grep"))


@pytest.fixture(scope="module")
def repo_setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    folder = tmp_path_factory.mktemp("mcprepo")
    repo = Repo(folder / "repo")
    sha = repo.commit({"src/billing.py": BILLING, "src/login.py": LOGIN,
                       ".gitattributes": "*.py filter=evil\n"})
    build_index(str(repo.path), sha, folder / "idx" / sha)
    cases = folder / "cases.yaml"
    cases.write_text(f"""format: 1
defaults: {{repository: acme/shop, revision: {sha}, cutoff: 2}}
cases:
  - id: refund
    query: where is refund defined
    accepted: [{{file: src/billing.py, symbol: refund}}]
  - id: total
    query: invoice_total function
    accepted: [{{file: src/billing.py, symbol: invoice_total}}]
""")
    return cases, folder / "idx", repo.path


def test_a_checkout_of_the_pinned_revision_is_searched_and_resolved(
        repo_setup: tuple[Path, Path, Path], tmp_path: Path) -> None:
    cases, idx, repo = repo_setup
    out = tmp_path / "a.jsonl"
    before = set(Path("/tmp").glob("codegold-mcp-*"))
    attempts = _run(cases, out, stdio("disk"), "--index", str(idx), "--resolve",
                    "--repo", str(repo),
                    "--mcp-args", '{"query": "{query}", "root": "{checkout}"}')
    assert all(a.get("error") is None for a in attempts), attempts
    ranked = attempts[0]["ranked"]
    assert isinstance(ranked, list)
    # Absolute paths under the checkout come back repository-relative.
    assert ranked[0]["file"] == "src/billing.py" and ranked[0]["start_line"] == 5
    assert ranked[0]["resolved"]["symbols"] == ["refund"]
    results = evaluate_files(str(cases), str(out))
    assert [r.status for r in results.cases] == ["pass", "pass"]
    assert set(Path("/tmp").glob("codegold-mcp-*")) == before  # the work tree is gone


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), "structured", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the MCP test server did not listen within 20 s")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_streamable_http_serves_the_same_answers(http_server: str, cases_file: Path,
                                                 tmp_path: Path) -> None:
    attempts = _run(cases_file, tmp_path / "a.jsonl", "mcp:" + http_server,
                    "--mcp-tool", "search_code",
                    "--mcp-args", '{"query": "{query}", "limit": "{k}"}')
    assert all(a.get("error") is None for a in attempts), attempts
    assert [a["ranked"][0]["file"] for a in attempts] == [  # type: ignore[index]
        "src/login.py", "src/billing.py", "src/search.py"]


def test_an_http_server_that_is_not_there_is_an_error_attempt() -> None:
    retriever = _retriever(f"mcp:http://127.0.0.1:{_free_port()}/mcp", timeout=5)
    started = time.monotonic()
    try:
        with pytest.raises(RetrieverError, match=r"MCP server at http://127\.0\.0\.1"):
            retriever.retrieve(_request())  # type: ignore[attr-defined]
    finally:
        retriever.close()  # type: ignore[attr-defined]
    assert time.monotonic() - started < 15


def test_a_whole_message_over_the_cap_is_refused(tmp_path: Path) -> None:
    # One write with its newline: the cap holds for a line that arrives whole, too.
    script = tmp_path / "big.py"
    script.write_text("import sys\nsys.stdin.readline()\n"
                      "sys.stdout.write('x' * 5000 + '\\n'); sys.stdout.flush()\n"
                      "sys.stdin.read()\n")
    retriever = make_retriever(f"mcp:stdio:{sys.executable} {script}",
                               RetrieverOptions(timeout=10, max_answer_bytes=1000))
    try:
        with pytest.raises(RetrieverError, match="more than 1000 bytes"):
            retriever.retrieve(_request())  # type: ignore[attr-defined]
    finally:
        retriever.close()  # type: ignore[attr-defined]


class _Silent(BaseHTTPRequestHandler):
    """Reads the request, then never answers (until the test ends)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        time.sleep(30)

    def log_message(self, *args: object) -> None:
        pass


class _Flood(_Silent):
    """Answers every POST with a JSON body far over the cap."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = b'{"jsonrpc": "2.0", "id": 0, "result": {"x": "' + b"y" * 50_000 + b'"}}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def local_http() -> Iterator[Callable[[type[BaseHTTPRequestHandler]], str]]:
    servers: list[ThreadingHTTPServer] = []

    def start(handler: type[BaseHTTPRequestHandler]) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/mcp"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_an_http_server_that_never_answers_is_cut_off(
        local_http: Callable[[type[BaseHTTPRequestHandler]], str]) -> None:
    retriever = _retriever("mcp:" + local_http(_Silent), timeout=2)
    started = time.monotonic()
    try:
        with pytest.raises(RetrieverError, match="did not answer initialize within 2s"):
            retriever.retrieve(_request())  # type: ignore[attr-defined]
    finally:
        retriever.close()  # type: ignore[attr-defined]
    assert time.monotonic() - started < 15


def test_an_http_answer_over_the_cap_is_refused(
        local_http: Callable[[type[BaseHTTPRequestHandler]], str]) -> None:
    retriever = make_retriever("mcp:" + local_http(_Flood),
                               RetrieverOptions(timeout=10, max_answer_bytes=1000))
    try:
        with pytest.raises(RetrieverError, match="more than 1000 bytes"):
            retriever.retrieve(_request())  # type: ignore[attr-defined]
    finally:
        retriever.close()  # type: ignore[attr-defined]


def test_after_two_failed_starts_later_cases_fail_at_once(tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text("import sys\nsys.stderr.write('no config\\n')\nsys.exit(5)\n")
    retriever = _retriever(f"mcp:stdio:{sys.executable} {script}", timeout=10)
    try:
        for _ in range(2):
            with pytest.raises(RetrieverError, match=r"exited with status 5.*no config"):
                retriever.retrieve(_request())  # type: ignore[attr-defined]
        started = time.monotonic()
        with pytest.raises(RetrieverError) as caught:
            retriever.retrieve(_request())  # type: ignore[attr-defined]
        assert time.monotonic() - started < 1
    finally:
        retriever.close()  # type: ignore[attr-defined]
    message = str(caught.value)
    assert "is not started again after 2 failed starts: exited with status 5" in message
    assert message.count("MCP server") == 1
