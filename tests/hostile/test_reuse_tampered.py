"""Rows edited into a previous index (chunk text, tokens, symbols) must not be copied into
a new build under a clean build id: ``--reuse`` and rebuilding in place parse such files
again. Untouched files are still reused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from codegold.index.store import IndexReader
from gitrepo import Repo
from hostilekit import assert_no_traceback, run_cli

FILES = {"app/a.py": "def alpha():\n    return 1\n", "app/b.py": "def beta():\n    return 2\n"}
EDITS = {
    "text": "UPDATE chunks SET text = 'EVIL planted text' WHERE file = 'app/a.py'",
    "tokens": "UPDATE tokens SET body = 'EVIL' WHERE rowid IN "
              "(SELECT rowid FROM chunks WHERE file = 'app/a.py')",
    "symbols": "UPDATE symbols SET qualified = 'EVIL' WHERE file = 'app/a.py'",
}


def _tamper(index: Path, sql: str) -> None:
    conn = sqlite3.connect(index / "index.sqlite")
    with conn:
        assert conn.execute(sql).rowcount > 0
    conn.close()


def _evil(index: Path) -> list[str]:
    conn = sqlite3.connect(index / "index.sqlite")
    found = [row[0] for row in conn.execute(
        "SELECT 'chunks' FROM chunks WHERE text LIKE '%EVIL%' UNION ALL "
        "SELECT 'tokens' FROM tokens WHERE body LIKE '%EVIL%' UNION ALL "
        "SELECT 'symbols' FROM symbols WHERE qualified LIKE '%EVIL%'")]
    conn.close()
    return found


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("how", ["reuse", "in-place"])
def test_tampered_rows_are_rebuilt(tmp_path: Path, edit: str, how: str) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit(FILES)
    old = tmp_path / "idx"
    proc = run_cli("index", repo.path, "--revision", "HEAD", "-o", old, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    _tamper(old, EDITS[edit])
    repo.commit({"app/c.py": "def gamma():\n    return 3\n"})
    new = old if how == "in-place" else tmp_path / "new"
    extra = ("--reuse", str(old)) if how == "reuse" else ()
    proc = run_cli("index", repo.path, "--revision", "HEAD", "-o", new, *extra, timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _evil(new) == []
    fresh = tmp_path / "fresh"
    run_cli("index", repo.path, "--revision", "HEAD", "-o", fresh, timeout=120)
    with IndexReader.open(new) as a, IndexReader.open(fresh) as b:
        assert [(c.id, c.text) for c in a.iter_chunks()] == [(c.id, c.text) for c in b.iter_chunks()]
        assert a.manifest.index_build_id == b.manifest.index_build_id
