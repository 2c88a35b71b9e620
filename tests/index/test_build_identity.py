"""What an index holds does not depend on how fast the build writes it.

A digest of every table's rows of two builds (the bundled acme-shop example and a small
repository with one file per language and awkward content) is compared with digests
recorded before the build was made faster. The chunker version and the codegold version
are pinned while building, so the digests move only when rows do: a change to chunking
(a query file, a chunk boundary rule) moves them on purpose, and the golden file is then
re-recorded with ``CODEGOLD_UPDATE_GOLDEN=1``; a change to the build driver, the writer or
the tokeniser must never move them. Builds through the incremental path and the chunk
store must give the same rows as a build from scratch.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import signal
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import codegold.index.build.chunking as chunking_module
import codegold.index.build.reuse as reuse_module
import codegold.index.build.stamps as stamps_module
import codegold.index.chunker as chunker_module
from codegold.errors import CodeIndexError, InputError
from codegold.index import build_index
from codegold.index.chunkstore import ChunkStore
from codegold.index.store import INDEX_FILE, MANIFEST_FILE, token_fields
from gitrepo import Repo

GOLDEN = Path(__file__).parent / "golden" / "build_digests.json"
UPDATE = os.environ.get("CODEGOLD_UPDATE_GOLDEN") == "1"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
FIXTURES = Path(__file__).parent / "fixtures"
PINNED = "pinned-for-tests"

# Rows of each table in an order that does not depend on row ids, plus the chunk ids in
# row-id order (what a build from scratch fixes: the lexical engine numbers documents so).
_QUERIES = {
    "meta": "SELECT key, value FROM meta ORDER BY key",
    "files": "SELECT * FROM files ORDER BY path",
    "chunks": "SELECT c.id, c.file, c.start_line, c.end_line, c.symbol, c.symbols, c.kind, "
              "c.role, c.language, c.blob_sha, c.parent_id, c.prev_id, c.next_id, "
              "c.has_signature, c.text, t.symbols, t.path, t.body FROM chunks c "
              "JOIN tokens t ON t.rowid = c.rowid ORDER BY c.id",
    "symbols": "SELECT * FROM symbols ORDER BY file, start_line, end_line, qualified, kind, "
               "chunk_id, header_line, name, role",
    "refs": "SELECT * FROM refs ORDER BY file, line, name, chunk_id",
    "orphan_tokens": "SELECT rowid FROM tokens WHERE rowid NOT IN (SELECT rowid FROM chunks)",
}


def table_digests(index: Path, *, with_order: bool = True) -> dict[str, str]:
    """sha256 of each table's rows (JSON lines), the manifest without its timestamp, and
    (``with_order``) the chunk ids in row-id order."""
    out: dict[str, str] = {}
    with sqlite3.connect(index / INDEX_FILE) as conn:
        queries = dict(_QUERIES)
        if with_order:
            queries["chunk_order"] = "SELECT id FROM chunks ORDER BY rowid"
        for name, sql in queries.items():
            digest = hashlib.sha256()
            count = 0
            for row in conn.execute(sql):
                digest.update(json.dumps(row, ensure_ascii=False).encode("utf-8",
                                                                         "surrogatepass"))
                digest.update(b"\n")
                count += 1
            out[name] = f"{count}:{digest.hexdigest()[:24]}"
    manifest = json.loads((index / MANIFEST_FILE).read_text(encoding="utf-8"))
    manifest.pop("created_at")
    out["manifest"] = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()
                                     ).hexdigest()[:24]
    return out


@pytest.fixture(autouse=True)
def _pinned_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    # The real chunker version fingerprints the chunker's sources, so any edit to them
    # would move every digest; pinned, only a change in rows does.
    monkeypatch.setattr(chunker_module, "CHUNKER_VERSION", PINNED)
    # the build's homes of both: what it stamps, and what it may reuse
    monkeypatch.setattr(stamps_module, "CHUNKER_VERSION", PINNED)
    monkeypatch.setattr(reuse_module, "CHUNKER_VERSION", PINNED)
    monkeypatch.setattr(stamps_module, "__version__", PINNED)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


def _check_golden(name: str, found: dict[str, str]) -> None:
    recorded: dict[str, dict[str, str]] = (
        json.loads(GOLDEN.read_text(encoding="utf-8")) if GOLDEN.exists() else {})
    if UPDATE:
        recorded[name] = found
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n",
                          encoding="utf-8")
        return
    assert name in recorded, f"no digests for {name} in {GOLDEN}; run with CODEGOLD_UPDATE_GOLDEN=1"
    changed = {table: (recorded[name].get(table), digest) for table, digest in found.items()
               if recorded[name].get(table) != digest}
    assert not changed, (f"{name}: rows differ from the recorded build in {sorted(changed)}; "
                         "if chunking changed on purpose, re-record with "
                         "CODEGOLD_UPDATE_GOLDEN=1")


def _awkward_files() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {}
    for fixture in sorted(FIXTURES.iterdir()):
        files[f"src/{fixture.name}"] = fixture.read_bytes()
    python = (FIXTURES / "session_service.py").read_bytes()
    files.update({
        "copy/session_service.py": python,  # the same blob at a second path
        "tests/test_session.py": b"from app import session\n\n\ndef test_it():\n"
                                 b"    assert session.createSession('x')\n",
        "crlf.py": python.replace(b"\n", b"\r\n"),
        "odd_separators.py": "def f():\n    x = 'a\u2028b'  # HTTPServer\x0cparse_URL\n"
                             "    return x\n\nclass \u00c9t\u00e9:\n    caf\u00e9 = 1\n",
        "broken.py": "def ok():\n    return 1\n\ndef broken(:\n    pass\n",
        "mostly_broken.py": "(((\n" * 20 + "def fine():\n    pass\n",
        "invalid_utf8.py": b"def f():\n    return '\xff\xfe'\n",
        "binary.bin": b"\x00\x01\x02" * 100,
        "empty.py": b"",
        "blank.ts": b"\n\n   \n",
        "docs/guide.md": "# Guide\n\nUse `createSession` to start.\n\n## Details\n\nMore.\n",
        "docs/api.rst": "API\n===\n\n.. function:: create_session(user)\n\n   Starts one.\n",
        "config/app.yaml": "server:\n  port: 8080\n  hosts: [a, b]\nretry: 3\n",
        "package.json": '{"name": "shop", "version": "1.0.0"}\n',
        "pyproject.toml": '[project]\nname = "shop"\nversion = "1"\n',
        "vendor/lib/thing.py": "def vendored():\n    return 0\n",
        "examples/demo.py": "from shop import main\nmain()\n",
        "dist/app.min.js": "function a(){return 1};" * 400 + "\n",
        "notes.txt": "plain words, snake_case and camelCase and HTTPServer2Go\n" * 3,
        "Makefile": "all:\n\tpython -m shop\n",
        "big_class.py": "class Big:\n" + "".join(
            f"    def method_{i}(self, value_{i}):\n" + "".join(
                f"        total_{k} = value_{i} * {k} + self.helper_{k}()\n"
                for k in range(12)) + "        return total_0\n\n" for i in range(30)),
    })
    return files


@dataclass(frozen=True)
class Sources:
    repos: dict[str, Path]
    revisions: dict[str, str]


@pytest.fixture(scope="module")
def example_and_awkward(tmp_path_factory: pytest.TempPathFactory) -> Sources:
    root = tmp_path_factory.mktemp("identity")
    spec = importlib.util.spec_from_file_location("acme_build_example_identity",
                                                  EXAMPLE / "build_example.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = script  # its dataclasses look their module up there
    spec.loader.exec_module(script)
    shas = script.build(root / "acme")
    awkward = Repo(root / "awkward")
    first = awkward.commit(_awkward_files(), "first")
    second = awkward.commit({"src/handlers.py": (FIXTURES / "handlers.py").read_text()
                             + "\n\ndef added():\n    return handlers()\n",
                             "crlf.py": None, "new/added.go": "package added\n\nfunc A() {}\n"},
                            "second")
    return Sources(repos={"acme": root / "acme", "awkward": awkward.path},
                   revisions={"acme_v1": shas["v1"], "acme_v2": shas["v2"],
                              "awkward_first": first, "awkward_second": second})


def _build(sources: Sources, repo: str, revision: str, out: Path, *,
           reuse_from: Path | None = None, store: ChunkStore | None = None,
           jobs: int | None = None) -> Path:
    build_index(sources.repos[repo], sources.revisions[revision], out, repository=repo,
                reuse_from=reuse_from, store=store, jobs=jobs)
    return out


@pytest.mark.parametrize(("name", "repo", "revision", "jobs"), [
    ("acme-v1", "acme", "acme_v1", 1), ("acme-v2", "acme", "acme_v2", 1),
    ("acme-v2", "acme", "acme_v2", 3),
    ("awkward-first", "awkward", "awkward_first", 1),
    ("awkward-first", "awkward", "awkward_first", 2),
    ("awkward-second", "awkward", "awkward_second", 1)])
def test_rows_match_the_recorded_build(example_and_awkward: Sources, tmp_path: Path, name: str,
                                       repo: str, revision: str, jobs: int) -> None:
    """One process or several worker processes: the same rows, in the same row order."""
    index = _build(example_and_awkward, repo, revision, tmp_path / "index", jobs=jobs)
    _check_golden(name, table_digests(index))


def test_incremental_and_store_builds_hold_the_same_rows(example_and_awkward: Sources,
                                                         tmp_path: Path) -> None:
    repos = example_and_awkward
    scratch = _build(repos, "awkward", "awkward_second", tmp_path / "scratch")
    _build(repos, "awkward", "awkward_first", tmp_path / "first")
    incremental = _build(repos, "awkward", "awkward_second", tmp_path / "incremental",
                         reuse_from=tmp_path / "first")
    store = ChunkStore.open(tmp_path / "store")
    _build(repos, "awkward", "awkward_first", tmp_path / "store_first", store=store, jobs=2)
    # a store object that built nothing yet reads every unchanged file from the store
    store = ChunkStore.open(tmp_path / "store")
    via_store = _build(repos, "awkward", "awkward_second", tmp_path / "store_second",
                       store=store)
    assert store.hits > 0 and store.unwritten == 0
    expected = table_digests(scratch)
    assert table_digests(via_store) == expected
    # one that built the first revision starts the second from a copy of that index
    store = ChunkStore.open(tmp_path / "store")
    _build(repos, "awkward", "awkward_first", tmp_path / "derived_first", store=store)
    hits = store.hits
    derived = _build(repos, "awkward", "awkward_second", tmp_path / "derived", store=store)
    # only the two changed files (stored by the build above) come from the store
    assert store.hits - hits == 2
    assert table_digests(derived, with_order=False) == table_digests(scratch, with_order=False)
    # Entries written from worker results read back as the same rows.
    again = _build(repos, "awkward", "awkward_first", tmp_path / "store_again", store=store)
    assert table_digests(again) == table_digests(tmp_path / "store_first")
    assert table_digests(incremental, with_order=False) == \
        table_digests(scratch, with_order=False)


def test_token_rows_equal_tokenising_each_chunk_alone(example_and_awkward: Sources,
                                                      tmp_path: Path) -> None:
    from codegold.index import IndexReader

    index = _build(example_and_awkward, "awkward", "awkward_first", tmp_path / "index")
    with sqlite3.connect(index / INDEX_FILE) as conn:
        stored = {str(row[0]): (row[1], row[2], row[3]) for row in conn.execute(
            "SELECT c.id, t.symbols, t.path, t.body FROM chunks c "
            "JOIN tokens t ON t.rowid = c.rowid")}
    with IndexReader.open(index) as reader:
        chunks = reader.get_many(sorted(stored))
    assert len(chunks) == len(stored) > 100
    for chunk in chunks:
        assert stored[chunk.id] == token_fields(chunk), chunk.id


def _die_on_handlers(path: str, data: bytes, **kwargs: str) -> object:
    if path.endswith("handlers.py"):
        os.kill(os.getpid(), signal.SIGKILL)
    return _ORIGINAL_CHUNK_FILE(path, data, **kwargs)


_ORIGINAL_CHUNK_FILE = chunking_module.chunk_file


def test_a_dead_worker_is_one_clear_error_and_leaves_no_index(
        example_and_awkward: Sources, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Workers fork after the patch, so the one that gets handlers.py kills itself.
    monkeypatch.setattr(chunking_module, "chunk_file", _die_on_handlers)
    out = tmp_path / "index"
    with pytest.raises(CodeIndexError, match="worker process died"):
        _build(example_and_awkward, "awkward", "awkward_first", out, jobs=2)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


def test_jobs_below_one_is_an_input_error(example_and_awkward: Sources, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="jobs is 0"):
        _build(example_and_awkward, "awkward", "awkward_first", tmp_path / "index", jobs=0)
    assert not (tmp_path / "index").exists()
