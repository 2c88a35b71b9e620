"""An in-memory BM25 index over an index's chunks (numpy), cached beside the index.

SQLite FTS5's ``bm25()`` scores every matching row on each query; on tens of thousands of
chunks with common code words that costs 100+ ms per query. This engine precomputes each
posting's BM25 impact once, so a query is a few vectorised additions (about a millisecond
on 50k chunks).

Scoring is BM25 with field weights applied to term frequencies and lengths (a BM25F
approximation): ``tf = w_sym*tf_symbols + w_path*tf_path + w_body*tf_body``; tokens come
from :mod:`codegold.index.tokens`, as in the FTS columns.

Cache: ``INDEX/lexical/<key>/`` holds ``meta.json`` (format 3, index_build_id, k1, b,
field weights, unit, document count, and ``files``: each other file's size and sha256),
``chunk_ids.json``, ``vocab.json`` (term → row),
``offsets.npy`` (int64, one past each term's postings), ``docs.npy`` (int32 document
rows), ``impacts.npy`` (float32), ``files.json`` and ``file_starts.npy`` (int64: file i
holds rows ``file_starts[i]`` to ``file_starts[i + 1] - 1``; chunk unit). It is rebuilt
when the build id or parameters differ, or when any file fails its size/digest or
consistency check (truncated, torn or edited); an index folder that cannot be written
only loses the cache.

Building: an engine's documents never span files, so each file's weighted term counts
are made alone and the engines merged from them with numpy (idf, the average length and
the impacts need the whole index). With a chunk store, each file's documents are kept as
a side file of its store entry (``lexical-<params>``), so a later revision counts only
the files that changed; the caches are the same bytes either way.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import threading
from bisect import bisect_left
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from itertools import chain, groupby, repeat
from pathlib import Path
from typing import TypeVar

import msgspec
import numpy as np
import numpy.typing as npt

from codegold.errors import CodeIndexError
from codegold.execute.processes import PoolWording
from codegold.index.chunkstore import ChunkStore, IndexedRevision
from codegold.index.store import IndexReader
from codegold.index.tokens import STEMMER_KIND, stem
from codegold.plumbing.memo import MissCache
from codegold.plumbing.outputs import (
    cache_folder,
    read_cache_file,
    write_cache_file,
    write_vouched_cache_file,
)
from codegold.retrieve.compounds import Vocabulary, compound_terms

LEXICAL_FORMAT = 3
_CACHE_FILES = ("chunk_ids.json", "vocab.json", "files.json", "offsets.npy", "docs.npy",
                "impacts.npy", "file_starts.npy")
# Written beside them, read only to derive a later revision's engine from this one.
_STATE_FILES = ("tfs.npy", "lengths.npy")
_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str, str], LexicalIndex] = {}
# An engine's parameters: (field weights, k1, b, unit, stemmed).
_Spec = tuple[tuple[float, float, float], float, float, str, bool]
_Item = TypeVar("_Item", bound=np.generic)


# Token → its stem, for counting (a dict lookup per token, not an lru_cache call).
_STEMS: MissCache[str, str] = MissCache(stem, 200_000)


def _stemmed(counts: Mapping[str, int]) -> dict[str, int]:
    """``counts`` by English stem, in order of first appearance (a plain dict: a
    Counter's ``+=`` on a new key costs a Python-level ``__missing__`` call)."""
    out: dict[str, int] = {}
    get = out.get
    for token, n in zip(map(_STEMS.__getitem__, counts), counts.values(), strict=True):
        out[token] = get(token, 0) + n
    return out


class _Numbers(dict[str, int]):
    """Token → its number in a file's ``terms``, the next number given on a miss."""

    __slots__ = ()

    def __missing__(self, token: str) -> int:
        number = self[token] = len(self)
        return number


def _accumulate(counts: dict[str, float], more: Mapping[str, int], weight: float) -> None:
    """``counts[t] = counts.get(t, 0.0) + weight * n`` for each ``(t, n)`` of ``more``."""
    get = counts.get
    for token, n in more.items():
        counts[token] = get(token, 0.0) + weight * n


def _params(weights: tuple[float, float, float], k1: float, b: float, unit: str,
            stemmed: bool) -> str:
    """An engine's parameters as the canonical JSON its cache key is made of."""
    settings: dict[str, object] = {"w": list(weights), "k1": k1, "b": b, "unit": unit}
    if stemmed:  # unstemmed engines keep the cache key they always had
        settings["stem"] = True
    return json.dumps(settings, sort_keys=True)


def _cache_name(params: str) -> str:
    return hashlib.sha256(params.encode()).hexdigest()[:12]


class _Documents:
    """The weighted term counts of one engine's documents, filled chunk by chunk in
    index order (the arithmetic of a single build, in the same order)."""

    def __init__(self, weights: tuple[float, float, float], by_file: bool,
                 stemmed: bool) -> None:
        self.weights = weights
        self.by_file = by_file
        self.stemmed = stemmed
        self.chunk_ids: list[str] = []
        self.doc_terms: list[dict[str, float]] = []
        self.file_names: list[str] = []
        self.starts: list[int] = []

    def add(self, chunk_id: str, file: str,
            counted: tuple[Mapping[str, int], Mapping[str, int], Mapping[str, int]]) -> None:
        w_sym, w_path, w_body = self.weights
        symbols, path, body = counted
        if not self.file_names or self.file_names[-1] != file:
            self.file_names.append(file)
            self.starts.append(len(self.doc_terms) if not self.by_file
                               else len(self.file_names) - 1)
        if self.by_file and self.chunk_ids and self.chunk_ids[-1] == file:
            counts = self.doc_terms[-1]  # chunks of one file come together, in line order
        else:
            counts = {token: 0.0 + w_path * n for token, n in path.items()}
            self.chunk_ids.append(file if self.by_file else chunk_id)
            self.doc_terms.append(counts)
        _accumulate(counts, symbols, w_sym)
        _accumulate(counts, body, w_body)


def _fingerprint(data: bytes) -> dict[str, object]:
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


class LexicalIndex:
    def __init__(self, chunk_ids: list[str], vocab: dict[str, int],
                 offsets: npt.NDArray[np.int64], docs: npt.NDArray[np.int32],
                 impacts: npt.NDArray[np.float32], file_names: list[str] | None = None,
                 file_starts: npt.NDArray[np.int64] | None = None, *,
                 stemmed: bool = False, tfs: npt.NDArray[np.float64] | None = None,
                 lengths: npt.NDArray[np.float64] | None = None) -> None:
        self.chunk_ids = chunk_ids
        # What a later revision's engine is derived from (None when loaded for queries):
        # each posting's weighted frequency and each document's length, float64, exact.
        self.tfs = tfs
        self.lengths = lengths
        # The build id of the index this engine was derived from (None: counted whole).
        self.derived_from: str | None = None
        self._terms: tuple[list[str], bool] | None = None
        # Terms are English stems (documents and queries alike).
        self.stemmed = stemmed
        # Chunk unit only: documents of one file are contiguous rows; file i spans rows
        # file_starts[i] .. file_starts[i + 1] - 1.
        self.file_names = file_names or []
        self.file_starts = file_starts if file_starts is not None else np.zeros(1, dtype=np.int64)
        self._file_number = {name: i for i, name in enumerate(self.file_names)}
        self._rows: dict[str, int] | None = None
        self._vocabulary: Vocabulary | None = None
        self.vocab = vocab
        self.offsets = offsets
        self.docs = docs
        self.impacts = impacts

    @classmethod
    def for_reader(cls, reader: IndexReader, *, weights: tuple[float, float, float],
                   k1: float = 1.2, b: float = 0.75, unit: str = "chunk",
                   stemmed: bool = False, keep: bool = True) -> LexicalIndex:
        """The shared, cached engine for this index and these parameters.

        ``unit`` is ``chunk`` (documents are chunks, ids are chunk ids) or ``file``
        (documents are whole files, ids are paths). ``stemmed``: terms are English stems.
        ``keep`` False leaves an engine this process has not loaded yet out of its
        memory (the cache folder is still written): index-time warm-ups of many
        revisions then hold none of them.
        """
        build = reader.manifest.index_build_id or ""
        params = _params(weights, k1, b, unit, stemmed)
        key = (str(reader.path.resolve()), build, params)
        with _LOCK:
            found = _LOADED.get(key)
            if found is None:
                found = cls._load_or_build(reader, weights, k1, b, unit, build, params, stemmed)
                if keep:
                    _LOADED[key] = found
            return found

    @classmethod
    def is_cached(cls, reader: IndexReader, *, weights: tuple[float, float, float],
                  k1: float = 1.2, b: float = 0.75, unit: str = "chunk",
                  stemmed: bool = False) -> bool:
        """Whether this engine is loaded in this process or its cache folder names this
        build (a quick look at ``meta.json``; :meth:`load` verifies every file)."""
        build = reader.manifest.index_build_id or ""
        params = _params(weights, k1, b, unit, stemmed)
        if (str(reader.path.resolve()), build, params) in _LOADED:
            return True
        folder = reader.path / "lexical" / _cache_name(params)
        try:
            meta = json.loads(read_cache_file(folder / "meta.json"))
        except (OSError, ValueError):
            return False
        return (isinstance(meta, dict) and meta.get("format") == LEXICAL_FORMAT
                and meta.get("index_build_id") == build)

    @classmethod
    def _load_or_build(cls, reader: IndexReader, weights: tuple[float, float, float],
                       k1: float, b: float, unit: str, build: str, params: str,
                       stemmed: bool = False) -> LexicalIndex:
        name = _cache_name(params)
        cached = cls.load(reader.path / "lexical" / name, build)
        if cached is not None:
            cached.stemmed = stemmed
            return cached
        engine = cls.build(reader, weights=weights, k1=k1, b=b, unit=unit, stemmed=stemmed)
        engine._keep(reader, weights, k1, b, unit, build)
        return engine

    def _keep(self, reader: IndexReader, weights: tuple[float, float, float], k1: float,
              b: float, unit: str, build: str) -> None:
        """Save this engine's cache in ``INDEX/lexical/``; a read-only index folder keeps
        the engine in memory only."""
        name = _cache_name(_params(weights, k1, b, unit, self.stemmed))
        with contextlib.suppress(OSError):
            self.save(cache_folder(reader.path, "lexical", name),
                      {"format": LEXICAL_FORMAT, "index_build_id": build, "k1": k1, "b": b,
                       "field_weights": list(weights), "unit": unit,
                       "chunks": len(self.chunk_ids)})

    @classmethod
    def prepare(cls, reader: IndexReader,
                specs: Sequence[_Spec], *, keep: bool = False,
                store: ChunkStore | None = None, jobs: int | None = 1
                ) -> list[LexicalIndex]:
        """Make sure every engine of ``specs`` (``(weights, k1, b, unit, stemmed)``) is
        cached for this index: those not cached yet are built in one pass
        (:meth:`build_many`, with the chunk ``store`` when given) and saved. ``keep`` also
        holds them in this process's memory; ``jobs`` as in :meth:`build_many`. Returns
        the engines built (``derived_from`` says which came from an earlier revision's)."""
        build = reader.manifest.index_build_id or ""
        wanted = [spec for spec in dict.fromkeys(specs)
                  if not cls.is_cached(reader, weights=spec[0], k1=spec[1], b=spec[2],
                                       unit=spec[3], stemmed=spec[4])]
        if not wanted:
            return []
        engines = cls.build_many(reader, wanted, store=store, jobs=jobs)
        here = str(reader.path.resolve())
        with _LOCK:
            for (weights, k1, b, unit, stemmed), engine in zip(wanted, engines, strict=True):
                engine._keep(reader, weights, k1, b, unit, build)
                key = (here, build, _params(weights, k1, b, unit, stemmed))
                _remember_base(key, engine)
                if keep:
                    _LOADED.setdefault(key, engine)
        if store is not None and reader.meta("secrets") != "kept":
            chunk_ids = reader.chunk_ids_by_file()
            store.record_index(IndexedRevision(
                index=here, revision=reader.manifest.revision or "", build=build,
                chunker_version=reader.meta("chunker_version") or "",
                files=_file_blobs(reader, chunk_ids)))
        return engines

    @classmethod
    def load(cls, folder: Path, build: str, *, state: bool = False) -> LexicalIndex | None:
        """The cache in ``folder`` when it is whole and was made for index build ``build``;
        None when it is absent, from another build, or fails its size/digest check or a
        consistency check (a torn, truncated or edited cache is then rebuilt). ``state``
        also reads what a later revision is derived from (``tfs.npy``, ``lengths.npy``),
        and is None without it."""
        try:
            meta = json.loads(read_cache_file(folder / "meta.json"))
            if (not isinstance(meta, dict) or meta.get("format") != LEXICAL_FORMAT
                    or meta.get("index_build_id") != build):
                return None
            recorded = meta.get("files")
            if not isinstance(recorded, dict) or set(recorded) != set(_CACHE_FILES):
                return None
            wanted = dict.fromkeys(_CACHE_FILES, recorded)
            if state:
                kept = meta.get("state")
                if not isinstance(kept, dict) or set(kept) != set(_STATE_FILES):
                    return None
                wanted.update(dict.fromkeys(_STATE_FILES, kept))
            raw: dict[str, bytes] = {}
            for name, fingerprints in wanted.items():
                data = read_cache_file(folder / name)
                if fingerprints[name] != _fingerprint(data):
                    return None
                raw[name] = data
            arrays = {name: np.load(io.BytesIO(data), allow_pickle=False)
                      for name, data in raw.items() if name.endswith(".npy")}
            texts = {name: msgspec.json.decode(data) for name, data in raw.items()
                     if name.endswith(".json")}
        except (OSError, ValueError, TypeError, EOFError, RecursionError, msgspec.DecodeError):
            return None
        engine = cls._checked(texts["chunk_ids.json"], texts["vocab.json"],
                              texts["files.json"], arrays["offsets.npy"], arrays["docs.npy"],
                              arrays["impacts.npy"], arrays["file_starts.npy"])
        if engine is None or not state:
            return engine
        tfs, lengths = arrays["tfs.npy"], arrays["lengths.npy"]
        if not (isinstance(tfs, np.ndarray) and isinstance(lengths, np.ndarray)
                and tfs.dtype == np.float64 and lengths.dtype == np.float64
                and tfs.shape == engine.docs.shape and lengths.shape == (len(engine.chunk_ids),)
                and bool(np.all(np.isfinite(tfs))) and bool(np.all(np.isfinite(lengths)))):
            return None
        engine.tfs, engine.lengths = tfs, lengths
        return engine

    @classmethod
    def _checked(cls, chunk_ids: object, vocab: object, files: object, offsets: object,
                 docs: object, impacts: object, file_starts: object) -> LexicalIndex | None:
        """An engine from decoded cache parts, or None when they do not fit together (so a
        query can never index past an array, whatever the files hold)."""
        # (exact types, looked at in C: a bool is no row number)
        if not (isinstance(chunk_ids, list) and set(map(type, chunk_ids)) <= {str}
                and isinstance(files, list) and set(map(type, files)) <= {str}
                and isinstance(vocab, dict) and set(map(type, vocab.values())) <= {int}):
            return None
        if not (isinstance(offsets, np.ndarray) and isinstance(docs, np.ndarray)
                and isinstance(impacts, np.ndarray) and isinstance(file_starts, np.ndarray)):
            return None
        if (offsets.dtype != np.int64 or docs.dtype != np.int32 or impacts.dtype != np.float32
                or file_starts.dtype != np.int64
                or any(a.ndim != 1 for a in (offsets, docs, impacts, file_starts))):
            return None
        terms, count = len(vocab), len(chunk_ids)
        if (len(offsets) != terms + 1 or offsets[0] != 0 or offsets[-1] != len(docs)
                or len(impacts) != len(docs) or np.any(np.diff(offsets) < 0)):
            return None
        if vocab and (min(vocab.values()) < 0 or max(vocab.values()) >= terms
                      or len(set(vocab.values())) != terms):
            return None
        if len(docs) and (int(docs.min()) < 0 or int(docs.max()) >= count):
            return None
        if not bool(np.all(np.isfinite(impacts))):
            return None
        if (len(file_starts) != len(files) + 1 or (len(file_starts) and (
                file_starts[0] < 0 or file_starts[-1] != count
                or np.any(np.diff(file_starts) < 0)))):
            return None
        return cls(chunk_ids, vocab, offsets, docs, impacts, files, file_starts)

    @classmethod
    def build(cls, reader: IndexReader, *, weights: tuple[float, float, float],
              k1: float = 1.2, b: float = 0.75, unit: str = "chunk",
              stemmed: bool = False) -> LexicalIndex:
        return cls.build_many(reader, [(weights, k1, b, unit, stemmed)])[0]

    @classmethod
    def build_many(cls, reader: IndexReader, specs: Sequence[_Spec], *,
                   store: ChunkStore | None = None, jobs: int | None = 1
                   ) -> list[LexicalIndex]:
        """One engine per ``(weights, k1, b, unit, stemmed)``, each chunk's term counts made
        once (and stemmed once) for them all; each engine is the one :meth:`build` makes
        alone. With a chunk ``store``, a file whose documents it holds (a side file of the
        file's entry, written by an earlier build of any revision) is not counted again,
        and the documents of every other file are saved there: a second revision costs
        what changed, plus one vectorised merge. ``jobs``: worker processes that count
        the files (1: none; None: as a build would choose); the engines are the same."""
        shapes = list(dict.fromkeys(_shape(spec) for spec in specs))
        if store is not None and reader.meta("secrets") != "kept":
            derived = _from_nearest(reader, specs, shapes, store, jobs)
            if derived is not None:
                return derived
        return _merged(_file_documents(reader, shapes, store, jobs), shapes, specs)

    def save(self, folder: Path, meta: dict[str, object]) -> None:
        """Write the cache into ``folder`` (a :func:`cache_folder`); ``meta.json`` (with each
        file's size and digest) goes last, so its presence says the rest is complete and
        :meth:`load` can verify every file."""
        payloads: dict[str, bytes] = {}
        for name, array in (("offsets.npy", self.offsets), ("docs.npy", self.docs),
                            ("impacts.npy", self.impacts), ("file_starts.npy", self.file_starts)):
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            payloads[name] = buffer.getvalue()
        for name, data in (("chunk_ids.json", self.chunk_ids), ("vocab.json", self.vocab),
                           ("files.json", self.file_names)):
            payloads[name] = msgspec.json.encode(data)
        # A stale meta.json must not vouch for files being replaced under it.
        with contextlib.suppress(FileNotFoundError):
            (folder / "meta.json").unlink()
        # (meta.json, written last through a rename, vouches for each file's digest)
        for name, payload in payloads.items():
            write_vouched_cache_file(folder / name, payload)
        state: dict[str, object] = {}
        if self.tfs is not None and self.lengths is not None:
            for name, values in (("tfs.npy", self.tfs), ("lengths.npy", self.lengths)):
                buffer = io.BytesIO()
                np.save(buffer, values, allow_pickle=False)
                write_vouched_cache_file(folder / name, buffer.getvalue())
                state[name] = _fingerprint(buffer.getvalue())
        files = {name: _fingerprint(payloads[name]) for name in _CACHE_FILES}
        extra = {"state": state} if state else {}
        write_cache_file(folder / "meta.json",
                         json.dumps({**meta, "files": files, **extra}).encode("utf-8"))

    def terms_by_row(self) -> tuple[list[str], bool]:
        """The terms in row order, and whether :attr:`vocab` lists them in that order
        (then a later engine with the same terms may share it)."""
        if self._terms is None:
            terms = list(self.vocab)
            in_order = list(self.vocab.values()) == list(range(len(terms)))
            if not in_order:
                for term, number in self.vocab.items():
                    terms[number] = term
            self._terms = (terms, in_order)
        return self._terms

    def vocabulary(self) -> Vocabulary:
        """This engine's terms for compound lookups (built on first use, then kept)."""
        if self._vocabulary is None:
            offsets, vocab = self.offsets, self.vocab
            self._vocabulary = Vocabulary(
                list(vocab), lambda t: int(offsets[vocab[t] + 1] - offsets[vocab[t]]))
        return self._vocabulary

    def compounds(self, words: Sequence[str], skip: frozenset[str],
                  per_word: int = 3) -> list[str]:
        """Terms of this engine that join question ``words`` (see :mod:`compounds`)."""
        fold = stem if self.stemmed else (lambda w: w)
        return compound_terms(words, self.vocabulary(), fold=fold, skip=skip,
                              per_word=per_word)

    def scores(self, tokens: Sequence[str], extra: Sequence[str] = (),
               extra_weight: float = 0.0, weights: Mapping[str, float] | None = None
               ) -> npt.NDArray[np.float32]:
        """BM25 of every document (row order of ``chunk_ids``) for the distinct ``tokens``,
        each at its query weight in ``weights`` (1 when absent), plus ``extra`` terms
        (already in this engine's form) at ``extra_weight``."""
        scores = np.zeros(len(self.chunk_ids), dtype=np.float32)
        weights = weights or {}
        weighted: dict[str, float] = {}
        for token in tokens:
            key = stem(token) if self.stemmed else token
            weighted[key] = max(weighted.get(key, 0.0), weights.get(token, 1.0))
        for token, weight in weighted.items():
            self._add(scores, token, None if weight == 1.0 else weight)
        for token in extra:
            self._add(scores, token, extra_weight)
        return scores

    def _add(self, scores: npt.NDArray[np.float32], token: str, weight: float | None) -> None:
        """Add ``token``'s impacts (times ``weight`` when given) to its documents' scores."""
        row = self.vocab.get(token)
        if row is not None:
            start, end = self.offsets[row], self.offsets[row + 1]
            impacts = self.impacts[start:end]
            scores[self.docs[start:end]] += impacts if weight is None \
                else np.float32(weight) * impacts

    def document_frequency(self, term: str) -> int:
        """How many documents hold ``term`` (in this engine's form: stemmed for a stemmed
        engine)."""
        row = self.vocab.get(term)
        return 0 if row is None else int(self.offsets[row + 1] - self.offsets[row])

    def row_of(self, doc_id: str) -> int | None:
        """The row of a document (a chunk id, or a path in the file unit) in ``scores``."""
        if self._rows is None:
            self._rows = {doc: row for row, doc in enumerate(self.chunk_ids)}
        return self._rows.get(doc_id)

    def best_in_file(self, scores: npt.NDArray[np.float32], path: str,
                     count: int) -> list[tuple[str, float]]:
        """The ``count`` best-scoring documents of one file (chunk unit), best first."""
        number = self._file_number.get(path)
        if number is None:
            return []
        start, end = int(self.file_starts[number]), int(self.file_starts[number + 1])
        part = scores[start:end]
        order = sorted(range(end - start), key=lambda i: (-float(part[i]), self.chunk_ids[start + i]))
        return [(self.chunk_ids[start + i], float(part[i])) for i in order[:count] if part[i] > 0]

    def search(self, tokens: Sequence[str], limit: int, extra: Sequence[str] = (),
               extra_weight: float = 0.0, weights: Mapping[str, float] | None = None
               ) -> list[tuple[str, float]]:
        """BM25 over the distinct ``tokens`` (and ``extra`` at ``extra_weight``, see
        :meth:`scores`); best first, ties broken on chunk id."""
        if limit <= 0 or not self.chunk_ids:
            return []
        scores = self.scores(tokens, extra, extra_weight, weights)
        matched = int(np.count_nonzero(scores))
        take = min(limit, matched)
        if take == 0:
            return []
        # Widen the cut a little so ties at the boundary are broken on chunk id, not position.
        width = min(matched, take + 32)
        top = np.argpartition(-scores, width - 1)[:width]
        ranked = sorted(((float(scores[i]), self.chunk_ids[i]) for i in top.tolist() if scores[i] > 0),
                        key=lambda item: (-item[0], item[1]))
        return [(chunk_id, score) for score, chunk_id in ranked[:take]]


# The per-file documents of a build (see :meth:`LexicalIndex.build_many`). An engine's
# documents never span files, so each file's weighted term counts are computed alone
# (the same arithmetic, in the same order, as over the whole index) and merged with
# numpy; only idf, the average length and the impacts need every file.
_Shape = tuple[tuple[float, float, float], bool, bool]  # weights, by file, stemmed
_FieldRow = tuple[str, str, list[str], list[str], list[str]]  # IndexReader.iter_lexical_fields
_DOCUMENTS_FORMAT = 1


class _Part(msgspec.Struct, frozen=True, array_like=True):
    """One engine shape's documents of one file: per posting (documents one after
    another) the number of its term in the file's ``terms`` (little-endian int32) and its
    weighted frequency (little-endian float64); each document's posting count and its
    length (the sum of its frequencies, in posting order)."""

    ids: bytes
    tfs: bytes
    sizes: list[int]
    lengths: list[float]


class _FileDocuments(msgspec.Struct, frozen=True, array_like=True):
    """A file's chunk ids (index order), the terms of all its documents (numbered in
    order of first appearance) and one :class:`_Part` per engine shape."""

    chunk_ids: list[str]
    terms: list[str]
    parts: list[_Part]


_documents_decoder = msgspec.msgpack.Decoder(_FileDocuments)
_documents_encoder = msgspec.msgpack.Encoder()


def _shape(spec: _Spec) -> _Shape:
    weights, _, _, unit, stemmed = spec
    return tuple(weights), unit == "file", bool(stemmed)  # type: ignore[return-value]


def _side_name(shapes: Sequence[_Shape]) -> str:
    """The chunk store side file that holds a file's documents for ``shapes``."""
    key = json.dumps([LEXICAL_FORMAT, _DOCUMENTS_FORMAT, STEMMER_KIND,
                      [[list(weights), by_file, stemmed] for weights, by_file, stemmed in shapes]])
    return "lexical-" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _file_documents(reader: IndexReader, shapes: Sequence[_Shape], store: ChunkStore | None,
                    jobs: int | None = 1, only: Collection[str] | None = None,
                    every: dict[str, list[str]] | None = None
                    ) -> list[tuple[str, _FileDocuments]]:
    """Every file's documents, in index order: from ``store`` when it holds them for this
    file's blob, else counted from the index's tokens (and then saved in ``store``), in
    ``jobs`` worker processes when there are many to count (see :func:`_count_files`).
    The store holds redacted chunks only, so an index that kept secret values never uses
    it. ``only``: just these files' documents; ``every``: the index's chunk ids by file
    when the caller has them."""
    every = chunk_ids = every if every is not None else reader.chunk_ids_by_file()
    if only is not None:
        wanted = set(only)
        chunk_ids = {file: ids for file, ids in every.items() if file in wanted}
    if store is not None and reader.meta("secrets") == "kept":
        store = None
    name = _side_name(shapes)
    version = reader.meta("chunker_version") or ""
    blobs: dict[str, str] = {}
    found: dict[str, _FileDocuments] = {}
    if store is not None:
        blobs = _file_blobs(reader, chunk_ids)
        for file, ids in chunk_ids.items():
            raw = store.get_side(file, blobs[file], name, version) if file in blobs else None
            documents = _decoded(raw, ids, shapes) if raw is not None else None
            if documents is not None:
                found[file] = documents
    missing = [file for file in chunk_ids if file not in found]
    for file, documents in _count_files(reader, missing, shapes, every, jobs):
        found[file] = documents
        if store is not None and file in blobs:
            store.put_side(file, blobs[file], name, _documents_encoder.encode(documents),
                           version)
    return [(file, found[file]) for file in chunk_ids if file in found]


# Counting in worker processes goes in about this many batches per worker (each a run of
# files in index order, of similar chunk counts).
_BATCHES_PER_WORKER = 4
_COUNTING_WORKERS = PoolWording(
    cannot_start="cannot start {workers} worker processes to count terms: {error}",
    died="a worker process counting terms died (killed, or out of memory?)",
    error=CodeIndexError)


def _count_files(reader: IndexReader, files: list[str], shapes: Sequence[_Shape],
                 chunk_ids: Mapping[str, list[str]], jobs: int | None
                 ) -> Iterator[tuple[str, _FileDocuments]]:
    """``(file, documents)`` of each of ``files``, in their order, counted from the
    index's tokens: here, or for many files in worker processes that each open the index
    themselves (``jobs``: how many; None lets the build's rule choose, which forks for 64
    files or more and only from a process without other threads; 1 uses none). The
    counts are the same either way: each file's documents depend on its rows alone."""
    pool = None
    if jobs != 1 and len(files) > 1:
        # The build's rule for forking (imported here: a query, jobs=1, never needs it).
        from codegold.index.build.batching import start_pool, workers_for

        pool = start_pool(workers_for(jobs, len(files)), insisted=False,
                          wording=_COUNTING_WORKERS)
    if pool is None:
        groups: Iterable[tuple[str, Iterable[_FieldRow]]]
        if len(files) == len(chunk_ids):  # every file: one pass over the token table
            groups = groupby(reader.iter_lexical_fields(), key=lambda row: row[1])
        else:
            groups = ((file, reader.iter_lexical_fields(file)) for file in files)
        for file, rows in groups:
            yield file, _counted(file, list(rows), shapes)
        return
    jobs_ = [(str(reader.path), batch, tuple(shapes))
             for batch in _batches(files, chunk_ids, pool.workers * _BATCHES_PER_WORKER)]
    with pool:
        for counted in pool.ordered(_count_batch, jobs_):
            for file, raw in counted:
                yield file, _documents_decoder.decode(raw)


def _batches(files: list[str], chunk_ids: Mapping[str, list[str]], count: int
             ) -> list[list[str]]:
    """``files`` cut into at most ``count`` runs (in order) of about equal chunk counts."""
    total = sum(len(chunk_ids[file]) for file in files)
    per = max(1, -(-total // count))
    batches: list[list[str]] = [[]]
    held = 0
    for file in files:
        if held >= per:
            batches.append([])
            held = 0
        batches[-1].append(file)
        held += len(chunk_ids[file])
    return batches


def _count_batch(job: tuple[str, list[str], tuple[_Shape, ...]]) -> list[tuple[str, bytes]]:
    """In a worker: the encoded documents of each file of one batch."""
    path, files, shapes = job
    with IndexReader.open(path) as reader:
        return [(file, _documents_encoder.encode(
                    _counted(file, list(reader.iter_lexical_fields(file)), shapes)))
                for file in files]


def _counted(file: str, rows: Sequence[_FieldRow],
             shapes: Sequence[_Shape]) -> _FileDocuments:
    """The documents of one file's chunks (``iter_lexical_fields`` rows) for each shape."""
    stemming = any(s for *_, s in shapes)
    plain: list[tuple[Mapping[str, int], Mapping[str, int], Mapping[str, int]]] = []
    folded: list[tuple[Mapping[str, int], Mapping[str, int], Mapping[str, int]]] = []
    last_path: list[str] | None = None
    path_counts: Mapping[str, int] = {}
    stemmed_path: Mapping[str, int] = {}
    for _, _, symbol_tokens, path_tokens, body_tokens in rows:
        if path_tokens != last_path:  # every chunk of a file has its path's tokens
            last_path, path_counts = path_tokens, Counter(path_tokens)
            stemmed_path = _stemmed(path_counts) if stemming else path_counts
        symbols, body = Counter(symbol_tokens), Counter(body_tokens)
        plain.append((symbols, path_counts, body))
        if stemming:
            folded.append((_stemmed(symbols), stemmed_path, _stemmed(body)))
    if not stemming:
        folded = plain
    numbers = _Numbers()
    parts = []
    for weights, by_file, stemmed in shapes:
        documents = _Documents(weights, by_file, stemmed)
        for row, counted in zip(rows, folded if stemmed else plain, strict=True):
            documents.add(row[0], file, counted)
        ids: list[int] = []
        tfs: list[float] = []
        for counts in documents.doc_terms:
            ids.extend(map(numbers.__getitem__, counts))
            tfs.extend(counts.values())
        parts.append(_Part(np.asarray(ids, dtype="<i4").tobytes(),
                           np.asarray(tfs, dtype="<f8").tobytes(),
                           [len(counts) for counts in documents.doc_terms],
                           [float(sum(counts.values())) for counts in documents.doc_terms]))
    return _FileDocuments([row[0] for row in rows], list(numbers), parts)


def _decoded(raw: bytes, chunk_ids: list[str], shapes: Sequence[_Shape]
             ) -> _FileDocuments | None:
    """Stored documents when they decode and fit this file of this index, else None."""
    try:
        documents = _documents_decoder.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if documents.chunk_ids != chunk_ids or len(documents.parts) != len(shapes):
        return None
    for part, (_, by_file, _) in zip(documents.parts, shapes, strict=True):
        count = 1 if by_file else len(chunk_ids)
        postings = sum(part.sizes)
        if (len(part.sizes) != count or len(part.lengths) != count
                or any(size < 0 for size in part.sizes)
                or len(part.ids) != 4 * postings or len(part.tfs) != 8 * postings):
            return None
        ids = np.frombuffer(part.ids, dtype="<i4")
        if len(ids) and (int(ids.min()) < 0 or int(ids.max()) >= len(documents.terms)):
            return None
        if not (np.all(np.isfinite(np.frombuffer(part.tfs, dtype="<f8")))
                and all(math.isfinite(length) for length in part.lengths)):
            return None
    return documents


def _merged(files: Sequence[tuple[str, _FileDocuments]], shapes: Sequence[_Shape],
            specs: Sequence[_Spec]) -> list[LexicalIndex]:
    """One engine per spec from every file's documents (what one pass over the whole
    index computes, bit for bit). Every term is numbered by its rank among all the
    files' terms, so an engine's postings sort by term with integer keys alone."""
    tokens = sorted(dict.fromkeys(chain.from_iterable(d.terms for _, d in files)))
    rank = {token: number for number, token in enumerate(tokens)}
    # every file's terms one after another, as ranks; a file's term i sits at its base + i
    ranks = np.fromiter(map(rank.__getitem__, chain.from_iterable(d.terms for _, d in files)),
                        dtype=np.int64)
    bases = np.cumsum([0, *(len(d.terms) for _, d in files)], dtype=np.int64)[:-1]
    return [_merge(files, ranks, bases, tokens, shapes.index(_shape(spec)), spec)
            for spec in specs]


def stable_order(keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``np.argsort(keys, kind="stable")`` for non-negative integer keys, as a radix sort:
    one stable sort of 16-bit digits per 16 bits of the largest key, lowest digit first
    (numpy sorts 16-bit integers by counting, several times faster than it sorts wider
    ones). Postings are sorted by term rank, which rarely needs more than two digits."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    top = int(keys.max())
    order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    shift = 16
    while top >> shift:
        digit = ((keys[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    return order.astype(np.int64, copy=False)


def _merge(files: Sequence[tuple[str, _FileDocuments]], ranks: npt.NDArray[np.int64],
           bases: npt.NDArray[np.int64], tokens: Sequence[str], shape: int, spec: _Spec
           ) -> LexicalIndex:
    _, k1, b, unit, stemmed = spec
    by_file = unit == "file"
    ids: list[npt.NDArray[np.int32]] = []
    tfs: list[npt.NDArray[np.float64]] = []
    postings: list[int] = []
    sizes: list[int] = []
    lengths: list[float] = []
    chunk_ids: list[str] = []
    file_names: list[str] = []
    starts: list[int] = []
    for file, documents in files:
        part = documents.parts[shape]
        starts.append(len(file_names) if by_file else len(lengths))
        file_names.append(file)
        if by_file:
            chunk_ids.append(file)
        else:
            chunk_ids.extend(documents.chunk_ids)
        ids.append(np.frombuffer(part.ids, dtype="<i4"))
        tfs.append(np.frombuffer(part.tfs, dtype="<f8"))
        postings.append(len(part.ids) // 4)
        sizes.extend(part.sizes)
        lengths.extend(part.lengths)
    every = ranks[np.concatenate(ids) + np.repeat(bases, postings)] if ids \
        else np.zeros(0, dtype=np.int64)
    # Postings in document order; one stable sort by term keeps rows ascending per term.
    order = stable_order(every)
    ordered = every[order]
    firsts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1]))) \
        if len(ordered) else np.zeros(0, dtype=np.int64)
    offsets = np.append(firsts, len(ordered)).astype(np.int64)
    frequency = (np.concatenate(tfs) if tfs else np.zeros(0, dtype=np.float64))[order]
    rows = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)[order]
    return _finished(list(map(tokens.__getitem__, ordered[firsts].tolist())), offsets, rows,
                     frequency, lengths, chunk_ids, file_names, starts, k1, b, stemmed)


def _finished(terms: list[str], offsets: npt.NDArray[np.int64], rows: npt.NDArray[np.int64],
              frequency: npt.NDArray[np.float64], lengths: list[float], chunk_ids: list[str],
              file_names: list[str], starts: list[int], k1: float, b: float, stemmed: bool,
              vocab: dict[str, int] | None = None,
              term_of: npt.NDArray[np.int64] | None = None) -> LexicalIndex:
    """The engine of postings sorted by term (``terms`` in row order, ``offsets``), then
    document ``rows``, with their weighted ``frequency``, and each document's length:
    every float of the impacts is computed here, from these alone, in one order, so an
    engine counted whole and one derived from a predecessor's are the same bytes."""
    total = len(chunk_ids)
    average = (sum(lengths) / total) if total else 1.0
    # (one IEEE operation per numpy pass, in the order ``k1 * (1 - b + b * l / avg)``
    # evaluates one length at a time: the same doubles)
    norms = k1 * ((1 - b) + (b * np.asarray(lengths, dtype=np.float64)) / average)
    counts_per_term = np.diff(offsets)
    if term_of is None:  # (else each posting's term row, given by a caller that has it)
        term_of = np.repeat(np.arange(len(counts_per_term), dtype=np.int64), counts_per_term)
    if vocab is None:  # (else ``terms`` in row order already, as a dict)
        vocab = dict(zip(terms, range(len(terms)), strict=True))
    # The same double-precision arithmetic as one posting at a time, rounded once (each
    # document frequency's idf computed once: most terms share a small one).
    # (the distinct frequencies found by counting, not sorting: they are small integers)
    seen = np.flatnonzero(np.bincount(counts_per_term)) if len(counts_per_term) \
        else np.zeros(0, dtype=np.int64)
    table = np.zeros(int(seen[-1]) + 1 if len(seen) else 0, dtype=np.float64)
    table[seen] = [math.log(1 + (total - n + 0.5) / (n + 0.5)) for n in seen.tolist()]
    idf = table[counts_per_term]
    norm = norms[rows] if len(rows) \
        else np.zeros(0, dtype=np.float64)
    saturated = frequency * (k1 + 1) / (frequency + norm)
    docs = rows.astype(np.int32)
    impacts = (idf[term_of] * saturated).astype(np.float32)
    file_starts = np.array([*starts, total], dtype=np.int64)
    engine = LexicalIndex(chunk_ids, vocab, offsets, docs, impacts, file_names, file_starts,
                          stemmed=stemmed, tfs=np.ascontiguousarray(frequency, dtype=np.float64),
                          lengths=np.asarray(lengths, dtype=np.float64))
    engine._terms = (terms, True)  # ``vocab`` was made from ``terms`` here, in order
    return engine


# --- a revision's engines derived from the nearest indexed revision's ---------------------
#
# A revision after one already indexed with the same chunk store shares most files with
# it. Its engines are then made from that revision's (loaded with their state: each
# posting's weighted frequency and each document's length): the postings of files whose
# chunks are the same are kept, with their rows renumbered; those of removed and changed
# files dropped; the changed and added files' documents (from the store, or counted)
# merged in by term and row. Only integers and the stored frequencies move; every float
# of the impacts is computed afresh by :func:`_finished`, as a cold build computes it, so
# the caches are the same bytes.


def _derived(base: LexicalIndex, chunk_ids: Mapping[str, list[str]], unchanged: set[str],
             changed: Mapping[str, _FileDocuments], shape: int, spec: _Spec
             ) -> LexicalIndex | None:
    """The engine of ``spec`` for an index whose files (``chunk_ids``, index order) are
    those of ``base`` for ``unchanged`` and ``changed``'s documents for the others; None
    when ``base`` does not fit (no state, files in another order, other chunk ids)."""
    _, k1, b, unit, stemmed = spec
    if base.tfs is None or base.lengths is None:
        return None
    by_file = unit == "file"
    files = list(chunk_ids)
    old_rows = np.full(len(base.chunk_ids), -1, dtype=np.int64)
    ids: list[str] = []
    starts: list[int] = []
    lengths: list[float] = []
    added: list[tuple[int, _Part, list[str]]] = []  # first row, documents, their terms
    # Unchanged files come in runs that sit together in ``base`` too: each run's rows
    # move as one slice, so the work follows the changed files, not every file.
    for first, last, kept_run in _runs(base, files, unchanged):
        row = len(ids)
        if not kept_run:
            file = files[first]
            starts.append(first if by_file else row)
            documents = changed[file]
            part = documents.parts[shape]
            ids.extend([file] if by_file else documents.chunk_ids)
            lengths.extend(part.lengths)
            added.append((row, part, documents.terms))
            continue
        run = files[first:last]
        span = _run_span(base, run)
        if span is None:
            return None
        start, end = span
        kept = base.chunk_ids[start:end]
        if by_file:
            if kept != run:
                return None
            starts.extend(range(first, last))
        else:
            bounds = base.file_starts[base._file_number[run[0]]:base._file_number[run[-1]] + 2]
            if kept != list(chain.from_iterable(map(chunk_ids.__getitem__, run))) or \
                    np.diff(bounds).tolist() != [len(chunk_ids[file]) for file in run]:
                return None
            starts.extend((bounds[:-1] - start + row).tolist())
        old_rows[start:end] = np.arange(row, row + end - start)
        ids.extend(kept)
        lengths.extend(base.lengths[start:end].tolist())
    file_names = files
    total = len(ids)
    mapped = old_rows[old_rows >= 0]
    if len(mapped) and not bool(np.all(mapped[1:] > mapped[:-1])):
        return None  # kept documents in another order: rows would not stay sorted
    # The kept postings: still sorted by (term, row), as both move monotonically.
    counts = np.diff(base.offsets)
    rows = old_rows[base.docs]
    keep = rows >= 0
    old_terms = np.repeat(np.arange(len(counts), dtype=np.int64), counts)[keep]
    rows, tfs = rows[keep], base.tfs[keep]
    alive = np.flatnonzero(np.bincount(old_terms, minlength=len(counts)))
    by_row, in_order = base.terms_by_row()
    if len(alive) == len(by_row):
        kept_terms = by_row
    else:  # usually a few terms die: deleted from a copy, last first
        kept_terms = list(by_row)
        dead = np.ones(len(by_row), dtype=bool)
        dead[alive] = False
        for number in np.flatnonzero(dead)[::-1].tolist():
            del kept_terms[number]
    is_alive = np.zeros(len(by_row), dtype=bool)
    is_alive[alive] = True
    # The added documents' postings: each local term number, the word it stands for.
    alive_or_not = np.append(is_alive, False)  # row -1: a word the base never had
    get_old = base.vocab.get
    new_words: dict[str, None] = {}
    parts: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64],
                      list[str], npt.NDArray[np.int64], list[int]]] = []
    for first, part, terms in added:
        local = np.frombuffer(part.ids, dtype="<i4").astype(np.int64)
        part_rows = first + np.repeat(np.arange(len(part.sizes), dtype=np.int64), part.sizes)
        olds = np.fromiter(map(get_old, terms, repeat(-1)), np.int64, len(terms))
        used = np.flatnonzero(np.bincount(local, minlength=len(terms)))  # sorted, once each
        missing = used[~alive_or_not[olds[used]]].tolist()
        for number in missing:
            new_words[terms[number]] = None
        parts.append((local, part_rows, np.frombuffer(part.tfs, dtype="<f8"), terms, olds,
                      missing))
    fresh = sorted(new_words)
    # Each kept term moves up by the fresh terms sorted before it.
    inserted = np.array([bisect_left(kept_terms, word) for word in fresh], dtype=np.int64)
    moved = np.arange(len(kept_terms), dtype=np.int64) + \
        np.searchsorted(inserted, np.arange(len(kept_terms), dtype=np.int64), side="right")
    final_of_old = np.full(len(by_row), -1, dtype=np.int64)
    final_of_old[alive] = moved
    final_of_fresh = {word: int(at) + n for n, (word, at) in enumerate(
        zip(fresh, inserted.tolist(), strict=True))}
    terms_final = kept_terms
    if fresh:  # each fresh word at its place: slices of the sorted kept terms between them
        pieces: list[list[str]] = []
        start = 0
        for word, at in zip(fresh, inserted.tolist(), strict=True):
            pieces += (kept_terms[start:at], [word])
            start = at
        pieces.append(kept_terms[start:])
        terms_final = list(chain.from_iterable(pieces))
        if terms_final == by_row:  # the words a changed file dropped, it brought back:
            terms_final = by_row  # the base's vocabulary serves (no dict made again)
    width = max(total, 1)
    term_rows = final_of_old[old_terms]
    if parts:
        new_terms: list[npt.NDArray[np.int64]] = []
        new_rows: list[npt.NDArray[np.int64]] = []
        new_tfs: list[npt.NDArray[np.float64]] = []
        kept_or_none = np.append(final_of_old, -1)  # row -1: a word the base never had
        for local, part_rows, part_tfs, terms, olds, missing in parts:
            # a word is a kept term or a fresh one; the file's words of other engine
            # shapes are never looked up
            lookup = kept_or_none[olds]
            lookup[missing] = [final_of_fresh[terms[number]] for number in missing]
            new_terms.append(lookup[local])
            new_rows.append(part_rows)
            new_tfs.append(part_tfs)
        more_terms, more_rows = np.concatenate(new_terms), np.concatenate(new_rows)
        more = more_terms * width + more_rows
        order = np.argsort(more, kind="stable")
        more = more[order]
        if not bool(np.all(more[1:] > more[:-1])):
            return None  # a term twice in one document: not the documents they seem
        # (added documents' rows are none of the kept ones': no key is in both)
        places = np.searchsorted(term_rows * width + rows, more)
        # where each added posting lands among all (``np.insert`` of each array, its
        # places worked out once for the three)
        landed = places + np.arange(len(places), dtype=np.int64)
        stays = np.ones(len(rows) + len(places), dtype=bool)
        stays[landed] = False
        term_rows = _spliced(term_rows, stays, landed, more_terms[order])
        rows = _spliced(rows, stays, landed, more_rows[order])
        tfs = _spliced(tfs, stays, landed, np.concatenate(new_tfs)[order])
    offsets = np.concatenate(([0], np.cumsum(np.bincount(term_rows, minlength=len(terms_final)))
                              )).astype(np.int64)
    return _finished(terms_final, offsets, rows, tfs, lengths, ids, file_names, starts,
                     k1, b, stemmed, vocab=base.vocab if in_order and terms_final is by_row else None,
                     term_of=term_rows)


def _spliced(kept: npt.NDArray[_Item], stays: npt.NDArray[np.bool_],
             landed: npt.NDArray[np.int64], added: npt.NDArray[_Item]) -> npt.NDArray[_Item]:
    """``kept`` with ``added`` put at the positions ``landed`` (``stays`` marks the others)."""
    out = np.empty(len(stays), dtype=kept.dtype)
    out[stays] = kept
    out[landed] = added
    return out


def _runs(base: LexicalIndex, files: Sequence[str], unchanged: Collection[str]
          ) -> Iterator[tuple[int, int, bool]]:
    """``files`` cut into ``(first, end, unchanged)`` slices: each changed file alone, and
    runs of unchanged files that follow one another in ``base`` too (a file ``base``
    lacks ends a run and is a run of its own, which its caller refuses)."""
    count = len(files)
    if not count:
        return
    numbers = np.fromiter((base._file_number.get(file, -2) for file in files), np.int64,
                          count)
    kept = np.fromiter((file in unchanged for file in files), bool, count)
    goes_on = np.zeros(count, dtype=bool)
    goes_on[1:] = kept[1:] & kept[:-1] & (numbers[1:] == numbers[:-1] + 1) & \
        (numbers[1:] >= 0)
    heads = np.flatnonzero(~goes_on).tolist()
    for first, end in zip(heads, [*heads[1:], count], strict=True):
        yield first, end, bool(kept[first])


def _run_span(base: LexicalIndex, run: Sequence[str]) -> tuple[int, int] | None:
    """The rows of ``base`` from the first file of ``run`` to the end of its last (None
    when ``base`` lacks either)."""
    first, last = base._file_number.get(run[0]), base._file_number.get(run[-1])
    if first is None or last is None:
        return None
    return int(base.file_starts[first]), int(base.file_starts[last + 1])


def _same_chunks_runs(base: LexicalIndex, chunk_ids: Mapping[str, list[str]],
                      unchanged: set[str]) -> set[str]:
    """The files of ``unchanged`` that have exactly their ``chunk_ids`` in the chunk
    engine ``base``: compared a run of files at a time, file by file only in a run that
    differs somewhere."""
    files = list(chunk_ids)
    same: set[str] = set()
    for first, end, kept in _runs(base, files, unchanged):
        if not kept:
            continue
        run = files[first:end]
        span = _run_span(base, run)
        if span is not None and base.chunk_ids[span[0]:span[1]] == list(
                chain.from_iterable(map(chunk_ids.__getitem__, run))):
            same.update(run)
            continue
        same.update(file for file in run if _same_chunks(base, file, chunk_ids[file]))
    return same


def _file_blobs(reader: IndexReader, chunk_ids: Mapping[str, list[str]]) -> dict[str, str]:
    """The blob of each file of ``chunk_ids`` (the files with chunks)."""
    return {path: blob for path, blob in reader.file_blobs().items()
            if blob and path in chunk_ids}


# The engines (with their state) of the indexes this process built last: a history built
# in one call derives each revision from the one before without reading it back.
_BASES: dict[tuple[str, str, str], LexicalIndex] = {}
# (about one index's engines: each holds 16 bytes a posting, tens of MB for a large one)
_MAX_BASES = 6
# Noted indexes tried, nearest first, when one's caches are gone or damaged.
_BASE_TRIES = 3


def _remember_base(key: tuple[str, str, str], engine: LexicalIndex) -> None:
    if engine.tfs is None:
        return
    _BASES.pop(key, None)
    _BASES[key] = engine
    while len(_BASES) > _MAX_BASES:
        del _BASES[next(iter(_BASES))]


def _base_engine(record: IndexedRevision, spec: _Spec) -> LexicalIndex | None:
    """The engine of ``spec`` of the noted index, with its state, when its cache is whole
    and was made for the noted build."""
    weights, k1, b, unit, stemmed = spec
    params = _params(weights, k1, b, unit, stemmed)
    with _LOCK:
        found = _BASES.get((record.index, record.build, params))
    if found is not None:
        return found
    return LexicalIndex.load(Path(record.index) / "lexical" / _cache_name(params),
                             record.build, state=True)


def _from_nearest(reader: IndexReader, specs: Sequence[_Spec], shapes: Sequence[_Shape],
                  store: ChunkStore, jobs: int | None) -> list[LexicalIndex] | None:
    """The engines of ``specs`` derived from those of the nearest index noted in
    ``store`` (fewest files added, removed or changed; the newest among equals), or None
    when there is none to start from: the caller then counts every file."""
    chunk_ids = reader.chunk_ids_by_file()
    if not chunk_ids:
        return None
    version = reader.meta("chunker_version") or ""
    here = str(reader.path.resolve())
    blobs = _file_blobs(reader, chunk_ids)
    mine = set(blobs.items())
    candidates = sorted(
        (len(mine.symmetric_difference(record.files.items())), newest, record)
        for newest, record in enumerate(store.indexed())
        if record.chunker_version == version and record.index != here)
    for _, _, record in candidates[:_BASE_TRIES]:
        bases = [_base_engine(record, spec) for spec in specs]
        if all(base is not None for base in bases):
            break
    else:
        return None
    unchanged = {file for file, blob in blobs.items() if record.files.get(file) == blob}
    for base, spec in zip(bases, specs, strict=True):
        if base is not None and spec[3] != "file":  # the same chunks, not only the same blob
            unchanged = _same_chunks_runs(base, chunk_ids, unchanged)
    changed = dict(_file_documents(reader, shapes, store, jobs, every=chunk_ids,
                                   only=[file for file in chunk_ids if file not in unchanged]))
    engines = []
    for base, spec in zip(bases, specs, strict=True):
        engine = _derived(base, chunk_ids, unchanged, changed, shapes.index(_shape(spec)),
                          spec) if base is not None else None
        if engine is None:
            return None
        engine.derived_from = record.build
        engines.append(engine)
    return engines


def _same_chunks(base: LexicalIndex, file: str, chunks: list[str]) -> bool:
    """Whether ``file`` has exactly ``chunks`` in the chunk engine ``base``."""
    number = base._file_number.get(file)
    if number is None:
        return False
    start, end = int(base.file_starts[number]), int(base.file_starts[number + 1])
    return base.chunk_ids[start:end] == chunks
