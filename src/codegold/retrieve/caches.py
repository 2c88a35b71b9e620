"""The caches retrieval keeps: dense vectors beside an index (``INDEX/dense/``) and the
content-addressed :class:`VectorStore` shared by indexes and revisions.

A cache is only ever a copy of what can be computed again, so a cache that is truncated,
torn or edited is treated as absent and recomputed, never trusted and never a crash.
"""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import msgspec
import numpy as np
import numpy.typing as npt

from codegold.plumbing.outputs import read_cache_file, write_cache_file


class DenseCacheMeta(msgspec.Struct, frozen=True, kw_only=True):
    """``INDEX/dense/<embedder-id>/meta.json``: which build the vectors beside it were made
    for, and the chunk id of each row (written last, so it vouches for the vectors)."""

    format: int
    chunk_ids: list[str]
    index_build_id: str | None = None
    embedder: str = ""
    dimensions: int = 0
    chunks: int = 0


def dense_cache_meta_bytes(meta: DenseCacheMeta) -> bytes:
    """The meta file's bytes (the field order above, ``json.dumps`` spacing)."""
    return json.dumps({"format": meta.format, "embedder": meta.embedder,
                       "dimensions": meta.dimensions, "index_build_id": meta.index_build_id,
                       "chunks": meta.chunks, "chunk_ids": meta.chunk_ids}).encode("utf-8")


def load_dense_cache(meta_path: Path, vectors_path: Path, *, cache_format: int,
                     build_id: str | None, dimensions: int | None = None
                     ) -> tuple[list[str], npt.NDArray[np.float32]] | None:
    """``(chunk ids, vectors)`` from a dense cache of ``cache_format`` made for index build
    ``build_id``.

    None when the cache is absent, from another build or format, or does not hold
    together: unreadable JSON or ``.npy``, not one finite float row per chunk id, or rows
    of another width than ``dimensions`` (when given).
    """
    try:
        meta = msgspec.json.decode(read_cache_file(meta_path), type=DenseCacheMeta)
        if meta.format != cache_format or meta.index_build_id != build_id:
            return None
        ids = meta.chunk_ids
        vectors = np.load(io.BytesIO(read_cache_file(vectors_path)), allow_pickle=False)
    except (OSError, ValueError, TypeError, EOFError):
        return None
    if (not isinstance(vectors, np.ndarray) or vectors.ndim != 2 or vectors.shape[0] != len(ids)
            or vectors.dtype.kind != "f"
            or (dimensions is not None and ids and vectors.shape[1] != dimensions)):
        return None
    rows = vectors.astype(np.float32, copy=False)
    if not bool(np.all(np.isfinite(rows))):
        return None
    return ids, rows


# --- content-addressed vectors, shared across revisions and indexes -----------------------

VECTOR_STORE_FORMAT = 1
VECTOR_STORE_FILE = "vectors.sqlite"
_STORE_KIND = "codegold-vectorstore"
_DIGEST_BYTES = 8


def vector_key(embedder_id: str, text: str) -> bytes:
    """The store key of one embedding: sha256 over the embedder id and the exact text it
    embeds. Same model, same input, same vector, whatever index or revision asks."""
    digest = hashlib.sha256()
    for part in (embedder_id.encode("utf-8"), text.encode("utf-8", "surrogatepass")):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.digest()


def _row_digest(key: bytes, blob: bytes) -> bytes:
    return hashlib.sha256(key + blob).digest()[:_DIGEST_BYTES]


class VectorStore:
    """Vectors keyed by :func:`vector_key` in one SQLite file, ``FOLDER/vectors.sqlite``.

    Format 1: table ``meta(kind, format)``; table ``vectors(key, dims, vector, digest)``
    with ``vector`` the little-endian float32 bytes and ``digest`` the first 8 bytes of
    sha256(key + vector). SQLite makes each write atomic and lets several processes share
    the file. A row whose digest, width or values do not hold together is treated as
    missing (and overwritten by the next :meth:`put_many`); a file that is not a store of
    this format is replaced by an empty one. When the folder cannot be written, vectors are
    kept in memory for the life of this object: a cache never fails a run.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / VECTOR_STORE_FILE
        self._local = threading.local()
        self._memory: dict[bytes, npt.NDArray[np.float32]] = {}
        self._lock = threading.Lock()
        self._usable = True
        self._ready = False

    def _connect(self) -> sqlite3.Connection | None:
        if not self._usable:
            return None
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        try:
            with self._lock:
                if not self._ready:
                    self._prepare()
                    self._ready = True
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            conn.execute("PRAGMA synchronous=NORMAL")
        except (OSError, sqlite3.Error):
            self._usable = False
            return None
        self._local.conn = conn
        return conn

    def _prepare(self) -> None:
        """Create the store, or replace a file that is not one (a cache holds nothing that
        cannot be computed again)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.path.is_symlink() or (self.path.exists() and not self._valid()):
            # a fresh store under an unpredictable name, renamed over what was there (a
            # planted link is replaced itself, its target never touched)
            write_cache_file(self.path, self._empty_store())
        elif not self.path.exists():
            self._create(self.path)

    def _valid(self) -> bool:
        try:
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30.0)
            try:
                row = conn.execute("SELECT kind, format FROM meta").fetchone()
                conn.execute("SELECT key, dims, vector, digest FROM vectors LIMIT 1").fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            return False
        return bool(row == (_STORE_KIND, VECTOR_STORE_FORMAT))

    def _empty_store(self) -> bytes:
        """The bytes of an empty store of this format."""
        with tempfile.TemporaryDirectory(prefix=".codegold-", dir=self.folder) as scratch:
            path = Path(scratch) / VECTOR_STORE_FILE
            self._create(path)
            return path.read_bytes()

    @staticmethod
    def _create(path: Path) -> None:
        conn = sqlite3.connect(path, timeout=30.0)
        try:
            with conn:
                conn.execute("CREATE TABLE IF NOT EXISTS meta (kind TEXT, format INTEGER)")
                conn.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, "
                             "dims INTEGER NOT NULL, vector BLOB NOT NULL, digest BLOB NOT NULL)")
                if conn.execute("SELECT count(*) FROM meta").fetchone() == (0,):
                    conn.execute("INSERT INTO meta VALUES (?, ?)", (_STORE_KIND, VECTOR_STORE_FORMAT))
        finally:
            conn.close()

    def get_many(self, keys: Sequence[bytes], dimensions: int
                 ) -> dict[bytes, npt.NDArray[np.float32]]:
        """The intact vectors of ``dimensions`` floats stored under ``keys``."""
        found = {k: self._memory[k] for k in keys if k in self._memory}
        conn = self._connect()
        wanted = [k for k in dict.fromkeys(keys) if k not in found]
        if conn is None or not wanted:
            return found
        step = 500
        try:
            for start in range(0, len(wanted), step):
                part = wanted[start:start + step]
                marks = ",".join("?" * len(part))
                rows = conn.execute(f"SELECT key, dims, vector, digest FROM vectors "
                                    f"WHERE key IN ({marks})", part).fetchall()
                for key, dims, blob, digest in rows:
                    vector = _decode_row(key, dims, blob, digest, dimensions)
                    if vector is not None:
                        found[bytes(key)] = vector
        except sqlite3.Error:
            return found
        return found

    def writable(self) -> bool:
        """Whether vectors go to the file (else they are kept in memory only)."""
        return self._connect() is not None

    @property
    def spilled(self) -> bool:
        """Whether some vectors could not be written and are held in memory only."""
        return bool(self._memory)

    def put_many(self, items: dict[bytes, npt.NDArray[np.float32]]) -> None:
        if not items:
            return
        conn = self._connect()
        if conn is None:
            self._memory.update(items)
            return
        rows = []
        for key, vector in items.items():
            blob = np.asarray(vector, dtype="<f4").tobytes()
            rows.append((key, int(vector.shape[0]), blob, _row_digest(key, blob)))
        try:
            with conn:
                conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error:
            self._memory.update(items)

    def close(self) -> None:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _decode_row(key: object, dims: object, blob: object, digest: object,
                dimensions: int) -> npt.NDArray[np.float32] | None:
    if (not isinstance(key, bytes) or not isinstance(blob, bytes) or dims != dimensions
            or len(blob) != 4 * dimensions or digest != _row_digest(key, blob)):
        return None
    vector = np.frombuffer(blob, dtype="<f4").astype(np.float32)
    return vector if bool(np.all(np.isfinite(vector))) else None
