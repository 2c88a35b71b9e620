"""The retrieval signals: each turns an analysed query into a ranking of chunk ids.

- ``lexical``: BM25 over every query term (``IndexReader.lexical_search``).
- ``identifier``: BM25 over only the terms of identifiers, paths and frames.
- ``symbol``: exact symbol-table lookup of identifiers, qualified names and frame functions.
- ``path``: chunks of files the query names (paths, dotted modules, trace frames).
- ``file``: whole-file BM25; each top file contributes its best chunks.
- ``dense``: see :mod:`codegold.retrieve.dense`.

A signal returns ``[(chunk_id, score)]`` best first, ties broken on chunk id. Each is
registered in :data:`SIGNALS` with when it applies to a query and whether it reads the
other signals' rankings (dense retrieval's lazy mode does, so it runs after them);
:func:`run_signals` runs them. Adding a signal is one entry there, a config section and a
fusion weight.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from codegold.index.store import IndexReader, SymbolDef
from codegold.index.tokens import STOPWORDS, stem
from codegold.model import EmbedderInfo
from codegold.model.paths import normalize_path
from codegold.retrieve.config import (
    FeedbackConfig,
    FileConfig,
    LexicalConfig,
    PathConfig,
    RetrieverConfig,
    SymbolConfig,
)
from codegold.retrieve.feedback import expansion_terms
from codegold.retrieve.fusion import FUSERS
from codegold.retrieve.lexindex import LexicalIndex
from codegold.retrieve.query import QueryAnalysis

Hits = list[tuple[str, float]]

@dataclass(frozen=True)
class Compounds:
    """What the lexical signal adds compound terms from: the question's ``words`` in
    order (``skip``: those that bring none), at ``weight``, at most ``per_word`` each."""

    words: Sequence[str]
    skip: frozenset[str]
    weight: float
    per_word: int = 3


# A path suffix shared by more files than this names none of them (``__init__.py``).
_MAX_SUFFIX_FILES = 3


def _sorted(scores: dict[str, float], limit: int) -> Hits:
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]


def lexical(reader: IndexReader, terms: tuple[str, ...], config: LexicalConfig, limit: int,
            compounds: Compounds | None = None, feedback: FeedbackConfig | None = None,
            title: Sequence[str] = ()) -> Hits:
    """Chunk BM25 of ``terms``; with ``compounds`` (memory backend), the vocabulary's
    terms that run the question's words together count too (:mod:`compounds`); with
    ``feedback`` (memory backend), the best words of the first hits (:mod:`feedback`).
    The ``title`` terms weigh ``1 + config.title_weight`` (memory backend)."""
    if not terms:
        return []
    if config.backend == "memory":
        engine = LexicalIndex.for_reader(reader, weights=config.field_weights, k1=config.k1,
                                         b=config.b, stemmed=config.stem)
        weights = title_weights(title, config)
        if compounds is not None and compounds.weight > 0:
            extra = engine.compounds(compounds.words, compounds.skip, compounds.per_word)
            return engine.search(terms, limit, extra, compounds.weight, weights)
        first = engine.search(terms, limit, weights=weights)
        if feedback is None or feedback.weight <= 0 or not first:
            return first
        fold = stem if engine.stemmed else (lambda w: w)
        top = first[:feedback.documents]
        added = expansion_terms(
            top, reader.lexical_fields_of([chunk_id for chunk_id, _ in top]),
            asked={fold(t) for t in terms}, document_frequency=engine.document_frequency,
            indexed=len(engine.chunk_ids), skip=STOPWORDS, count=feedback.documents,
            limit=feedback.terms, fold=fold)
        return engine.search(terms, limit, added, feedback.weight, weights) if added else first
    return reader.lexical_search(list(terms), limit=limit, weights=config.field_weights)


def title_weights(title: Sequence[str], config: LexicalConfig) -> dict[str, float] | None:
    """The query weight of each ``title`` term, or None when titles weigh as any term."""
    return ({term: 1.0 + config.title_weight for term in title}
            if config.title_weight > 0 and title else None)


def file_level(reader: IndexReader, terms: tuple[str, ...], lexical_config: LexicalConfig,
               config: FileConfig, limit: int, title: Sequence[str] = ()) -> Hits:
    """Whole-file BM25 ranks files; each top file contributes its best-matching chunks.

    Long queries (issue reports) spread their words over a file's functions; scoring the
    file as one document finds it even when no single chunk holds enough of them.
    """
    if not terms:
        return []
    fields, k1, b = lexical_config.field_weights, lexical_config.k1, lexical_config.b
    stemmed = lexical_config.stem
    weights = title_weights(title, lexical_config)
    files = LexicalIndex.for_reader(reader, weights=fields, k1=k1, b=b, unit="file",
                                    stemmed=stemmed).search(terms, config.max_files,
                                                            weights=weights)
    if not files:
        return []
    engine = LexicalIndex.for_reader(reader, weights=fields, k1=k1, b=b, stemmed=stemmed)
    scores = engine.scores(terms, weights=weights)
    by_file = {path: [cid for cid, _ in engine.best_in_file(scores, path, config.chunks_per_file)]
               for path, _ in files}
    out: Hits = []
    for depth in range(config.chunks_per_file):
        for path, score in files:
            ids = by_file.get(path, [])
            if depth < len(ids):
                out.append((ids[depth], score * (0.5 ** depth)))
    return out[:limit]


def _lookup_names(name: str) -> list[tuple[str, float]]:
    """``a.b.C.m`` → try ``a.b.C.m``, ``b.C.m``, ``C.m``, ``m``, each less sure than the last."""
    parts = [p for p in name.replace("::", ".").split(".") if p]
    out = []
    for start in range(len(parts)):
        out.append((".".join(parts[start:]), 1.0 / (1 + start * 0.5)))
    return out


_CONSTRUCTOR_SHARE = 0.5


def _constructors(names: set[str]) -> set[str]:
    """The names of ``names`` that are constructors of a class also in it: ``RegEx.RegEx``
    beside ``RegEx`` (C++, Java, C#)."""
    out = set()
    for name in names:
        owner, _, member = name.rpartition(".")
        if member and owner.rpartition(".")[2] == member and owner in names:
            out.add(name)
    return out


def _places(definitions: Sequence[SymbolDef]) -> tuple[int, set[str]]:
    """How many places ``definitions`` count as, and which of their names are
    constructors. A constructor named as its class (``RegEx.RegEx`` in C++, Java, C#)
    is its class's, and a declaration whose definition is there too (a C++ header and
    its source) is that definition's: neither makes a name more ambiguous. Every other
    row counts: forty ``impl`` blocks of one type are forty places."""
    names = {d.qualified for d in definitions}
    constructors = _constructors(names)
    defined = {d.qualified for d in definitions if d.role != "declaration"}
    return sum(1 for d in definitions if d.qualified not in constructors
               and not (d.role == "declaration" and d.qualified in defined)), constructors


def _credit(scores: dict[str, float], definitions: Sequence[SymbolDef], weight: float,
            most: int) -> bool:
    """Share ``weight`` among ``definitions`` (more places, less each; a constructor of
    the named class half its class's share) unless they are more than ``most`` places:
    then the name is too ambiguous to credit, and False."""
    places, constructors = _places(definitions)
    if places > most:
        return False
    share = weight / math.sqrt(places)
    for definition in definitions:
        scores[definition.chunk_id] += share * (
            _CONSTRUCTOR_SHARE if definition.qualified in constructors else 1.0)
    return True


def symbol(reader: IndexReader, analysis: QueryAnalysis, config: SymbolConfig, limit: int) -> Hits:
    scores: dict[str, float] = defaultdict(float)
    wanted: list[tuple[str, float]] = []
    for frame in analysis.frames:
        if frame.function:
            wanted.append((frame.function, config.weight_frame))
    count = max(1, len(analysis.identifiers))
    for position, name in enumerate(analysis.identifiers):
        base = config.weight_qualified if name in analysis.qualified else config.weight_identifier
        # Earlier identifiers were mentioned more often or more prominently.
        wanted.append((name, base * (1.0 - 0.5 * position / count)))
    done: set[str] = set()
    for pair in analysis.member_pairs:
        # Only the member of that very type: the parts alone are looked up below.
        definitions = reader.definitions(pair)
        if definitions and _credit(scores, definitions, config.weight_qualified,
                                   config.max_definitions):
            done.add(pair)
    for name, weight in wanted:
        for candidate, certainty in _lookup_names(name):
            short = candidate.rsplit(".", 1)[-1]
            if candidate in done:
                break
            # A short lower-case word alone is usually English ("sel", "map", "any"); after
            # a qualifier (``Dataset.sel``) it is a member name, as sure as a long one.
            if ("." not in candidate and len(short) < config.min_length and short.islower()
                    and "_" not in short and name not in analysis.quoted):
                break
            definitions = reader.definitions(candidate)
            if not definitions:
                continue
            done.add(candidate)
            _credit(scores, definitions, weight * certainty, config.max_definitions)
            break
    return _sorted(scores, limit)


class PathResolver:
    """Maps a path as written in a query (absolute, relative, partial, dotted) to indexed files."""

    def __init__(self, files: list[str]) -> None:
        self._files = set(files)
        self._by_suffix: dict[str, list[str]] = defaultdict(list)
        for path in sorted(files):
            parts = path.split("/")
            for start in range(len(parts)):
                self._by_suffix["/".join(parts[start:])].append(path)

    @property
    def files(self) -> frozenset[str]:
        """Every indexed file with chunks."""
        return frozenset(self._files)

    @classmethod
    def of(cls, reader: IndexReader) -> PathResolver:
        return cls([entry.path for entry in reader.iter_inventory()
                    if entry.fate in ("indexed", "fallback") and entry.chunks > 0])

    def resolve(self, written: str) -> list[str]:
        path = normalize_path(written)
        if path in self._files:
            return [path]
        parts = [p for p in path.split("/") if p]
        for start in range(len(parts)):
            matches = self._by_suffix.get("/".join(parts[start:]))
            if matches:
                # The longest suffix that matches anything decides; too many is no answer.
                return matches if len(matches) <= _MAX_SUFFIX_FILES else []
        return []

    def resolve_module(self, dotted: str) -> list[str]:
        """``pkg.mod.Class`` → ``pkg/mod.py`` (or ``pkg/mod/__init__.py``), longest prefix first."""
        parts = [p for p in dotted.split(".") if p]
        for end in range(len(parts), 1, -1):
            base = "/".join(parts[:end])
            for candidate in (base + ".py", base + "/__init__.py"):
                found = self.resolve(candidate) if "/" in candidate else []
                if found:
                    return found
        return []


def path(reader: IndexReader, resolver: PathResolver, analysis: QueryAnalysis,
         config: PathConfig, limit: int) -> Hits:
    files: dict[str, float] = defaultdict(float)
    lines: dict[str, set[int]] = defaultdict(set)
    for frame in analysis.frames:
        for found in resolver.resolve(frame.file):
            files[found] += config.weight_frame
            if frame.line:
                lines[found].add(frame.line)
    for written in analysis.paths:
        for found in resolver.resolve(written):
            files[found] += config.weight_mentioned
    for name in analysis.qualified:
        if "::" not in name:
            for found in resolver.resolve_module(name):
                files[found] += config.weight_mentioned * 0.5
    scores: dict[str, float] = {}
    for file, weight in files.items():
        chunks = reader.chunks_in_file(file)[: config.max_chunks_per_file]
        for chunk in chunks:
            covers = any(chunk.start_line <= line <= chunk.end_line for line in lines[file])
            # Inside one file, prefer the chunk a frame points into, then smaller chunks
            # (a whole-module chunk says less than the function that failed).
            size = chunk.end_line - chunk.start_line + 1
            scores[chunk.id] = weight * (2.0 if covers else 1.0) * (1.0 + 1.0 / (1.0 + size / 50))
    return _sorted(scores, limit)


class DenseSignal(Protocol):
    """What the reference retriever needs from dense retrieval (see ``retrieve.dense``)."""

    name: str

    def search(self, text: str, limit: int,
               candidates: Sequence[str] | None = None) -> list[tuple[str, float]]: ...

    def info(self) -> EmbedderInfo: ...


@dataclass(frozen=True)
class SignalInputs:
    """What one query gives every signal: the index, the analysed query, the settings in
    force for it (``lexical``: stems for a short question; ``weights``: its fusion
    weights), how deep to read, and the index-wide helpers built on first use."""

    reader: IndexReader
    query: str
    analysis: QueryAnalysis
    config: RetrieverConfig
    lexical: LexicalConfig
    weights: Mapping[str, float]
    depth: int
    resolver: Callable[[], PathResolver]
    compounds: Compounds | None = None
    feedback: FeedbackConfig | None = None
    dense: DenseSignal | None = None


@dataclass(frozen=True)
class Signal:
    """One registered signal: when it runs for a query and what it ranks.

    ``after_others``: it reads the rankings of the signals before it (dense retrieval's
    lazy mode scores only their best chunks), so it runs after every other signal.
    """

    name: str
    applies: Callable[[SignalInputs], bool]
    run: Callable[[SignalInputs, Mapping[str, Hits]], Hits]
    after_others: bool = False


def _dense_pool(inputs: SignalInputs, rankings: Mapping[str, Hits]) -> list[str] | None:
    """``mode: lazy``: the chunks dense retrieval scores, the best of the other signals
    fused (``full`` searches every chunk: None)."""
    cfg = inputs.config
    if cfg.signals.dense.mode != "lazy":
        return None
    others = {name: hits for name, hits in rankings.items() if name != "dense"}
    fused = (FUSERS["rrf"](others, inputs.weights, k=cfg.fusion.rrf_k)
             if cfg.fusion.method == "rrf" else FUSERS["weighted"](others, inputs.weights))
    return [f.chunk_id for f in fused[:cfg.signals.dense.candidates]]


def _dense(inputs: SignalInputs, rankings: Mapping[str, Hits]) -> Hits:
    assert inputs.dense is not None  # applies() checked it
    return inputs.dense.search(inputs.query, inputs.depth,
                               candidates=_dense_pool(inputs, rankings))


# In fusion order; a signal that reads the others' rankings runs after them all.
SIGNALS: tuple[Signal, ...] = (
    Signal("lexical",
           lambda q: q.config.signals.lexical.enabled,
           lambda q, _: lexical(q.reader, q.analysis.terms, q.lexical, q.depth, q.compounds,
                                q.feedback, q.analysis.title_terms)),
    Signal("identifier",
           lambda q: q.config.signals.identifier.enabled and bool(q.analysis.identifier_terms),
           lambda q, _: lexical(q.reader, q.analysis.identifier_terms,
                                q.config.signals.identifier, q.depth)),
    Signal("symbol",
           lambda q: q.config.signals.symbol.enabled
           and bool(q.analysis.identifiers or q.analysis.frames),
           lambda q, _: symbol(q.reader, q.analysis, q.config.signals.symbol, q.depth)),
    Signal("path",
           lambda q: q.config.signals.path.enabled
           and bool(q.analysis.paths or q.analysis.frames or q.analysis.qualified),
           lambda q, _: path(q.reader, q.resolver(), q.analysis, q.config.signals.path,
                             q.depth)),
    Signal("file",
           lambda q: q.config.signals.file.enabled and q.weights.get("file", 1.0) > 0,
           lambda q, _: file_level(q.reader, q.analysis.terms, q.lexical, q.config.signals.file,
                                   q.depth, q.analysis.title_terms)),
    Signal("dense",
           lambda q: bool(q.config.signals.dense.enabled) and q.dense is not None,
           _dense, after_others=True),
)


def run_signals(inputs: SignalInputs, timing: dict[str, float] | None = None
                ) -> dict[str, Hits]:
    """The rankings of every registered signal that applies to this query, in order
    (those that read the others' rankings last); each one's milliseconds into ``timing``."""
    rankings: dict[str, Hits] = {}
    for signal in sorted(SIGNALS, key=lambda s: s.after_others):
        if signal.applies(inputs):
            started = time.perf_counter()
            rankings[signal.name] = signal.run(inputs, rankings)
            if timing is not None:
                timing[signal.name] = round((time.perf_counter() - started) * 1000, 3)
    return rankings
