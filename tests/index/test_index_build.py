"""build_index on repositories the tests create: inventory, determinism, atomicity,
incremental reuse, bad input, the reader API and the CLI."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.errors import CodeIndexError, InputError
from codegold.index import IndexReader, PathPolicy, build_index, code_tokens
from codegold.index import build as build_module
from codegold.index.build import chunking as chunking_module
from codegold.index.build import driver as driver_module
from codegold.index.store import INDEX_FILE, MANIFEST_FILE, IndexWriter
from gitrepo import Repo, git

FIXTURES = Path(__file__).parent / "fixtures"
MakeRepo = Callable[[str], Repo]


def sample_files() -> dict[str, str | bytes]:
    return {
        "src/auth/session-service.ts": (FIXTURES / "session-service.ts").read_text(),
        "src/auth/session_service.py": (FIXTURES / "session_service.py").read_text(),
        "server/server.go": (FIXTURES / "server.go").read_text(),
        "tests/test_session.py": "from auth import x\n\ndef test_x():\n    assert x() == 1\n",
        "docs/guide.md": "# Guide\nHow sessions work.\n## Expiry\nTokens expire.\n",
        "config/app.yaml": "server:\n  port: 8080\n",
        "package-lock.json": "{}\n",
        "assets/logo.bin": b"\x89PNG\0\0\0binary",
        "src/huge.txt": "x" * 3_000,
    }


@pytest.fixture
def repo(make_repo: MakeRepo) -> Repo:
    made = make_repo("shop")
    made.commit(sample_files(), "first")
    return made


def test_build_writes_complete_manifest_and_inventory(repo: Repo, tmp_path: Path) -> None:
    out = tmp_path / "idx"
    policy = PathPolicy(max_bytes=1_500)
    manifest = build_index(repo.path, "main", out, policy=policy)
    head = git(repo.path, "rev-parse", "HEAD")
    assert manifest.complete and manifest.revision == head
    assert manifest.repository == "shop"
    assert manifest.path_policy is not None and manifest.path_policy.hash == policy.hash
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk["complete"] is True and on_disk["index_build_id"] == manifest.index_build_id
    with IndexReader.open(out) as reader:
        fates = {e.path: (e.fate, e.reason) for e in reader.iter_inventory()}
        assert fates["package-lock.json"] == ("excluded", "policy: exclude 'package-lock.json'")
        assert fates["assets/logo.bin"][0] == "skipped"
        assert fates["src/huge.txt"][0] == "excluded"
        assert "too large" in (fates["src/huge.txt"][1] or "")
        assert fates["src/auth/session-service.ts"] == ("indexed", None)
        test_entry = reader.inventory("tests/test_session.py")
        assert test_entry is not None and test_entry.category == "test"
        assert {c.role for c in reader.chunks_in_file("tests/test_session.py")} == {"test"}
        assert {c.role for c in reader.chunks_in_file("docs/guide.md")} == {"docs"}
        chunks = list(reader.iter_chunks())
        assert reader.chunk_count() == len(chunks) == manifest.chunks
        assert all(c.revision == head for c in chunks)
        method = reader.definitions("SessionService.createSession")
        assert [(d.file, d.start_line, d.end_line) for d in method] == [
            ("src/auth/session-service.ts", 9, 16)]
        assert method[0].header_line == 9  # stored in symbols.header_line
        assert reader.definitions("createSession")[0].chunk_id == method[0].chunk_id
        assert {d.file for d in reader.definitions("SessionService")} == {
            "src/auth/session-service.ts", "src/auth/session_service.py"}
        assert reader.references("makeToken")[0].file == "src/auth/session-service.ts"
        hits = reader.lexical_search(code_tokens("createSession refresh token"), limit=5)
        assert hits[0][0] == method[0].chunk_id
        assert all(score > 0 for _, score in hits)
        assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
        got = reader.get_many([hits[1][0], "nope", hits[0][0]])
        assert [c.id for c in got] == [hits[1][0], hits[0][0]]
        as_chunk = got[1].to_chunk(score=1.0)
        assert as_chunk.chunk_id == got[1].id and as_chunk.revision == head
        assert reader.lexical_search(['"', "OR", "*"]) is not None  # quoted, never FTS syntax


def test_same_inputs_same_build_id_and_chunk_ids(repo: Repo, tmp_path: Path) -> None:
    first = build_index(repo.path, "main", tmp_path / "a")
    second = build_index(repo.path, "HEAD", tmp_path / "b")
    assert first.index_build_id == second.index_build_id
    with IndexReader.open(tmp_path / "a") as a, IndexReader.open(tmp_path / "b") as b:
        assert [c.id for c in a.iter_chunks()] == [c.id for c in b.iter_chunks()]
    other_policy = build_index(repo.path, "main", tmp_path / "c",
                               policy=PathPolicy(max_bytes=10))
    assert other_policy.index_build_id != first.index_build_id


def test_crash_midway_leaves_no_complete_index(repo: Repo, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "idx"
    calls = {"n": 0}
    original = IndexWriter.add_file

    def failing(self: IndexWriter, result: object, tokens: object = None,
                digest: bytes = b"") -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        original(self, result, tokens, digest)  # type: ignore[arg-type]

    monkeypatch.setattr(IndexWriter, "add_file", failing)
    with pytest.raises(KeyboardInterrupt):
        build_index(repo.path, "main", out)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [repo.path.parent / "shop"] or not any(
        p.name.startswith(".idx") for p in tmp_path.iterdir())
    with pytest.raises(CodeIndexError, match="no index"):
        IndexReader.open(out)


def test_crash_during_rebuild_keeps_previous_index(repo: Repo, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "idx"
    first = build_index(repo.path, "main", out)

    def failing(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(driver_module, "write_manifest", failing)
    with pytest.raises(RuntimeError):
        build_index(repo.path, "main", out, policy=PathPolicy(max_bytes=5))
    with IndexReader.open(out) as reader:
        assert reader.manifest.index_build_id == first.index_build_id
    assert not any(p.name.startswith(".idx.") for p in tmp_path.iterdir())



def test_the_database_is_on_disk_before_the_manifest_that_vouches_for_it(
        repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """index.sqlite is written with no journal and no syncs: after a power loss a manifest
    synced before it could name a build whose database never reached the disk. So the
    database (whole: at its final size) and its folder entry are synced first, then the
    manifest and its entry."""
    synced: list[tuple[tuple[int, int], int]] = []  # ((device, inode), size) per fsync
    real = os.fsync

    def recording(fd: int) -> None:
        status = os.fstat(fd)
        synced.append(((status.st_dev, status.st_ino), status.st_size))
        real(fd)

    monkeypatch.setattr(os, "fsync", recording)
    out = tmp_path / "idx"
    build_index(repo.path, "main", out)  # built in a sibling folder, renamed to ``out``

    def node(path: Path) -> tuple[int, int]:
        status = path.stat()
        return status.st_dev, status.st_ino

    order = [which for which, _ in synced]
    database, folder, manifest = node(out / INDEX_FILE), node(out), node(out / MANIFEST_FILE)
    assert database in order and manifest in order, order
    first_manifest = order.index(manifest)
    assert order.index(database) < first_manifest
    assert folder in order[order.index(database):first_manifest]
    assert folder in order[first_manifest:]
    assert dict(synced)[database] == (out / INDEX_FILE).stat().st_size


def test_incomplete_manifest_is_refused(repo: Repo, tmp_path: Path) -> None:
    out = tmp_path / "idx"
    build_index(repo.path, "main", out)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["complete"] = False
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CodeIndexError, match="incomplete"):
        IndexReader.open(out)


def test_incremental_build_parses_only_changed_files(repo: Repo, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    old = tmp_path / "old"
    build_index(repo.path, "main", old)
    repo.commit({"server/server.go": (FIXTURES / "server.go").read_text() + "\n// more\n"})
    parsed: list[str] = []
    original = chunking_module.chunk_file

    def counting(path: str, data: bytes, **kwargs: str) -> object:
        parsed.append(path)
        return original(path, data, **kwargs)

    monkeypatch.setattr(chunking_module, "chunk_file", counting)
    progress: list[build_module.BuildProgress] = []
    new = tmp_path / "new"
    manifest = build_index(repo.path, "main", new, reuse_from=old, progress=progress.append)
    assert parsed == ["server/server.go"]
    assert progress[-1].stage == "done" and progress[-1].reused > 0
    monkeypatch.setattr(chunking_module, "chunk_file", original)
    full = build_index(repo.path, "main", tmp_path / "full")
    assert manifest.index_build_id == full.index_build_id
    with IndexReader.open(new) as a, IndexReader.open(tmp_path / "full") as b:
        assert [(c.id, c.revision, c.role, c.text) for c in a.iter_chunks()] == [
            (c.id, c.revision, c.role, c.text) for c in b.iter_chunks()]
        assert [(e.path, e.fate) for e in a.iter_inventory()] == [
            (e.path, e.fate) for e in b.iter_inventory()]
        assert a.lexical_search(["session"], limit=50) == b.lexical_search(["session"], limit=50)
        assert a.definitions("Server.Handle") == b.definitions("Server.Handle")


def test_rebuilding_into_same_dir_reuses_it(repo: Repo, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "idx"
    build_index(repo.path, "main", out)
    repo.commit({"docs/guide.md": "# Guide\nChanged.\n"})
    progress: list[build_module.BuildProgress] = []
    build_index(repo.path, "main", out, progress=progress.append)
    assert progress[-1].parsed == 1


def test_symlinks_and_submodules_are_skipped(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo("links")
    repo.commit({"a.py": "def a():\n    return 1\n"})
    os.symlink("/etc/passwd", repo.path / "escape.py")
    head = git(repo.path, "rev-parse", "HEAD")
    git(repo.path, "update-index", "--add", "--cacheinfo", f"160000,{head},deps/sub")
    git(repo.path, "add", "escape.py")
    git(repo.path, "commit", "-q", "-m", "links")
    build_index(repo.path, "main", tmp_path / "idx")
    with IndexReader.open(tmp_path / "idx") as reader:
        link = reader.inventory("escape.py")
        sub = reader.inventory("deps/sub")
        assert link is not None and (link.fate, link.reason) == ("skipped",
                                                                 "symlink: never followed")
        assert sub is not None and sub.fate == "skipped" and "submodule" in (sub.reason or "")
        assert reader.chunks_in_file("escape.py") == []


def test_bad_inputs_raise_clear_errors(make_repo: MakeRepo, repo: Repo, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a git repository"):
        build_index(tmp_path, "main", tmp_path / "x")
    with pytest.raises(InputError, match="unknown revision 'nope'"):
        build_index(repo.path, "nope", tmp_path / "x")
    empty = make_repo("empty")
    with pytest.raises(InputError, match="no commits"):
        build_index(empty.path, "main", tmp_path / "x")
    first = git(repo.path, "rev-parse", "HEAD")
    repo.commit({"b.py": "x = 1\n"})
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.path}", str(shallow))
    with pytest.raises(InputError, match="shallow clone"):
        build_index(shallow, first, tmp_path / "x")
    (tmp_path / "notindex").mkdir()
    (tmp_path / "notindex" / "keep.txt").write_text("mine")
    with pytest.raises(InputError, match="refusing to replace"):
        build_index(repo.path, "main", tmp_path / "notindex")
    assert (tmp_path / "notindex" / "keep.txt").read_text() == "mine"


def test_cli_build_inspect_parse_and_errors(repo: Repo, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "idx"
    built = runner.invoke(cli, ["index", str(repo.path), "--revision", "main", "-o", str(out),
                                "--quiet"])
    assert built.exit_code == 0, built.output
    assert "index written" in built.output
    shown = runner.invoke(cli, ["index", "inspect", str(out), "--symbol",
                                "SessionService.createSession"])
    assert shown.exit_code == 0
    assert "src/auth/session-service.ts:9-16" in shown.output
    by_file = runner.invoke(cli, ["index", "inspect", str(out), "--file", "server/server.go"])
    assert "Server.Handle" in by_file.output and "L15-21" in by_file.output
    parsed = runner.invoke(cli, ["index", "parse", str(FIXTURES / "lib.rs"), "--path",
                                 "src/lib.rs"])
    assert parsed.exit_code == 0 and "SessionStore.create_session" in parsed.output
    bad = runner.invoke(cli, ["index", str(repo.path), "--revision", "nope", "-o",
                              str(tmp_path / "x")])
    assert bad.exit_code == 2
    assert bad.output.strip().startswith("error:") and len(bad.output.strip().splitlines()) == 1
    missing = runner.invoke(cli, ["index", "inspect", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "no index" in missing.output
    helped = runner.invoke(cli, ["index", "--help"])
    assert helped.exit_code == 0 and "inspect" in helped.output and "Example:" in helped.output


def test_build_writes_tokens_not_fts_and_fts5_search_still_works(repo: Repo, tmp_path: Path
                                                                 ) -> None:
    import sqlite3

    out = tmp_path / "idx"
    build_index(repo.path, "main", out)
    conn = sqlite3.connect(out / "index.sqlite")
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert "tokens" in tables and not any(name.startswith("fts") for name in tables)
    with IndexReader.open(out) as reader:
        first = reader.lexical_search(code_tokens("createSession refresh token"), limit=5)
        assert first and first == reader.lexical_search(
            code_tokens("createSession refresh token"), limit=5)


def test_keep_only_leaves_meta_alone(repo: Repo, tmp_path: Path) -> None:
    import shutil

    out = tmp_path / "idx"
    build_index(repo.path, "main", out)
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(out / "index.sqlite", copy)
    writer = IndexWriter(copy, fresh=False)
    writer.keep_only(["server/server.go"])
    writer.finish()
    import sqlite3

    conn = sqlite3.connect(copy)
    keys = {row[0] for row in conn.execute("SELECT key FROM meta")}
    files = {row[0] for row in conn.execute("SELECT path FROM files")}
    conn.close()
    assert {"format", "revision", "index_build_id"} <= keys
    assert files == {"server/server.go"}


@pytest.mark.parametrize(("mirror", "expected"), [
    ("acme+shop/repo", "acme/shop"),
    ("acme__shop/repo.git", "acme/shop"),
    ("mirrors/shop/repository", "shop"),
])
def test_a_mirror_under_a_generic_folder_name_is_named_after_the_folder_above(
        repo: Repo, tmp_path: Path, mirror: str, expected: str) -> None:
    """An index of ``owner+name/repo`` (a bare mirror without an origin) used to record
    its repository as ``repo``."""
    import subprocess
    target = tmp_path / "m" / mirror
    target.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(target)], check=True)
    subprocess.run(["git", "-C", str(target), "remote", "remove", "origin"], check=True)
    manifest = build_index(target, "main", tmp_path / "idx")
    assert manifest.repository == expected


def test_a_private_member_is_found_with_or_without_its_hash(make_repo: MakeRepo,
                                                            tmp_path: Path) -> None:
    made = make_repo("agent")
    made.commit({"lib/agent.js": "class Agent {\n  #connect (url) {\n    return url\n  }\n\n"
                                 "  connect2 () {\n    return this.#connect(1)\n  }\n}\n"}, "first")
    build_index(made.path, "main", tmp_path / "idx")
    with IndexReader.open(tmp_path / "idx") as reader:
        for name in ("Agent.#connect", "#connect", "connect", "Agent.connect"):
            assert [d.qualified for d in reader.definitions(name)] == ["Agent.#connect"], name
        assert reader.definitions("Other.connect") == []
        assert [d.qualified for d in reader.definitions("connect2")] == ["Agent.connect2"]


def test_digests_made_while_writing_equal_those_read_back(make_repo: MakeRepo, repo: Repo,
                                                          tmp_path: Path) -> None:
    import hashlib
    import sqlite3

    import msgspec

    from codegold.index.chunkstore import ChunkStore, decode_stored, encode_stored
    from codegold.index.store import REUSE_MACS, file_macs

    def recorded_and_read_back(index: Path) -> tuple[dict[str, str], dict[str, str]]:
        key = build_module.reuse_key()
        assert key is not None
        recorded = json.loads((index / REUSE_MACS[0] / REUSE_MACS[1]).read_text())
        with sqlite3.connect(index / "index.sqlite") as conn:
            return recorded, file_macs(conn, key)

    # every language fixture: definitions, references, symbols and headers of each kind
    many = make_repo("many")
    many.commit({f"src/{p.name}": p.read_bytes() for p in sorted(FIXTURES.iterdir())
                 if p.is_file()} | {"docs/ünïcode.md": "# Tïtle\nSee `x`.\n",
                                    "a\nb.py": "x = 1\n", "vendor/lib.go": "package lib\n"})
    store = ChunkStore.open(tmp_path / "store")
    build_index(many.path, "main", tmp_path / "fresh", store=store)
    recorded, read_back = recorded_and_read_back(tmp_path / "fresh")
    assert len(recorded) > 10 and recorded == read_back
    # rows from the store (another store object: one that built "fresh" starts from it)
    build_index(many.path, "main", tmp_path / "stored", store=ChunkStore.open(tmp_path / "store"))
    assert recorded_and_read_back(tmp_path / "stored") == (recorded, recorded)
    # rows copied from the index the same store object built just before
    build_index(many.path, "main", tmp_path / "derived", store=store)
    assert recorded_and_read_back(tmp_path / "derived") == (recorded, recorded)
    # digests of the rows made in worker processes, keyed by the build
    build_index(many.path, "main", tmp_path / "workers", jobs=2)
    assert recorded_and_read_back(tmp_path / "workers") == (recorded, recorded)
    # a store entry written before entries kept the digest: the build makes it
    old = ChunkStore.open(tmp_path / "old-store")
    build_index(many.path, "main", tmp_path / "o1", store=old)
    for _, entry in old.entries():
        payload = entry.read_bytes().partition(b"\n")[2]
        stored = decode_stored(payload)
        assert stored.digest
        payload = encode_stored(msgspec.structs.replace(stored, digest=b""))
        entry.write_bytes(hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    old = ChunkStore.open(tmp_path / "old-store")
    build_index(many.path, "main", tmp_path / "o2", store=old)
    assert old.hits > 10 and old.corrupt == 0  # every entry read, digest or none
    assert recorded_and_read_back(tmp_path / "o2") == (recorded, recorded)
    build_index(repo.path, "main", tmp_path / "copy")
    repo.commit({"server/server.go": (FIXTURES / "server.go").read_text() + "\n// more\n",
                 "docs/guide.md": None, "docs/new.md": "# New\n"})
    build_index(repo.path, "main", tmp_path / "copy")  # rows copied, three files changed
    recorded, read_back = recorded_and_read_back(tmp_path / "copy")
    assert len(recorded) == len(sample_files()) and recorded == read_back


def test_rows_that_do_not_sort_leave_the_digest_to_the_writer() -> None:
    """A row with a None where a name belongs cannot be sorted into the canonical bytes:
    the worker's digest is then empty (the writer reads the rows back), never an error
    that would stop the build."""
    import msgspec

    from codegold.index.chunker import chunk_file
    from codegold.index.store import rows_digest, token_fields

    result = chunk_file("a.py", b"def f():\n    return 1\n", revision="r" * 40, blob_sha="b" * 40)
    tokens = tuple(token_fields(c) for c in result.chunks)
    assert rows_digest(result, tokens)
    one = result.definitions[0]
    broken = msgspec.structs.replace(result, definitions=[
        one, msgspec.structs.replace(one, name=None)])  # type: ignore[arg-type]
    assert rows_digest(broken, tokens) == b""
