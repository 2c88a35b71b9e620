"""Hostile input to ``codegold report``'s header: the attempts file results.json names.

The header reads manifests and retriever ids from that file only when it is still the file
that was scored (same sha256); whatever is there instead (garbage, a FIFO, a directory,
another file, a huge line, deep nesting, a symlink to a secret) adds nothing, never hangs,
never shows its content, and the report is still written (exit 0).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from codegold.evaluate import evaluate_files
from codegold.model import dump_results, load_results
from codegold.model.results import InputRef
from goldkit import SHA_A, attempt, case, chunk, write_attempts, write_cases
from hostilekit import assert_no_traceback, assert_sentinels, plant_sentinels, run_cli

TARGET = [{"file": "src/a.py", "symbol": "f"}]
SECRET = "SECRET-TOKEN-12345"


def _results(folder: Path, attempts_name: str) -> Path:
    cases = write_cases(folder, [case("a1", TARGET), case("a2", TARGET)], {"revision": SHA_A, "cutoff": 3})
    att = write_attempts(folder, [attempt("1", "a1", [chunk("hit", "src/a.py", "f")], retriever="bm25"),
                                  attempt("2", "a2", [chunk("miss", "src/z.py")], retriever="bm25")])
    run = evaluate_files(str(cases), str(att))
    # results.json names another file, recorded with the digest of the real one
    run = msgspec.structs.replace(run, inputs={**run.inputs, "attempts": InputRef(
        path=attempts_name, sha256=run.inputs["attempts"].sha256)})
    path = folder / "results.json"
    path.write_bytes(dump_results(run))
    return path


def _garbage(p: Path) -> None:
    p.write_bytes(b"\x00\xff not json\n{]\n")


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _directory(p: Path) -> None:
    p.mkdir()


def _other_attempts(p: Path) -> None:
    p.write_text(json.dumps(attempt("9", "a1", [], retriever=SECRET)) + "\n", encoding="utf-8")


def _huge_line(p: Path) -> None:
    with p.open("wb") as handle:
        handle.write(b'{"attempt_id": "' + b"x" * (40 * 1024 * 1024) + b'"}\n')


def _deep(p: Path) -> None:
    p.write_bytes(b'{"attempt_id": "1", "case_id": "a1", "query": {"filters": '
                  + b'{"a": ' * 100_000 + b"1" + b"}" * 100_000 + b"}}\n")


def _symlink_secret(p: Path) -> None:
    secret = p.parent / "secret.env"
    secret.write_text(f"TOKEN={SECRET}\n", encoding="utf-8")
    p.symlink_to(secret)


HOSTILE: list[tuple[str, Callable[[Path], None]]] = [
    ("garbage", _garbage), ("fifo", _fifo), ("directory", _directory),
    ("other attempts", _other_attempts), ("huge line", _huge_line), ("deep nesting", _deep),
    ("symlink to a secret", _symlink_secret),
]


@pytest.mark.parametrize(("name", "make"), HOSTILE, ids=[n for n, _ in HOSTILE])
def test_header_ignores_what_is_not_the_scored_attempts_file(
        name: str, make: Callable[[Path], None], tmp_path: Path) -> None:
    results = _results(tmp_path, "replaced.jsonl")
    make(tmp_path / "replaced.jsonl")
    planted = plant_sentinels(tmp_path)
    proc = run_cli("report", results, "-o", tmp_path / "r.html", "--md", tmp_path / "s.md",
                   "--junit", tmp_path / "j.xml", cwd=tmp_path, timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for out in ("r.html", "s.md", "j.xml"):
        text = (tmp_path / out).read_text(encoding="utf-8")
        assert SECRET not in text, (name, out)
        assert "bm25" not in text, (name, out)  # no facts from a file that is not the scored one
    assert "| unknown |" in (tmp_path / "s.md").read_text(encoding="utf-8")
    assert_sentinels(planted)


def test_header_reads_the_scored_attempts_file(tmp_path: Path) -> None:
    results = _results(tmp_path, "attempts.jsonl")
    assert load_results(results).inputs["attempts"].path == "attempts.jsonl"
    proc = run_cli("report", results, "--md", tmp_path / "s.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "bm25" in (tmp_path / "s.md").read_text(encoding="utf-8")
