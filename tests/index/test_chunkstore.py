"""The content-addressed chunk store: shared across revisions, verified, and invisible in
what an index holds."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from codegold.errors import InputError
from codegold.index import IndexReader, build_index
from codegold.index import build as build_module
from codegold.index.build import chunking as chunking_module
from codegold.index.chunkstore import ChunkStore, used_keys
from gitrepo import Repo, git

MakeRepo = Callable[[str], Repo]

FILES: dict[str, str | bytes] = {
    "src/app.py": "class App:\n    def run(self):\n        return helper()\n\n\ndef helper():\n"
                  "    return 1\n",
    "src/util.py": "def util():\n    return 2\n",
    "docs/guide.md": "# Guide\nText.\n",
    "web/main.ts": "export function main(): number {\n  return 3;\n}\n",
}


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    original = chunking_module.chunk_file

    def counting(path: str, data: bytes, **kwargs: str) -> object:
        parsed.append(path)
        return original(path, data, **kwargs)

    monkeypatch.setattr(chunking_module, "chunk_file", counting)
    return parsed


def _rows(index: Path) -> list[tuple[object, ...]]:
    """Every table's rows in an order of their content (a build that starts from a copy
    of an earlier revision's index numbers the rows it adds after those it keeps)."""
    with sqlite3.connect(index / "index.sqlite") as conn:
        return [*conn.execute("SELECT id, file, start_line, end_line, symbols, role, text "
                              "FROM chunks ORDER BY file, start_line, end_line, id"),
                *conn.execute("SELECT * FROM files ORDER BY path"),
                *conn.execute("SELECT * FROM symbols ORDER BY file, start_line, name"),
                *conn.execute("SELECT * FROM refs ORDER BY file, line, name"),
                *conn.execute("SELECT c.id, t.symbols, t.path, t.body FROM tokens t JOIN "
                              "chunks c ON c.rowid = t.rowid ORDER BY c.id")]


@pytest.fixture
def two_revisions(make_repo: MakeRepo) -> tuple[Repo, str, str]:
    repo = make_repo("proj")
    first = repo.commit(FILES, "first")
    second = repo.commit({"src/util.py": "def util():\n    return 22\n", "src/new.py":
                          "def new():\n    pass\n"}, "second")
    return repo, first, second


def test_second_revision_parses_only_changed_blobs_and_matches_scratch(
        two_revisions: tuple[Repo, str, str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    repo, first, second = two_revisions
    store = ChunkStore.open(tmp_path / "store")
    parsed = _counting(monkeypatch)
    build_index(repo.path, first, tmp_path / "a", store=store)
    assert sorted(parsed) == sorted(FILES)
    parsed.clear()
    progress: list[build_module.BuildProgress] = []
    with_store = build_index(repo.path, second, tmp_path / "b", store=store,
                             progress=progress.append)
    assert sorted(parsed) == ["src/new.py", "src/util.py"]
    assert progress[-1].parsed == 2 and progress[-1].reused == len(FILES) - 1
    parsed.clear()
    scratch = build_index(repo.path, second, tmp_path / "scratch")
    assert len(parsed) == len(FILES) + 1
    assert with_store.index_build_id == scratch.index_build_id
    assert (with_store.files, with_store.chunks) == (scratch.files, scratch.chunks)
    assert _rows(tmp_path / "b") == _rows(tmp_path / "scratch")
    with IndexReader.open(tmp_path / "b") as reader:
        assert {c.revision for c in reader.iter_chunks()} == {second}
        assert [d.file for d in reader.definitions("util")] == ["src/util.py"]


def test_damaged_entry_is_detected_and_rebuilt(two_revisions: tuple[Repo, str, str],
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo, first, _ = two_revisions
    store = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, first, tmp_path / "a", store=store)
    entries = sorted(file for _, file in store.entries())
    assert len(entries) == len(FILES)
    victim = entries[0]
    raw = bytearray(victim.read_bytes())
    raw[-3] ^= 0x55  # a flipped byte inside the payload
    victim.write_bytes(bytes(raw))
    entries[1].write_bytes(b"garbage")  # and one entry that is not an entry at all
    parsed = _counting(monkeypatch)
    fresh = ChunkStore.open(tmp_path / "store")
    manifest = build_index(repo.path, first, tmp_path / "again", store=fresh)
    assert fresh.corrupt == 2 and len(parsed) == 2
    scratch = build_index(repo.path, first, tmp_path / "scratch")
    assert manifest.index_build_id == scratch.index_build_id
    assert _rows(tmp_path / "again") == _rows(tmp_path / "scratch")
    parsed.clear()
    checked = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, first, tmp_path / "third", store=checked)
    assert parsed == [] and checked.corrupt == 0  # the damaged entries were rewritten


def test_store_refuses_a_folder_that_is_not_one(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    with pytest.raises(InputError, match="not a chunk store"):
        ChunkStore.open(folder)
    assert (folder / "notes.txt").read_text() == "keep me"
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="not a folder"):
        ChunkStore.open(tmp_path / "file")
    marker = tmp_path / "other" / "chunkstore.json"
    marker.parent.mkdir()
    marker.write_text('{"format": 99, "kind": "codegold-chunkstore"}')
    with pytest.raises(InputError, match="format 99"):
        ChunkStore.open(marker.parent)


def test_gc_keeps_what_kept_indexes_use(two_revisions: tuple[Repo, str, str],
                                        tmp_path: Path) -> None:
    repo, first, second = two_revisions
    store = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, first, tmp_path / "a", store=store)
    build_index(repo.path, second, tmp_path / "b", store=store)
    assert len(list(store.entries())) == len(FILES) + 2
    keep = used_keys(tmp_path / "b")
    removed, freed = store.gc(keep, dry_run=True)
    assert removed == 1 and freed > 0 and len(list(store.entries())) == len(FILES) + 2
    assert store.gc(keep) == (removed, freed)
    assert {key for key, _ in store.entries()} <= keep
    assert len(list(store.entries())) == len(FILES) + 1


def test_cli_index_many_revisions_and_cases(two_revisions: tuple[Repo, str, str],
                                            tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from codegold.cli.main import cli

    repo, first, second = two_revisions
    git(repo.path, "tag", "v1", first)
    parsed = _counting(monkeypatch)
    folder = tmp_path / "indexes"
    done = CliRunner().invoke(cli, ["index", str(repo.path), "--revisions", "v1,main",
                                    "-o", str(folder), "--quiet"])
    assert done.exit_code == 0, done.output
    assert "2 indexes built" in done.output and "parsed 6 files, reused 3" in done.output
    assert len(parsed) == len(FILES) + 2
    assert {p.name for p in folder.iterdir()} == {first, second, ".chunkstore"}
    for commit in (first, second):
        scratch = build_index(repo.path, commit, tmp_path / f"scratch-{commit}")
        assert _rows(folder / commit) == _rows(tmp_path / f"scratch-{commit}")
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ncases:\n  - id: a\n    revision: {first}\n    cutoff: 3\n"
                     "    query: util\n    accepted: [{file: src/util.py}]\n")
    parsed.clear()
    again = CliRunner().invoke(cli, ["index", str(repo.path), "--cases", str(cases),
                                     "-o", str(folder), "--quiet"])
    assert again.exit_code == 0, again.output
    assert "0 indexes built, 1 already there" in again.output and parsed == []
    listed = tmp_path / "revs.txt"
    listed.write_text(f"# the two\n{first}\n\n{second}  # head\n")
    fresh = CliRunner().invoke(cli, ["index", str(repo.path), "--revisions", str(listed),
                                     "-o", str(tmp_path / "other"), "--no-store", "--quiet"])
    assert fresh.exit_code == 0, fresh.output
    assert not (tmp_path / "other" / ".chunkstore").exists()
    assert scratch.index_build_id == build_index(
        repo.path, second, tmp_path / "other" / second).index_build_id


def test_cli_index_needs_exactly_one_revision_source(two_revisions: tuple[Repo, str, str],
                                                     tmp_path: Path) -> None:
    from click.testing import CliRunner

    from codegold.cli.main import cli

    repo, first, _ = two_revisions
    for extra in ([], ["--revision", first, "--revisions", first]):
        done = CliRunner().invoke(cli, ["index", str(repo.path), "-o", str(tmp_path / "x"),
                                        *extra])
        assert done.exit_code == 2 and "exactly one of --revision" in done.output
    bad = CliRunner().invoke(cli, ["index", str(repo.path), "--revisions", " , ,",
                                   "-o", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "names no revision" in bad.output


def test_cli_gc_keeps_named_revisions_and_refuses_to_empty(
        two_revisions: tuple[Repo, str, str], tmp_path: Path) -> None:
    from click.testing import CliRunner

    from codegold.cli.main import cli

    repo, first, second = two_revisions
    folder = tmp_path / "indexes"
    built = CliRunner().invoke(cli, ["index", str(repo.path), "--revisions", f"{first},{second}",
                                     "-o", str(folder), "--quiet"])
    assert built.exit_code == 0, built.output
    store = folder / ".chunkstore"
    before = len(list(ChunkStore.open(store).entries()))
    assert before == len(FILES) + 2
    dry = CliRunner().invoke(cli, ["index", "gc", str(store), "--keep-revisions", second[:10],
                                   "--dry-run"])
    assert dry.exit_code == 0 and "would remove 1 entries" in dry.output, dry.output
    assert len(list(ChunkStore.open(store).entries())) == before
    notes = store / "indexed"
    assert len(list(notes.iterdir())) == 2  # one per index built
    assert "and 1 notes of indexes not kept" in dry.output, dry.output
    done = CliRunner().invoke(cli, ["index", "gc", str(store), "--keep-revisions", second])
    assert done.exit_code == 0 and "removed 1 entries" in done.output, done.output
    assert {k for k, _ in ChunkStore.open(store).entries()} == used_keys(folder / second)
    # The first index's note goes with its entries; the kept one's still serves a later build.
    assert [r.revision for r in ChunkStore.open(store).indexed()] == [second]
    everything = CliRunner().invoke(cli, ["index", "gc", str(store)])
    assert everything.exit_code == 0 and "removed 0 entries" in everything.output
    unknown = CliRunner().invoke(cli, ["index", "gc", str(store), "--keep-revisions", "ffff"])
    assert unknown.exit_code == 2 and "matched 0" in unknown.output
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = CliRunner().invoke(cli, ["index", "gc", str(store), "--indexes", str(empty)])
    assert nothing.exit_code == 2 and "no complete index" in nothing.output
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("x")
    refused = CliRunner().invoke(cli, ["index", "gc", str(mine)])
    assert refused.exit_code == 2 and "no chunk store here" in refused.output
    assert (mine / "keep.txt").read_text() == "x"


def test_side_files_are_verified_and_go_with_their_entry(two_revisions: tuple[Repo, str, str],
                                                        tmp_path: Path) -> None:
    repo, first, second = two_revisions
    store = ChunkStore.open(tmp_path / "store")
    build_index(repo.path, first, tmp_path / "a", store=store)
    build_index(repo.path, second, tmp_path / "b", store=store)
    with IndexReader.open(tmp_path / "a") as reader:
        blobs = {e.path: e.blob_sha for e in reader.iter_inventory() if e.blob_sha}
    for path, sha in blobs.items():
        store.put_side(path, sha, "lexical-test", f"derived {path}".encode())
    assert store.get_side("src/app.py", blobs["src/app.py"], "lexical-test") == \
        b"derived src/app.py"
    assert store.get_side("src/app.py", blobs["src/app.py"], "other") is None
    side = next(p for p in store.root.rglob("*.lexical-test"))
    side.write_bytes(side.read_bytes() + b"!")  # damaged: reported as missing
    assert sum(store.get_side(path, sha, "lexical-test") is None
               for path, sha in blobs.items()) == 1
    with pytest.raises(ValueError, match="side file name"):
        store.put_side("src/app.py", blobs["src/app.py"], "entry", b"")
    with pytest.raises(ValueError, match="side file name"):
        store.get_side("src/app.py", blobs["src/app.py"], "../x")
    # entries() lists entries only; gc removes the side files of the entries it removes
    assert len(list(store.entries())) == len(FILES) + 2
    before = store.size_bytes()
    removed, freed = store.gc(used_keys(tmp_path / "b"))
    assert removed == 1 and freed > 0 and store.size_bytes() == before - freed
    assert store.get_side("src/util.py", blobs["src/util.py"], "lexical-test") is None
    assert store.get_side("src/new.py", blobs.get("src/new.py", "0" * 40),
                          "lexical-test") is None
    kept = sorted(p.name for p in store.root.rglob("*.lexical-test"))
    assert len(kept) == len(FILES) - 1  # src/util.py's first blob went with its entry
