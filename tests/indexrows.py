"""An index's content as rows: what two builds of one revision must share, whatever
order they wrote their rows in (a revision built from a copy of another numbers its
chunks differently from a cold build)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def index_rows(index: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows (tokens with their chunk's id), sorted; SQLite's statistics and
    schema too."""
    tables = {
        "meta": "SELECT * FROM meta", "files": "SELECT * FROM files",
        "chunks": "SELECT c.id, c.file, c.start_line, c.end_line, c.symbol, c.symbols, "
                  "c.kind, c.role, c.language, c.blob_sha, c.parent_id, c.prev_id, c.next_id, "
                  "c.has_signature, c.text, t.symbols, t.path, t.body FROM chunks c "
                  "LEFT JOIN tokens t ON t.rowid = c.rowid",
        "symbols": "SELECT * FROM symbols", "refs": "SELECT * FROM refs",
        "orphan_tokens": "SELECT * FROM tokens WHERE rowid NOT IN (SELECT rowid FROM chunks)",
        "stat": "SELECT * FROM sqlite_stat1",
        "schema": "SELECT type, name, tbl_name, sql FROM sqlite_master",
    }
    with sqlite3.connect(index / "index.sqlite") as conn:
        return {name: sorted(conn.execute(sql).fetchall(), key=repr)
                for name, sql in tables.items()}
