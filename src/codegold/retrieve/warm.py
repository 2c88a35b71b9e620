"""Caches paid at index time, so that a first query never pays a silent build.

:func:`warm_lexical` builds (or finds intact) every BM25 engine a retriever configuration
reads, in ``INDEX/lexical/``: chunk BM25, the Snowball-stemmed one short questions use,
identifier BM25 when its weights differ, and whole-file BM25. ``codegold index`` calls it
after each build; the dense vectors are paid ahead with ``index --embed`` or
``codegold index embed`` (:mod:`codegold.retrieve.embedpass`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codegold.index.chunkstore import ChunkStore
from codegold.index.store import IndexReader
from codegold.retrieve.config import RetrieverConfig, load_config
from codegold.retrieve.lexindex import LexicalIndex


@dataclass(frozen=True)
class Engine:
    """The parameters of one cached BM25 engine."""

    weights: tuple[float, float, float]
    k1: float
    b: float
    unit: str = "chunk"
    stemmed: bool = False

    @property
    def label(self) -> str:
        return f"{self.unit} BM25" + (" (stemmed)" if self.stemmed else "")


@dataclass(frozen=True)
class WarmProgress:
    """``done`` of ``total`` engines ready; ``engine`` the one just finished (None at the
    start), ``seconds`` since the warm-up began; ``derived`` of them were derived from an
    earlier revision's caches (see :meth:`LexicalIndex.build_many`)."""

    done: int
    total: int
    engine: Engine | None
    seconds: float
    derived: int = 0


def lexical_engines(config: RetrieverConfig) -> list[Engine]:
    """The engines a query under ``config`` may read (the ``memory`` backend only), each
    once, in a fixed order."""
    signals = config.signals
    lexical = signals.lexical
    found: list[Engine] = []

    def add(engine: Engine) -> None:
        if engine not in found:
            found.append(engine)

    short = config.short_query
    if lexical.enabled and lexical.backend == "memory":
        add(Engine(lexical.field_weights, lexical.k1, lexical.b, stemmed=lexical.stem))
        if short.max_chars > 0:
            # short questions search Snowball stems, with their own length normalisation
            words = config.short_lexical()
            add(Engine(words.field_weights, words.k1, words.b, stemmed=words.stem))
    identifier = signals.identifier
    if identifier.enabled and identifier.backend == "memory":
        add(Engine(identifier.field_weights, identifier.k1, identifier.b,
                   stemmed=identifier.stem))
    # Whole-file BM25: the file signal, the learnt ranker's file features and the
    # domain-word test all read it (with the lexical parameters).
    add(Engine(lexical.field_weights, lexical.k1, lexical.b, unit="file",
               stemmed=lexical.stem))
    return found


def missing_engines(index: str | Path, config: RetrieverConfig | None = None) -> list[Engine]:
    """The engines of :func:`lexical_engines` that ``index`` has no cache of yet (what a
    first query would build)."""
    config = config or load_config()
    with IndexReader.open(index) as reader:
        return [engine for engine in lexical_engines(config)
                if not LexicalIndex.is_cached(reader, weights=engine.weights, k1=engine.k1,
                                              b=engine.b, unit=engine.unit,
                                              stemmed=engine.stemmed)]


def warm_lexical(index: str | Path, config: RetrieverConfig | None = None, *,
                 progress: Callable[[WarmProgress], None] | None = None,
                 keep: bool = False, store: ChunkStore | None = None,
                 jobs: int | None = 1) -> list[Engine]:
    """Build every engine of :func:`lexical_engines` that ``index`` has no cache of yet,
    in one pass over its token table, into ``INDEX/lexical/``; returns the engines.
    ``keep`` also holds them in this process's memory (for queries that follow in it).
    With the chunk ``store`` the index was built with, files whose documents an earlier
    warm-up saved there are not counted again (see :meth:`LexicalIndex.build_many`), and
    the others are counted in ``jobs`` worker processes (None: as a build would choose).
    A read-only index folder loses only the cache."""
    config = config or load_config()
    engines = lexical_engines(config)
    started = time.perf_counter()
    if progress is not None:
        progress(WarmProgress(0, len(engines), None, 0.0))
    with IndexReader.open(index) as reader:
        specs = [(e.weights, e.k1, e.b, e.unit, e.stemmed) for e in engines]
        built = LexicalIndex.prepare(reader, specs, keep=keep, store=store, jobs=jobs)
        if keep:  # those cached before are loaded (and checked) too
            for engine in engines:
                LexicalIndex.for_reader(reader, weights=engine.weights, k1=engine.k1,
                                        b=engine.b, unit=engine.unit, stemmed=engine.stemmed)
    if progress is not None:
        progress(WarmProgress(len(engines), len(engines), engines[-1] if engines else None,
                              time.perf_counter() - started,
                              sum(engine.derived_from is not None for engine in built)))
    return engines
