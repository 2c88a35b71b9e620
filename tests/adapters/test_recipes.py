"""The documented recipes: LangChain-style and LlamaIndex-style retrievers through
``python:`` and an Elasticsearch-style endpoint (a local http.server), each scored with
span resolution (``run --resolve``). Shape-compatible fakes; no framework installed."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from recipe_fakes import BILLING, HITS, LOGIN

from codegold.cli.main import cli
from codegold.evaluate import evaluate_files
from codegold.index import build_index
from gitrepo import Repo

RECIPES = Path(__file__).resolve().parents[2] / "examples" / "retrievers"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    folder = tmp_path_factory.mktemp("recipes")
    repo = Repo(folder / "repo")
    sha = repo.commit({"src/billing.py": BILLING, "src/login.py": LOGIN})
    build_index(str(repo.path), sha, folder / "idx" / sha)
    cases = folder / "cases.yaml"
    cases.write_text(f"""format: 1
defaults: {{repository: acme/shop, revision: {sha}, cutoff: 2}}
cases:
  - id: total
    query: how is the invoice total computed
    accepted: [{{file: src/billing.py, symbol: invoice_total}}]
  - id: refund
    query: how are refunds computed
    accepted: [{{file: src/billing.py, symbol: refund}}]
""")
    return cases, folder / "idx", repo.path


@pytest.fixture
def recipes_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.syspath_prepend(str(RECIPES))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("langchain_recipe", "llamaindex_recipe", "elasticsearch_recipe"):
        sys.modules.pop(name, None)
    return tmp_path


def _run(setup: tuple[Path, Path, Path], out: Path, spec: str, *, resolve: bool = True
         ) -> dict[str, str]:
    cases, idx, _ = setup
    args = ["run", str(cases), "--index", str(idx), "-o", str(out), "--quiet",
            "--retriever", spec]
    result = CliRunner().invoke(cli, [*args, "--resolve"] if resolve else args)
    assert result.exit_code == 0, result.output
    return {c.case_id: c.status for c in evaluate_files(str(cases), str(out)).cases}


def _module(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(body, encoding="utf-8")


def test_langchain_style_retriever(setup: tuple[Path, Path, Path], recipes_on_path: Path) -> None:
    _module(recipes_on_path, "my_lc_search",
            "from langchain_recipe import make_search\n"
            "from recipe_fakes import FakeLangChainRetriever\n"
            f"search = make_search(FakeLangChainRetriever({str(setup[2])!r}), "
            f"root={str(setup[2])!r})\n")
    # Resolved: billing lines 1-2 hold invoice_total (rank 2), lines 5-6 refund (rank 3 > k).
    assert _run(setup, recipes_on_path / "lc.jsonl", "python:my_lc_search:search") == {
        "total": "pass", "refund": "fail"}
    # Without resolution the windows name no symbol: nothing is accepted.
    assert _run(setup, recipes_on_path / "lc2.jsonl", "python:my_lc_search:search",
                resolve=False) == {"total": "fail", "refund": "fail"}


def test_llamaindex_style_retriever(setup: tuple[Path, Path, Path],
                                    recipes_on_path: Path) -> None:
    _module(recipes_on_path, "my_li_search",
            "from llamaindex_recipe import make_search\n"
            "from recipe_fakes import FakeLlamaIndexRetriever\n"
            "search = make_search(FakeLlamaIndexRetriever())\n")
    assert _run(setup, recipes_on_path / "li.jsonl", "python:my_li_search:search") == {
        "total": "pass", "refund": "fail"}


@pytest.fixture
def es_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "body": body})
            hits = [{"_id": f"doc{i}", "_score": 10.0 - i,
                     "_source": {"path": f, "start_line": s, "end_line": e, "content": t}}
                    for i, (f, s, e, t) in enumerate(reversed(HITS))]
            data = json.dumps({"hits": {"total": {"value": 3}, "hits": hits}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_elasticsearch_style_endpoint(setup: tuple[Path, Path, Path], recipes_on_path: Path,
                                      es_server: tuple[str, list[dict[str, Any]]],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    url, seen = es_server
    monkeypatch.setenv("CODEGOLD_ES_URL", url)
    monkeypatch.setenv("CODEGOLD_ES_INDEX", "code")
    # reversed order: refund window first (rank 1), invoice_total second (rank 2)
    assert _run(setup, recipes_on_path / "es.jsonl", "python:elasticsearch_recipe:search") == {
        "total": "pass", "refund": "pass"}
    assert seen and seen[0]["path"] == "/code/_search"
    assert seen[0]["body"]["query"] == {"match": {"content": "how is the invoice total computed"}}
