"""Hostile inputs to ``codegold index``: outputs that must never be replaced, killed and
concurrent builds, file names git allows but SQLite and line-based outputs do not, and
tampered index files and caches."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitrepo import Repo, git
from hostilekit import assert_clean_error, assert_sentinels, plant_sentinels, run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names and signals")

SOURCE = "def handler(request):\n    return request.user\n"


def _repo(tmp_path: Path, name: str = "repo") -> Repo:
    repo = Repo(tmp_path / name)
    repo.commit({"app.py": SOURCE, "lib/util.py": "def util():\n    return 1\n"})
    return repo


def _build(repo: Path, out: Path, *extra: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    return run_cli("index", repo, "--revision", "HEAD", "-o", out, "--quiet", *extra,
                   env=env, timeout=120)


def _ok(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name or ".old-" in p.name)


# --- outputs that must never be replaced -------------------------------------------------

def test_indexing_a_repository_into_itself_keeps_git_and_work(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo.path / "manifest.json").write_text("{}")
    planted = plant_sentinels(repo.path, ("uncommitted.txt", "manifest.json"))
    head = git(repo.path, "rev-parse", "HEAD")
    assert_clean_error(_build(repo.path, repo.path), contains="repository")
    assert_sentinels(planted)
    assert git(repo.path, "rev-parse", "HEAD") == head


def test_output_containing_the_repository_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    planted = plant_sentinels(tmp_path, ("beside.txt",))
    assert_clean_error(_build(repo.path, tmp_path), contains="repository")
    assert_sentinels(planted)
    assert (repo.path / ".git").is_dir()


def test_output_inside_the_git_directory_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert_clean_error(_build(repo.path, repo.path / ".git" / "idx"), contains="git directory")
    assert not (repo.path / ".git" / "idx").exists()


def test_symlinked_output_pointing_at_the_repository_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    planted = plant_sentinels(repo.path, ("work.txt",))
    (repo.path / "manifest.json").write_text("{}")
    link = tmp_path / "out-link"
    link.symlink_to(repo.path)
    assert_clean_error(_build(repo.path, link), contains="repository")
    assert_sentinels(planted)
    assert (repo.path / ".git" / "HEAD").is_file()


def test_a_stray_manifest_does_not_make_a_folder_an_index(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = tmp_path / "notes"
    planted = plant_sentinels(out, ("thesis.tex", "manifest.json"))
    (out / "index.sqlite").write_bytes(b"not mine to delete")
    planted[out / "index.sqlite"] = b"not mine to delete"
    line = assert_clean_error(_build(repo.path, out), contains="not a codegold index")
    assert "thesis.tex" in line
    assert_sentinels(planted)


def test_a_real_index_with_a_user_file_added_is_not_replaced(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = tmp_path / "idx"
    _ok(_build(repo.path, out))
    planted = plant_sentinels(out, ("my-notes.md",))
    assert_clean_error(_build(repo.path, out), contains="my-notes.md")
    assert_sentinels(planted)


def test_a_real_index_is_replaced_and_its_caches_allowed(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = tmp_path / "idx"
    _ok(_build(repo.path, out))
    (out / "lexical" / "abc").mkdir(parents=True)
    repo.commit({"more.py": "def more():\n    pass\n"})
    _ok(_build(repo.path, out))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["revision"] == git(repo.path, "rev-parse", "HEAD")
    assert _leftovers(tmp_path) == []


def test_output_that_is_a_file_or_under_a_file_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    planted = plant_sentinels(tmp_path / "user", ("somefile",))
    somefile = tmp_path / "user" / "somefile"
    assert_clean_error(_build(repo.path, somefile), contains="not a folder")
    assert_clean_error(_build(repo.path, somefile / "sub"), contains="somefile")
    assert_sentinels(planted)


def test_run_building_missing_indexes_respects_the_same_rule(tmp_path: Path) -> None:
    from codegold.errors import InputError
    from codegold.index import build_index

    repo = _repo(tmp_path)
    (repo.path / "manifest.json").write_text("{}")
    planted = plant_sentinels(repo.path, ("work.txt",))
    with pytest.raises(InputError, match="repository"):
        build_index(repo.path, "HEAD", repo.path / "..")
    with pytest.raises(InputError, match="repository"):
        build_index(repo.path, "HEAD", repo.path)
    assert_sentinels(planted)


# --- killed and concurrent builds ----------------------------------------------------------

_SLOW_BUILD = """
import sys, time
from pathlib import Path
from codegold.index import build_index
from codegold.index.store import IndexWriter
original = IndexWriter.add_file
def slow(self, *args, **kwargs):
    Path(sys.argv[3]).touch()
    time.sleep(0.2)
    return original(self, *args, **kwargs)
IndexWriter.add_file = slow
build_index(sys.argv[1], "HEAD", sys.argv[2])
"""


def _start_slow_build(repo: Path, out: Path, marker: Path) -> subprocess.Popen[bytes]:
    child = subprocess.Popen([sys.executable, "-c", _SLOW_BUILD, str(repo), str(out),
                              str(marker)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert child.poll() is None, child.stderr.read() if child.stderr else b""
        assert time.monotonic() < deadline, "the build never started writing"
        time.sleep(0.05)
    return child


def _many_files_repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "big")
    repo.commit({f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(40)})
    return repo


def test_sigkilled_build_leaves_nothing_after_the_next_build(tmp_path: Path) -> None:
    repo = _many_files_repo(tmp_path)
    out = tmp_path / "idx"
    child = _start_slow_build(repo.path, out, tmp_path / "started")
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert any(".idx.tmp-" in name for name in _leftovers(tmp_path))
    assert not out.exists()
    _ok(_build(repo.path, out))
    assert _leftovers(tmp_path) == []
    assert json.loads((out / "manifest.json").read_text())["complete"] is True


def test_stale_cleanup_touches_only_its_own_names(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = tmp_path / "idx"
    # A name it made (``.idx.tmp-PID-RANDOM``) is removed whatever the pid: while the build
    # holds the lock no other build of idx can run (tests/hostile/test_stale_temps.py);
    # names it does not make, and other outputs' folders, stay.
    other = tmp_path / ".idx.tmp-user-folder"
    sibling = tmp_path / ".other.tmp-999999-0123abcd"
    for folder in (other, sibling):
        plant_sentinels(folder, ("keep.txt",))
    _ok(_build(repo.path, out))
    assert other.is_dir() and sibling.is_dir()


def test_concurrent_build_of_one_output_refuses(tmp_path: Path) -> None:
    repo = _many_files_repo(tmp_path)
    out = tmp_path / "idx"
    child = _start_slow_build(repo.path, out, tmp_path / "started")
    try:
        assert_clean_error(_build(repo.path, out), contains="another codegold build")
    finally:
        child.wait(timeout=120)
    assert child.returncode == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is True and manifest["files"] == 40
    assert _leftovers(tmp_path) == []


# --- names git allows ----------------------------------------------------------------------

def _commit_raw_names(repo: Repo, names: list[bytes]) -> None:
    root = os.fsencode(repo.path)
    for name in names:
        with open(root + b"/" + name, "wb") as handle:
            handle.write(b"def odd():\n    return 2\n")
    git(repo.path, "add", "-A")
    git(repo.path, "commit", "-q", "-m", "odd names")


def test_unusual_file_names_are_skipped_with_a_true_reason(tmp_path: Path) -> None:
    from codegold.index import IndexReader

    repo = _repo(tmp_path)
    _commit_raw_names(repo, [b"caf\xe9.py", b"new\nline.py", b"tab\there.py", b"\xff\xfe.py"])
    out = tmp_path / "idx"
    _ok(_build(repo.path, out))
    with IndexReader.open(out) as reader:
        entries = {entry.path: entry for entry in reader.iter_inventory()}
        assert entries["app.py"].fate == "indexed"
        assert entries["caf\\xe9.py"].fate == "skipped"
        assert "not valid UTF-8" in (entries["caf\\xe9.py"].reason or "")
        assert "control character" in (entries["new\\x0aline.py"].reason or "")
        assert "control character" in (entries["tab\\x09here.py"].reason or "")
        assert "\\xff\\xfe.py" in entries
        assert reader.manifest.files == 2


def test_symlinks_submodules_binary_and_minified_blobs_are_bounded(tmp_path: Path) -> None:
    from codegold.index import IndexReader

    repo = _repo(tmp_path)
    minified = b"var a=" + b"1+" * 2_500_000 + b"1;"
    os.symlink("/etc/passwd", repo.path / "escape.py")
    near_limit = b"var b=" + b"f(1)+" * 190_000 + b"1;"
    repo.commit({"dist/bundle.js": minified, "web/app.js": near_limit, "blob.bin": b"\0" * 200_000,
                 "big.py": b"x = 1\n" * 400_000})
    head = git(repo.path, "rev-parse", "HEAD")
    git(repo.path, "update-index", "--add", "--cacheinfo", f"160000,{head},deps/sub")
    git(repo.path, "commit", "-q", "-m", "submodule")
    out = tmp_path / "idx"
    started = time.monotonic()
    _ok(_build(repo.path, out))
    assert time.monotonic() - started < 60
    with IndexReader.open(out) as reader:
        entries = {entry.path: entry for entry in reader.iter_inventory()}
    assert "symlink" in (entries["escape.py"].reason or "")
    assert "submodule" in (entries["deps/sub"].reason or "")
    assert "too large" in (entries["dist/bundle.js"].reason or "")
    assert entries["web/app.js"].fate in ("indexed", "fallback", "skipped")
    assert "too large" in (entries["big.py"].reason or "")
    assert entries["blob.bin"].category == "binary"


# --- tampered index files and caches -------------------------------------------------------

def _indexed(tmp_path: Path) -> tuple[Repo, Path]:
    repo = _repo(tmp_path)
    out = tmp_path / "idx"
    _ok(_build(repo.path, out))
    return repo, out


def _search(index: Path) -> subprocess.CompletedProcess[str]:
    return run_cli("search", index, "handler request user", timeout=120)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "zero"])
def test_tampered_sqlite_gives_one_clear_error(tmp_path: Path, damage: str) -> None:
    _, out = _indexed(tmp_path)
    db = out / "index.sqlite"
    data = db.read_bytes()
    if damage == "truncate":
        db.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        db.write_bytes(data[:4096] + os.urandom(len(data) - 4096))
    else:
        db.write_bytes(b"")
    for proc in (run_cli("index", "inspect", out, timeout=60), _search(out)):
        assert_clean_error(proc, contains="index")


def test_sqlite_damaged_in_the_middle_gives_one_clear_error(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({f"m{i}.py": f"def f{i}(x):\n    return x + {i}\n\nclass C{i}:\n"
                 f"    def m(self):\n        return f{i}(1)\n" for i in range(200)})
    out = tmp_path / "idx"
    _ok(_build(repo.path, out))
    db = out / "index.sqlite"
    data = bytearray(db.read_bytes())
    for offset in range(8192, len(data) - 4096, 4096):
        for j in range(8, 400):
            data[offset + j] ^= 0x5A
    db.write_bytes(bytes(data))
    for proc in (run_cli("index", "inspect", out, timeout=60), _search(out),
                 run_cli("index", "inspect", out, "--symbol", "C5", timeout=60)):
        assert_clean_error(proc, contains="damaged")


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"format": "x"}', b"[]"])
def test_tampered_manifest_gives_one_clear_error(tmp_path: Path, content: bytes) -> None:
    _, out = _indexed(tmp_path)
    (out / "manifest.json").write_bytes(content)
    assert_clean_error(run_cli("index", "inspect", out, timeout=60), contains="manifest")


def test_manifest_of_another_build_is_refused(tmp_path: Path) -> None:
    _, out = _indexed(tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["index_build_id"] = "0" * 20
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert_clean_error(run_cli("index", "inspect", out, timeout=60), contains="disagree")


@pytest.mark.parametrize("target", ["offsets.npy", "docs.npy", "impacts.npy", "vocab.json",
                                    "chunk_ids.json", "file_starts.npy", "meta.json"])
@pytest.mark.parametrize("damage", ["truncate", "flip", "foreign"])
def test_tampered_lexical_cache_is_rebuilt(tmp_path: Path, target: str, damage: str) -> None:
    _, out = _indexed(tmp_path)
    first = _search(out)
    _ok(first)
    caches = list((out / "lexical").glob(f"*/{target}"))
    assert caches
    for path in caches:
        data = path.read_bytes()
        if damage == "truncate":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "flip":
            path.write_bytes(data[:-8] + bytes(b ^ 0xFF for b in data[-8:]))
        else:
            path.write_bytes(b"[1, 2, 3]" if target.endswith(".json") else
                             (out / "lexical" / caches[0].parent.name / "impacts.npy")
                             .read_bytes() if target != "impacts.npy" else b"\x93NUMPY")
    again = _search(out)
    _ok(again)
    assert again.stdout == first.stdout


# --- environment ---------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["99999999999999999999", "-5", "1e9", "soon", "１２３"])
def test_bad_source_date_epoch_is_one_clear_error(tmp_path: Path, value: str) -> None:
    repo = _repo(tmp_path)
    out = tmp_path / "idx"
    assert_clean_error(_build(repo.path, out, env={"SOURCE_DATE_EPOCH": value}),
                       contains="SOURCE_DATE_EPOCH")
    assert not out.exists()


def test_source_date_epoch_pins_created_at(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = tmp_path / "idx"
    _ok(_build(repo.path, out, env={"SOURCE_DATE_EPOCH": "1700000000"}))
    assert json.loads((out / "manifest.json").read_text())["created_at"] == "2023-11-14T22:13:20Z"


def test_consistently_forged_lexical_cache_is_still_checked(tmp_path: Path) -> None:
    """Digests recomputed by whoever edited the cache: the consistency checks still hold."""
    import hashlib
    import io

    import numpy as np

    _, out = _indexed(tmp_path)
    first = _search(out)
    _ok(first)
    for folder in (out / "lexical").iterdir():
        buffer = io.BytesIO()
        docs = np.load(folder / "docs.npy")
        np.save(buffer, np.full_like(docs, 10_000_000), allow_pickle=False)
        (folder / "docs.npy").write_bytes(buffer.getvalue())
        meta = json.loads((folder / "meta.json").read_text())
        meta["files"]["docs.npy"] = {"size": len(buffer.getvalue()),
                                     "sha256": hashlib.sha256(buffer.getvalue()).hexdigest()}
        (folder / "meta.json").write_text(json.dumps(meta))
    again = _search(out)
    _ok(again)
    assert again.stdout == first.stdout


class _TinyEmbedder:
    id = "tiny"
    version = "1"
    dimensions = 3

    def embed(self, texts: object) -> object:
        import numpy as np

        rows = np.array([[len(t) + 1.0, t.count("e") + 1.0, 1.0] for t in texts],  # type: ignore[attr-defined]
                        dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize("damage", ["truncate-vectors", "meta-garbage", "meta-list",
                                    "wrong-rows", "ids-not-strings"])
def test_damaged_dense_cache_is_recomputed(tmp_path: Path, damage: str) -> None:
    import numpy as np

    from codegold.index import IndexReader
    from codegold.retrieve.dense import DenseIndex

    _, out = _indexed(tmp_path)
    with IndexReader.open(out) as reader:
        first = DenseIndex.open(reader, _TinyEmbedder())  # type: ignore[arg-type]
    folder = out / "dense" / "tiny"
    meta = json.loads((folder / "meta.json").read_text())
    if damage == "truncate-vectors":
        data = (folder / "vectors.npy").read_bytes()
        (folder / "vectors.npy").write_bytes(data[: len(data) - 7])
    elif damage == "meta-garbage":
        (folder / "meta.json").write_bytes(b"{torn")
    elif damage == "meta-list":
        (folder / "meta.json").write_text("[]")
    elif damage == "wrong-rows":
        np.save(folder / "vectors.npy", np.ones((1, 3), dtype=np.float32))
    else:
        (folder / "meta.json").write_text(json.dumps({**meta, "chunk_ids": [1, 2]}))
    with IndexReader.open(out) as reader:
        again = DenseIndex.open(reader, _TinyEmbedder())  # type: ignore[arg-type]
    assert again.chunk_ids == first.chunk_ids
    assert np.array_equal(again.vectors, first.vectors)


# --- run --repo builds indexes under the same rules ------------------------------------------

def _cases(tmp_path: Path, revision: str) -> Path:
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{revision: {revision}, cutoff: 2}}\ncases:\n"
                     "  - id: h\n    query: handler\n    accepted: [{file: app.py}]\n")
    return cases


@pytest.mark.parametrize("where", ["file", "under-file"])
def test_run_repo_with_an_unusable_index_folder_is_one_clear_error(tmp_path: Path,
                                                                   where: str) -> None:
    repo = _repo(tmp_path)
    cases = _cases(tmp_path, git(repo.path, "rev-parse", "HEAD"))
    planted = plant_sentinels(tmp_path / "user", ("somefile",))
    folder = tmp_path / "user" / "somefile"
    if where == "under-file":
        folder = folder / "sub"
    proc = run_cli("run", cases, "--repo", repo.path, "--index", folder, "-o",
                   tmp_path / "a.jsonl", "--quiet", timeout=120)
    assert_clean_error(proc, contains="somefile")
    assert_sentinels(planted)


def test_run_repo_never_replaces_a_non_index_folder(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    revision = git(repo.path, "rev-parse", "HEAD")
    cases = _cases(tmp_path, revision)
    folder = tmp_path / "indexes"
    planted = plant_sentinels(folder / revision, ("manifest.json", "notes.txt"))
    proc = run_cli("run", cases, "--repo", repo.path, "--index", folder, "-o",
                   tmp_path / "a.jsonl", "--quiet", timeout=120)
    assert_clean_error(proc, contains="not a codegold index")
    assert_sentinels(planted)
