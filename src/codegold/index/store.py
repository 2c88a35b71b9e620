"""The on-disk index: ``manifest.json`` + ``index.sqlite``; a writer for builds and a
read-only :class:`IndexReader` for everyone else (retrieval, diagnose, inspect).

SQLite layout (``format`` 2, documented in docs/index.md): ``meta`` (key/value),
``files`` (the inventory), ``chunks``, ``symbols`` (definitions), ``refs`` (call sites)
and ``tokens``, each chunk's pre-tokenised ``symbols``, ``path`` and ``body`` (rowid =
the chunk's rowid). The default lexical engine (``retrieve/lexindex.py``) is built from
``tokens``; an FTS5 table over them is made only when a reader asks for
:meth:`IndexReader.lexical_search`, in that reader's memory, so builds do not pay for an
inverted index that the default retriever never reads.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from functools import lru_cache
from json.encoder import encode_basestring_ascii
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import quote

from codegold.errors import CodeIndexError
from codegold.index.records import FileChunks, IndexedChunk, InventoryEntry, Reference, SymbolDef
from codegold.index.tokens import code_token_field, path_tokens, symbol_tokens
from codegold.model import Manifest
from codegold.model.manifest import load_manifest

__all__ = [
    "INDEX_FILE",
    "MANIFEST_FILE",
    "STORE_FORMAT",
    "IndexReader",
    "IndexWriter",
    "IndexedChunk",
    "InventoryEntry",
    "Reference",
    "SymbolDef",
    "read_manifest",
]

STORE_FORMAT = 3  # 2: a tokens table instead of FTS5 at build time; 3: symbols.header_line
MANIFEST_FILE = "manifest.json"
INDEX_FILE = "index.sqlite"
MAX_QUERY_TOKENS = 64

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
    path TEXT PRIMARY KEY, blob_sha TEXT, size INTEGER, language TEXT, category TEXT NOT NULL,
    fate TEXT NOT NULL, reason TEXT, chunker TEXT, chunks INTEGER NOT NULL);
CREATE TABLE chunks (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, file TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, symbol TEXT, symbols TEXT NOT NULL,
    kind TEXT NOT NULL, role TEXT NOT NULL, language TEXT, blob_sha TEXT NOT NULL,
    parent_id TEXT, prev_id TEXT, next_id TEXT, has_signature INTEGER NOT NULL,
    text TEXT NOT NULL);
CREATE TABLE symbols (
    name TEXT NOT NULL, qualified TEXT NOT NULL, kind TEXT NOT NULL, role TEXT NOT NULL,
    file TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    chunk_id TEXT NOT NULL, header_line INTEGER NOT NULL DEFAULT 0);
CREATE TABLE refs (name TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,
                   chunk_id TEXT NOT NULL);
CREATE TABLE tokens (rowid INTEGER PRIMARY KEY, symbols TEXT NOT NULL, path TEXT NOT NULL,
                     body TEXT NOT NULL);
"""
# Secondary indexes are created after the bulk load: cheaper than maintaining them per row.
_INDEXES = """
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file, start_line);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
CREATE INDEX IF NOT EXISTS symbols_qualified ON symbols(qualified);
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file);
CREATE INDEX IF NOT EXISTS refs_name ON refs(name);
CREATE INDEX IF NOT EXISTS refs_file ON refs(file);
"""
_CHUNK_COLUMNS = ("id, file, start_line, end_line, symbol, symbols, kind, role, language, "
                  "blob_sha, parent_id, prev_id, next_id, has_signature, text")
_FILE_COLUMNS = "path, blob_sha, size, language, category, fate, reason, chunker, chunks"


def read_manifest(index_dir: Path) -> Manifest:
    """The manifest of an index directory; CodeIndexError when absent or unreadable."""
    path = index_dir / MANIFEST_FILE
    if not path.exists() and not path.is_symlink():
        raise CodeIndexError(f"no index at {index_dir}: {MANIFEST_FILE} is missing; build one "
                          "with 'codegold index REPO --revision REV -o DIR'")
    return load_manifest(path)


def token_fields(chunk: IndexedChunk) -> tuple[str, str, str]:
    """The three pre-tokenised lexical columns of a chunk (``tokens`` table)."""
    return (" ".join(symbol_tokens(chunk.symbols)), _path_field(chunk.file),
            code_token_field(chunk.text))


@lru_cache(maxsize=4096)
def _path_field(path: str) -> str:
    # A file's chunks follow one another: its path is tokenised once.
    return " ".join(path_tokens(path))


class IndexWriter:
    """Bulk writer used by the build, over a file in the build's temporary directory:
    a new, empty one (``fresh``) or a private copy of a previous index that the build
    trims with :meth:`keep_only` before adding what changed."""

    def __init__(self, path: Path, *, fresh: bool = True, mac_key: bytes | None = None,
                 kept_macs: dict[str, str] | None = None) -> None:
        """Open ``path``: a new file (``fresh``) or a private copy of a previous index.

        With ``mac_key`` each file's :func:`file_macs` digest is made as its rows are
        written (the rows already in memory, not read back); ``kept_macs`` are the
        digests, verified under that key, of the files a copy keeps."""
        self.path = path
        self._rowid: int | None = None
        self._mac_key = mac_key
        self._macs: dict[str, str] = dict(kept_macs or {})
        # Set when a path's rows come in two calls (never, in a build): the digests are
        # then read back from the file, as file_macs always did.
        self._macs_stale = False
        self._conn = sqlite3.connect(path, isolation_level=None)
        # A build writes a file in a temporary directory and renames it into place only
        # when complete, so a journal would buy nothing but time.
        self._conn.executescript(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY;"
            "PRAGMA cache_size = -65536;")
        if fresh:
            self._conn.executescript(_SCHEMA)
        self._conn.execute("BEGIN")

    def set_meta(self, values: dict[str, str]) -> None:
        self._conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                               sorted(values.items()))

    def add_entry(self, entry: InventoryEntry) -> None:
        self._insert_entry(entry)
        if self._mac_key is not None:
            self._record_digests(_rows_digests([[] for _ in _FILE_ROWS[:4]], entry))

    def _insert_entry(self, entry: InventoryEntry) -> None:
        self._conn.execute(f"INSERT INTO files({_FILE_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)",
                           _entry_row(entry))

    def _record_digests(self, digests: dict[str, bytes]) -> None:
        """Each path's rows digest, keyed into its MAC (call only with a ``mac_key``)."""
        key = self._mac_key
        assert key is not None
        for path, digest in digests.items():
            if path in self._macs:
                self._macs_stale = True
            self._macs[path] = _keyed(key, digest)

    def add_file(self, result: FileChunks, tokens: Sequence[tuple[str, str, str]] | None = None,
                 digest: bytes = b"") -> list[tuple[str, str, str]]:
        """Store one chunked file: inventory entry, chunks, their tokens, definitions and
        references. ``tokens`` are the chunks' :func:`token_fields` when already known (a
        chunk store keeps them), ``digest`` their :func:`rows_digest` when whoever
        chunked the file made it; returns the token fields written."""
        self._insert_entry(result.entry)
        conn = self._conn
        chunks = result.chunks
        rows = list(tokens) if tokens is not None else [token_fields(c) for c in chunks]
        if self._mac_key is not None:
            try:
                self._record_digests({result.entry.path: digest} if digest
                                     else _file_rows_digests(result, rows))
            except TypeError:  # a row that does not sort (a None where none belongs)
                self._macs_stale = True
        if chunks:
            # Row ids are assigned here rather than read back per insert, so both tables
            # load with one executemany each.
            first = self._next_rowid()
            conn.executemany(
                f"INSERT INTO chunks(rowid, {_CHUNK_COLUMNS}) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [(first + i, c.id, c.file, c.start_line, c.end_line, c.symbol,
                  _json_strings(c.symbols), c.kind, c.role, c.language, c.blob_sha,
                  c.parent_id, c.prev_id, c.next_id, int(c.has_signature), c.text)
                 for i, c in enumerate(chunks)])
            conn.executemany("INSERT INTO tokens(rowid, symbols, path, body) VALUES (?,?,?,?)",
                             [(first + i, *row) for i, row in enumerate(rows)])
            self._rowid = first + len(chunks)
        conn.executemany(
            "INSERT INTO symbols(name, qualified, kind, role, file, start_line, end_line, "
            "chunk_id, header_line) VALUES (?,?,?,?,?,?,?,?,?)",
            [(d.name, d.qualified, d.kind, d.role, d.file, d.start_line, d.end_line, d.chunk_id,
              d.header_line) for d in result.definitions])
        conn.executemany("INSERT INTO refs(name, file, line, chunk_id) VALUES (?,?,?,?)",
                         [(r.name, r.file, r.line, r.chunk_id) for r in result.references])
        return rows

    def _next_rowid(self) -> int:
        if self._rowid is None:
            row = self._conn.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM chunks").fetchone()
            self._rowid = int(row[0])
        return self._rowid

    def keep_only(self, paths: list[str]) -> None:
        """On a writer opened over a copy of a previous index: drop every row of files not
        in ``paths`` (those unchanged blobs stay; everything else is rebuilt). ``meta`` is
        left alone (:meth:`clear_meta`). The rows dropped are found through the tables'
        path indexes, so what this costs follows the files that go, not those that stay."""
        conn = self._conn
        kept = set(paths)
        if not kept <= self._macs.keys():
            self._macs_stale = True
        self._macs = {path: mac for path, mac in self._macs.items() if path in kept}
        # every path any table names: the tables of a copy agree, but a row of a path the
        # inventory lacks must not survive either (one scan of each path index; a UNION
        # of them costs several times as much)
        present = {path for query in ("SELECT path FROM files", "SELECT DISTINCT file FROM "
                                      "chunks", "SELECT DISTINCT file FROM symbols",
                                      "SELECT DISTINCT file FROM refs")
                   for (path,) in conn.execute(query).fetchall()}
        gone = [(path,) for path in present if path not in kept]
        if not gone:
            return
        conn.execute("CREATE TEMP TABLE gone (path TEXT PRIMARY KEY)")
        conn.executemany("INSERT OR IGNORE INTO gone(path) VALUES (?)", gone)
        conn.execute("DELETE FROM tokens WHERE rowid IN (SELECT rowid FROM chunks "
                     "WHERE file IN (SELECT path FROM gone))")
        for table, column in (("chunks", "file"), ("symbols", "file"), ("refs", "file"),
                              ("files", "path")):
            conn.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT path FROM gone)")
        conn.execute("DROP TABLE gone")

    def clear_meta(self) -> None:
        """Drop every ``meta`` row of a copied index: a build then holds exactly the keys
        it writes, as one from scratch does."""
        self._conn.execute("DELETE FROM meta")

    def chunk_count(self) -> int:
        count: int = self._conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return count

    def file_macs(self, key: bytes) -> dict[str, str]:
        """Every file's :func:`file_macs` (call when every row is written): made as the
        rows were written when the writer was opened with this key, else read back."""
        if key == self._mac_key and not self._macs_stale:
            return dict(self._macs)
        return file_macs(self._conn, key)

    def indexed_file_count(self) -> int:
        """Files whose fate is indexed or fallback (what the manifest calls ``files``)."""
        count: int = self._conn.execute(
            "SELECT COUNT(*) FROM files WHERE fate IN ('indexed', 'fallback')").fetchone()[0]
        return count

    def finish(self) -> None:
        """Create secondary indexes, commit and close."""
        conn = self._conn
        conn.execute("COMMIT")
        # executescript runs in autocommit mode; that is fine for a file nobody reads yet.
        conn.executescript(_INDEXES)
        conn.execute("ANALYZE")
        conn.close()

    def abort(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._conn.close()


def _json_strings(items: Sequence[str]) -> str:
    """``json.dumps(list(items))`` for strings, byte for byte (``", "`` between items,
    non-ASCII escaped), without the encoder's per-call set-up: it runs once per chunk."""
    return "[" + ", ".join(map(encode_basestring_ascii, items)) + "]"


def _entry_row(entry: InventoryEntry) -> tuple[object, ...]:
    return (entry.path, entry.blob_sha, entry.size, entry.language, entry.category, entry.fate,
            entry.reason, entry.chunker, entry.chunks)


_CHUNK_SELECT = f"SELECT {_CHUNK_COLUMNS} FROM chunks"


class _GuardedCursor:
    """A cursor whose SQLite errors (a file damaged after it was opened) become CodeIndexError."""

    def __init__(self, cursor: sqlite3.Cursor, db: Path) -> None:
        self._cursor = cursor
        self._db = db

    def fetchone(self) -> Any:
        with _guard(self._db):
            return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        with _guard(self._db):
            return self._cursor.fetchall()

    def __iter__(self) -> Iterator[Any]:
        while True:
            with _guard(self._db):
                row = self._cursor.fetchone()
            if row is None:
                return
            yield row


class _GuardedConnection:
    """The reader's connection: every query reports a damaged file as one CodeIndexError."""

    def __init__(self, conn: sqlite3.Connection, db: Path) -> None:
        self._conn = conn
        self._db = db

    def execute(self, sql: str, params: Sequence[object] = ()) -> _GuardedCursor:
        with _guard(self._db):
            return _GuardedCursor(self._conn.execute(sql, params), self._db)

    def close(self) -> None:
        self._conn.close()


@contextlib.contextmanager
def _guard(db: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as err:
        raise CodeIndexError(f"cannot read {db}: {err}; the file is damaged or not a codegold "
                          "index, rebuild the index") from err


# Every row that belongs to one file, in an order that does not depend on row ids, so a
# copy of a file's rows (a reused index) digests like the rows first written.
_FILE_ROWS = (
    "SELECT file, id, start_line, end_line, symbol, symbols, kind, role, language, blob_sha, "
    "parent_id, prev_id, next_id, has_signature, text FROM chunks ORDER BY file, id",
    "SELECT c.file, c.id, t.symbols, t.path, t.body FROM tokens t JOIN chunks c "
    "ON c.rowid = t.rowid ORDER BY c.file, c.id",
    "SELECT file, chunk_id, qualified, name, kind, role, start_line, end_line, header_line "
    "FROM symbols ORDER BY file, chunk_id, qualified, name, kind, role, start_line, end_line, "
    "header_line",
    "SELECT file, line, name, chunk_id FROM refs ORDER BY file, line, name, chunk_id",
    "SELECT path, blob_sha, size, language, category, fate, reason, chunker, chunks "
    "FROM files ORDER BY path",
)
REUSE_MACS = ("reuse", "macs.json")
"""Where in an index folder a build records each file's keyed digest (a cache: losing it
costs only the next build's reuse)."""


def file_macs(conn: sqlite3.Connection | Any, key: bytes) -> dict[str, str]:
    """Path → keyed digest under ``key`` of every row of that file (chunks and their text,
    tokens, symbols, references, inventory): HMAC-SHA256 of the SHA-256 of the rows'
    canonical bytes (:func:`_rows_digests`). A build records them; a later build reuses a
    file's rows only when they still digest to what was recorded, so text edited into an
    index (or an index made elsewhere, under another key) is parsed again, never copied
    under a clean build id. The unkeyed inner digest is what whoever chunked a file can
    make once (a build worker; the chunk store keeps it), leaving the build one short
    HMAC per file."""
    import hashlib

    import msgspec

    encode = msgspec.json.encode
    digests: dict[str, Any] = {}
    for number, query in enumerate(_FILE_ROWS):
        # each row's JSON and a newline, one update per file and query (the same bytes
        # in the same order as one update per row, at a fraction of the calls)
        pending: dict[str, list[bytes]] = {}
        for row in conn.execute(query):
            parts = pending.get(row[0])
            if parts is None:
                parts = pending[row[0]] = []
            parts.append(encode([number, *row[1:]]))
        for path, parts in pending.items():
            digest = digests.get(path)
            if digest is None:
                digest = digests[path] = hashlib.sha256()
            parts.append(b"")
            digest.update(b"\n".join(parts))
    return {path: _keyed(key, digest.digest()) for path, digest in digests.items()}


def _keyed(key: bytes, digest: bytes) -> str:
    """The MAC :func:`file_macs` records for a file whose rows digest to ``digest``."""
    import hmac

    return hmac.new(key, digest, digestmod="sha256").hexdigest()


def rows_digest(result: FileChunks, tokens: Sequence[tuple[str, str, str]]) -> bytes:
    """The SHA-256 of the rows :meth:`IndexWriter.add_file` writes for ``result`` (what
    :func:`file_macs` keys), made from the rows in memory; empty when they name more
    than the one path of its entry (never, from the chunker: then the writer digests
    them itself)."""
    try:
        digests = _file_rows_digests(result, tokens)
    except TypeError:  # a row that does not sort: the writer reads the rows back instead
        return b""
    return digests.get(result.entry.path, b"") if len(digests) == 1 else b""


def _file_rows_digests(result: FileChunks, tokens: Sequence[tuple[str, str, str]]
                       ) -> dict[str, bytes]:
    """Path → SHA-256 of the rows :meth:`IndexWriter.add_file` writes for ``result``,
    from the rows in memory: each ``_FILE_ROWS`` query's columns, in its order."""
    chunk_rows = sorted(
        ((c.file, c.id, c.start_line, c.end_line, c.symbol, _json_strings(c.symbols), c.kind,
          c.role, c.language, c.blob_sha, c.parent_id, c.prev_id, c.next_id,
          int(c.has_signature), c.text) for c in result.chunks), key=lambda row: row[:2])
    token_rows = sorted(((c.file, c.id, *fields) for c, fields in
                         zip(result.chunks, tokens, strict=True)), key=lambda row: row[:2])
    symbol_rows = sorted((d.file, d.chunk_id, d.qualified, d.name, d.kind, d.role, d.start_line,
                          d.end_line, d.header_line) for d in result.definitions)
    ref_rows = sorted((r.file, r.line, r.name, r.chunk_id) for r in result.references)
    return _rows_digests([chunk_rows, token_rows, symbol_rows, ref_rows], result.entry)


def _rows_digests(rows: list[list[tuple[Any, ...]]], entry: InventoryEntry
                  ) -> dict[str, bytes]:
    """Path → SHA-256 of sorted rows of the first four ``_FILE_ROWS`` queries (each
    starting with its path) and one inventory entry, as :func:`file_macs` digests them."""
    import hashlib

    import msgspec

    encode = msgspec.json.encode
    pending: dict[str, list[bytes]] = {}
    for number, table in enumerate([*rows, [_entry_row(entry)]]):
        for row in table:
            parts = pending.get(row[0])
            if parts is None:
                parts = pending[row[0]] = []
            parts.append(encode([number, *row[1:]]))
    digests = {}
    for path, parts in pending.items():
        parts.append(b"")
        digests[path] = hashlib.sha256(b"\n".join(parts)).digest()
    return digests


class IndexReader:
    """Read-only access to a complete index. Use as a context manager or call close()."""

    def __init__(self, path: Path, manifest: Manifest, conn: sqlite3.Connection) -> None:
        self.path = path
        self.manifest = manifest
        self._conn = _GuardedConnection(conn, path / INDEX_FILE)
        self._fts_ready = False
        self._revision = manifest.revision or ""
        self._chunk_ids: dict[str, list[str]] | None = None

    @classmethod
    def open(cls, index_dir: str | Path) -> IndexReader:
        """Open ``index_dir``; CodeIndexError when it is missing, incomplete or unreadable."""
        path = Path(index_dir)
        if not path.is_dir():
            raise CodeIndexError(f"no index at {path}: not a directory; build one with "
                              "'codegold index REPO --revision REV -o DIR'")
        manifest = read_manifest(path)
        if not manifest.complete:
            raise CodeIndexError(f"index at {path} is incomplete (manifest complete is not "
                              "true): its build did not finish; rebuild it")
        db = path / INDEX_FILE
        if not db.is_file():
            raise CodeIndexError(f"index at {path} has no {INDEX_FILE}; rebuild it")
        try:
            conn = sqlite3.connect(f"file:{quote(str(db.resolve()))}?mode=ro", uri=True,
                                   check_same_thread=False)
            row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.Error as err:
            raise CodeIndexError(f"cannot read {db}: {err}") from err
        if row is None or row[0] != str(STORE_FORMAT):
            conn.close()
            raise CodeIndexError(f"index at {path} has store format {row[0] if row else None!r}; "
                              f"this codegold reads format {STORE_FORMAT}: rebuild it")
        try:
            _check_integrity(conn, manifest, db)
        except BaseException:
            conn.close()
            raise
        return cls(path, manifest, conn)

    def __enter__(self) -> IndexReader:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    def meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def verified_files(self, key: bytes, recorded: dict[str, str]) -> set[str]:
        """Paths whose rows digest under ``key`` to what their build ``recorded``."""
        import hmac

        return {path for path, mac in file_macs(self._conn, key).items()
                if hmac.compare_digest(mac, recorded.get(path, ""))}

    def _chunk(self, row: Sequence[object]) -> IndexedChunk:
        (chunk_id, file, start, end, symbol, symbols, kind, role, language, blob, parent, prev,
         nxt, has_signature, text) = row
        return IndexedChunk(
            id=str(chunk_id), file=str(file), start_line=int(str(start)),
            end_line=int(str(end)), symbol=None if symbol is None else str(symbol),
            symbols=tuple(json.loads(str(symbols))), kind=str(kind), role=str(role),
            language=None if language is None else str(language), revision=self._revision,
            blob_sha=str(blob), parent_id=None if parent is None else str(parent),
            prev_id=None if prev is None else str(prev), next_id=None if nxt is None else str(nxt),
            has_signature=bool(has_signature), text=str(text))

    def chunk_count(self) -> int:
        count: int = self._conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return count

    def get(self, chunk_id: str) -> IndexedChunk | None:
        row = self._conn.execute(f"{_CHUNK_SELECT} WHERE id = ?", (chunk_id,)).fetchone()
        return None if row is None else self._chunk(row)

    def get_many(self, ids: Sequence[str]) -> list[IndexedChunk]:
        """Chunks for ``ids`` in the same order; unknown ids are dropped."""
        found: dict[str, IndexedChunk] = {}
        for row in self._by_ids(f"{_CHUNK_SELECT} WHERE id IN", ids):
            chunk = self._chunk(row)
            found[chunk.id] = chunk
        return [found[i] for i in ids if i in found]

    def _by_ids(self, select: str, ids: Sequence[str]) -> Iterator[Any]:
        """The rows of ``select`` (ending in ``IN``) for the distinct ``ids``, 500 bound
        values per statement."""
        unique = list(dict.fromkeys(ids))
        for offset in range(0, len(unique), 500):
            batch = unique[offset:offset + 500]
            yield from self._conn.execute(f"{select} ({','.join('?' * len(batch))})", batch)

    def iter_chunks(self) -> Iterator[IndexedChunk]:
        """Every chunk, by path (byte order, as git lists them), then by line."""
        cursor = self._conn.execute(f"{_CHUNK_SELECT} ORDER BY file, start_line, end_line, rowid")
        for row in cursor:
            yield self._chunk(row)

    def iter_lexical_fields(self, file: str | None = None
                            ) -> Iterator[tuple[str, str, list[str], list[str], list[str]]]:
        """``(chunk id, file, symbol tokens, path tokens, body tokens)`` of every chunk (of
        ``file`` only, when given), in :meth:`iter_chunks` order: the tokens the build
        already computed, so a lexical engine built over this index never tokenises the
        text again."""
        where, params = ("WHERE c.file = ? ", (file,)) if file is not None else ("", ())
        cursor = self._conn.execute(
            "SELECT c.id, c.file, t.symbols, t.path, t.body FROM chunks c "
            f"JOIN tokens t ON t.rowid = c.rowid {where}"
            "ORDER BY c.file, c.start_line, c.end_line, c.rowid", params)
        for chunk_id, path, symbols, path_field, body in cursor:
            yield chunk_id, path, symbols.split(), path_field.split(), body.split()

    def lexical_fields_of(self, ids: Sequence[str]) -> dict[str, tuple[list[str], list[str]]]:
        """``chunk id → (symbol tokens, body tokens)`` of the chunks ``ids`` that exist:
        the tokens the build computed, in their order."""
        rows = self._by_ids("SELECT c.id, t.symbols, t.body FROM chunks c "
                            "JOIN tokens t ON t.rowid = c.rowid WHERE c.id IN", ids)
        return {chunk_id: (symbols.split(), body.split()) for chunk_id, symbols, body in rows}

    def chunk_ids_by_file(self) -> dict[str, list[str]]:
        """Each file's chunk ids, files and chunks in :meth:`iter_chunks` order (files
        without chunks left out). Read once per reader (the index never changes under
        it): callers must not modify what it returns."""
        found: dict[str, list[str]] | None = self._chunk_ids
        if found is not None:
            return found
        found = {}
        for chunk_id, file in self._conn.execute(  # fetched whole: one guard, not one a row
                "SELECT id, file FROM chunks ORDER BY file, start_line, end_line, rowid"
                ).fetchall():
            ids = found.get(file)
            if ids is None:
                ids = found[file] = []
            ids.append(chunk_id)
        self._chunk_ids = found
        return found

    def file_blobs(self) -> dict[str, str]:
        """The blob sha of each inventory path that has one (as :meth:`iter_inventory`
        reads them, without making every entry)."""
        return dict(self._conn.execute(
            "SELECT path, blob_sha FROM files WHERE blob_sha IS NOT NULL").fetchall())

    def chunks_in_file(self, path: str) -> list[IndexedChunk]:
        rows = self._conn.execute(f"{_CHUNK_SELECT} WHERE file = ? "
                                  "ORDER BY start_line, end_line, rowid",
                                  (path,))
        return [self._chunk(row) for row in rows]

    def inventory(self, path: str) -> InventoryEntry | None:
        row = self._conn.execute(f"SELECT {_FILE_COLUMNS} FROM files WHERE path = ?",
                                 (path,)).fetchone()
        return None if row is None else _entry(row)

    def iter_inventory(self) -> Iterator[InventoryEntry]:
        for row in self._conn.execute(f"SELECT {_FILE_COLUMNS} FROM files ORDER BY path"):
            yield _entry(row)

    def definitions(self, name: str) -> list[SymbolDef]:
        """Definitions whose short name, qualified name or qualified suffix is ``name``.
        A JavaScript private member (``Agent.#connect``) is found by its name with or
        without the ``#`` (``connect``, ``Agent.connect``)."""
        short = name.rsplit(".", 1)[-1]
        rows = self._conn.execute(
            "SELECT name, qualified, kind, role, file, start_line, end_line, chunk_id, "
            "header_line FROM symbols WHERE name IN (?, ?) ORDER BY file, start_line, qualified",
            (short, short if short.startswith("#") else "#" + short))
        out = []
        for row in rows:
            qualified = str(row[1])
            plain = qualified.replace(".#", ".").removeprefix("#")
            if "." in name and name not in (qualified, plain) and not (
                    qualified.endswith("." + name) or plain.endswith("." + name)):
                continue
            out.append(SymbolDef(name=str(row[0]), qualified=qualified, kind=str(row[2]),
                                 role=str(row[3]), file=str(row[4]), start_line=int(row[5]),
                                 end_line=int(row[6]), chunk_id=str(row[7]),
                                 header_line=int(row[8])))
        return out

    def definitions_in_file(self, path: str) -> list[SymbolDef]:
        """Every definition recorded in ``path``, by start line."""
        rows = self._conn.execute(
            "SELECT name, qualified, kind, role, file, start_line, end_line, chunk_id, "
            "header_line FROM symbols WHERE file = ? ORDER BY start_line, end_line, qualified",
            (path,))
        return [SymbolDef(name=str(r[0]), qualified=str(r[1]), kind=str(r[2]), role=str(r[3]),
                          file=str(r[4]), start_line=int(r[5]), end_line=int(r[6]),
                          chunk_id=str(r[7]), header_line=int(r[8])) for r in rows]

    def references(self, name: str, limit: int = 200) -> list[Reference]:
        """Call sites of the short name (the last part of ``name``)."""
        short = name.rsplit(".", 1)[-1]
        rows = self._conn.execute(
            "SELECT name, file, line, chunk_id FROM refs WHERE name = ? "
            "ORDER BY file, line LIMIT ?", (short, limit))
        return [Reference(name=str(r[0]), file=str(r[1]), line=int(r[2]), chunk_id=str(r[3]))
                for r in rows]

    def _ensure_fts(self) -> None:
        if self._fts_ready:
            return
        # The temp schema is writable on a read-only connection; keep it in memory.
        self._conn.execute("PRAGMA temp_store = MEMORY").fetchall()
        self._conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts USING "
                           "fts5(symbols, path, body, tokenize = 'unicode61')").fetchall()
        self._conn.execute("INSERT INTO temp.fts(rowid, symbols, path, body) "
                           "SELECT rowid, symbols, path, body FROM main.tokens").fetchall()
        self._fts_ready = True

    def lexical_search(self, tokens: Sequence[str], *, limit: int = 100,
                       weights: tuple[float, float, float] = (3.0, 1.5, 1.0)
                       ) -> list[tuple[str, float]]:
        """BM25 over (symbols, path, body); higher is better; ties broken by chunk id.

        ``tokens`` should come from :mod:`codegold.index.tokens`; they are OR-ed, each
        quoted so no token is read as FTS syntax, and at most 64 distinct ones are used.
        The first call builds an FTS5 table over ``tokens`` in this reader's memory (about
        as long as the build used to spend on it); later calls reuse it.
        """
        unique = list(dict.fromkeys(t for t in tokens if t and t.strip()))[:MAX_QUERY_TOKENS]
        if not unique or limit <= 0:
            return []
        match = " OR ".join('"' + token.replace('"', '""') + '"' for token in unique)
        self._ensure_fts()
        rows = self._conn.execute(
            "SELECT c.id, s.score FROM (SELECT rowid, bm25(fts, ?, ?, ?) AS score "
            "FROM temp.fts WHERE fts MATCH ?) s JOIN chunks c ON c.rowid = s.rowid "
            "ORDER BY s.score, c.id LIMIT ?", (*weights, match, limit)).fetchall()
        # SQLite's bm25() is negative, lower is better; flip it so higher is better.
        return [(str(chunk_id), -float(score) + 0.0) for chunk_id, score in rows]


def _check_integrity(conn: sqlite3.Connection, manifest: Manifest, db: Path) -> None:
    """Cheap checks that ``index.sqlite`` is whole and belongs to ``manifest``.

    A truncated file is caught by comparing the page count SQLite expects with the file
    size; a file from another build by the build id and revision in ``meta``. Damage in
    the middle of the file surfaces later as an CodeIndexError from the reader's queries.
    """
    try:
        page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
        stored = dict(conn.execute(
            "SELECT key, value FROM meta WHERE key IN ('index_build_id', 'revision')"))
    except (sqlite3.Error, TypeError, ValueError) as err:
        raise CodeIndexError(f"cannot read {db}: {err}; rebuild the index") from err
    size = db.stat().st_size
    if page_size * pages > size:
        raise CodeIndexError(f"{db} is truncated ({size} bytes, SQLite expects "
                          f"{page_size * pages}); rebuild the index")
    for key in ("index_build_id", "revision"):
        if stored.get(key) != getattr(manifest, key):
            raise CodeIndexError(f"{MANIFEST_FILE} and {INDEX_FILE} in {db.parent} disagree on "
                              f"{key} ({getattr(manifest, key)!r} vs {stored.get(key)!r}): one "
                              "of them was replaced or edited; rebuild the index")


def _entry(row: Sequence[object]) -> InventoryEntry:
    path, blob, size, language, category, fate, reason, chunker, chunks = row
    return InventoryEntry(
        path=str(path), blob_sha=None if blob is None else str(blob),
        size=None if size is None else int(str(size)),
        language=None if language is None else str(language), category=str(category),
        fate=str(fate), reason=None if reason is None else str(reason),
        chunker=None if chunker is None else str(chunker), chunks=int(str(chunks)))
