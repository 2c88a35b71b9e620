"""guard_output, atomic writes, append_locked and resolve_inside."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote

import pytest

from codegold.errors import InputError
from codegold.plumbing.outputs import (
    append_locked,
    guard_output,
    resolve_inside,
    swap_folder,
    write_bytes_atomic,
    write_vouched_cache_file,
)


def test_output_equal_to_an_input_by_any_route_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("x", encoding="utf-8")
    (tmp_path / "sym").symlink_to(source)
    os.link(source, tmp_path / "hard")
    for alias in (source, tmp_path / "sym", tmp_path / "hard", tmp_path / "." / "in.jsonl"):
        with pytest.raises(InputError, match="input"):
            guard_output(alias, inputs=[None, source])
    guard_output(tmp_path / "out.json", inputs=[source])  # a new file is fine


def test_folder_outputs_may_not_hold_inputs_and_trees_may_not_hold_outputs(tmp_path: Path) -> None:
    (tmp_path / "idx").mkdir()
    source = tmp_path / "out" / "policy.yaml"
    source.parent.mkdir()
    source.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="holds an input"):
        guard_output(tmp_path / "out", inputs=[source], directory=True)
    with pytest.raises(InputError, match="inside"):
        guard_output(tmp_path / "idx" / "a.jsonl", trees=[tmp_path / "idx"])


def test_unwritable_outputs_are_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    (tmp_path / "dir").mkdir()
    with pytest.raises(InputError, match="is a file, not a folder"):
        guard_output(tmp_path / "file" / "deeper" / "x.json")
    with pytest.raises(InputError, match="is a folder"):
        guard_output(tmp_path / "dir")
    with pytest.raises(InputError, match="not a folder"):
        guard_output(tmp_path / "file", directory=True)
    with pytest.raises(InputError, match="needs a path"):
        guard_output("")
    with pytest.raises(InputError, match="cannot write"):
        write_bytes_atomic(tmp_path / "file" / "x", b"data")
    os.mkfifo(tmp_path / "fifo")
    for special in ("/dev/null", tmp_path / "fifo"):
        with pytest.raises(InputError, match="not a regular file"):
            guard_output(special)
    assert Path("/dev/null").is_char_device()


def test_atomic_write_replaces_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "a.txt"
    write_bytes_atomic(target, [b"one", b"two"])
    write_bytes_atomic(target, b"three")
    assert target.read_bytes() == b"three"
    assert sorted(p.name for p in target.parent.iterdir()) == ["a.txt"]
    (target.parent / "link.txt").symlink_to(target)
    with pytest.raises(InputError, match="symbolic link"):  # a planted link is not followed
        write_bytes_atomic(target.parent / "link.txt", b"four")
    assert target.read_bytes() == b"three"
    write_bytes_atomic(target.parent / "link.txt", b"four", follow_link=True)  # unless asked
    assert (target.parent / "link.txt").is_symlink() and target.read_bytes() == b"four"


def test_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path: Path) -> None:
    target = tmp_path / "a.jsonl"
    with append_locked(target) as first:
        first.write(b"line\n")
        with pytest.raises(InputError, match="another codegold process"), append_locked(target):
            pass
    with append_locked(target) as again:  # released with the handle
        again.write(b"more\n")
    assert target.read_bytes() == b"line\nmore\n"


def test_resolve_inside(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.md").write_text("x", encoding="utf-8")
    (tmp_path / "b" / "out.md").symlink_to("/etc/hostname")
    assert resolve_inside(tmp_path, "b/x.md") == (tmp_path / "b" / "x.md").resolve()
    for bad in ("/etc/passwd", "../x", "b/../../x", "b/out.md", "", ".", "a\x00b"):
        with pytest.raises(InputError):
            resolve_inside(tmp_path, bad)


def test_trec_ids_with_whitespace_stay_one_field() -> None:
    from codegold.evaluate.trec import export_trec, trec_id
    from codegold.model import Chunk
    from runfactory import make_case

    case = make_case("login flow\t50%", file="src/my file.py", symbol=None, roles=())
    ranked = [Chunk(chunk_id="c", file="src/my file.py"), Chunk(chunk_id="d", file="src/b.py")]
    exported = export_trec([(case, ranked)], granularity="file")
    run = [line.split() for line in exported.run.splitlines()]
    qrels = [line.split() for line in exported.qrels.splitlines()]
    assert [len(r) for r in run] == [6, 6] and [len(q) for q in qrels] == [4]
    assert unquote(run[0][0]) == case.id and unquote(run[0][2]) == "src/my file.py"
    assert qrels[0][2] == run[0][2] and qrels[0][3] == "2"
    assert trec_id("plain/path.py::Name") == "plain/path.py::Name"


def test_a_vouched_cache_file_is_made_in_place_and_never_through_a_link(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.npy"
    write_vouched_cache_file(fresh, b"first")
    assert fresh.read_bytes() == b"first" and fresh.stat().st_mode & 0o777 == 0o600
    write_vouched_cache_file(fresh, b"second")  # a file already there: replaced whole
    assert fresh.read_bytes() == b"second"
    target = tmp_path / "elsewhere.txt"
    target.write_bytes(b"untouched")
    planted = tmp_path / "planted.npy"
    planted.symlink_to(target)
    write_vouched_cache_file(planted, b"cache")
    assert not planted.is_symlink() and planted.read_bytes() == b"cache"
    assert target.read_bytes() == b"untouched"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.txt", "fresh.npy",
                                                          "planted.npy"]


def test_a_swapped_folder_is_on_disk_before_the_old_one_is_removed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The renames of a swap are entries of the parent folder: they are synced before the
    old folder's files are unlinked, so a power loss leaves the old folder or the new one."""
    import shutil

    events: list[str] = []
    real_fsync, real_rmtree = os.fsync, shutil.rmtree
    parent = (tmp_path.stat().st_dev, tmp_path.stat().st_ino)

    def fsync(fd: int) -> None:
        status = os.fstat(fd)
        events.append("sync parent" if (status.st_dev, status.st_ino) == parent else "sync")
        real_fsync(fd)

    def rmtree(path: object, *args: object, **kwargs: object) -> None:
        events.append("remove old")
        real_rmtree(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(shutil, "rmtree", rmtree)
    target, staged = tmp_path / "index", tmp_path / ".index.new"
    target.mkdir()
    (target / "a").write_text("old")
    staged.mkdir()
    (staged / "a").write_text("new")
    swap_folder(staged, target, aside=tmp_path / ".index.old")
    assert (target / "a").read_text() == "new"
    assert not (tmp_path / ".index.old").exists()
    assert events == ["sync parent", "remove old"], events
