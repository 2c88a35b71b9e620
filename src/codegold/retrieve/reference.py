"""The reference hybrid retriever: signals → fusion → filters → rerank → expansion.

One :class:`ReferenceRetriever` serves one open index (an ``IndexReader`` is not shared
between threads; open one retriever per worker). Every weight comes from
:class:`~codegold.retrieve.config.RetrieverConfig`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

import msgspec

from codegold.index.store import IndexReader
from codegold.model import EmbedderInfo
from codegold.retrieve import signals
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.expand import expand
from codegold.retrieve.filters import Filters
from codegold.retrieve.fusion import FUSERS
from codegold.retrieve.query import QueryAnalysis, analyze_query
from codegold.retrieve.rerank import Categories, Scored, rerank

# Fused candidates read from the index per query, at least (filters may drop some).
_MIN_POOL = 100


class DenseSignal(Protocol):
    """What the reference retriever needs from dense retrieval (see ``retrieve.dense``)."""

    name: str

    def search(self, text: str, limit: int,
               candidates: Sequence[str] | None = None) -> list[tuple[str, float]]: ...

    def info(self) -> EmbedderInfo: ...


def _dense_pool(rankings: dict[str, signals.Hits], cfg: RetrieverConfig) -> list[str] | None:
    """``mode: lazy``: the chunks dense retrieval scores, the best of the other signals
    fused (``full`` searches every chunk: None)."""
    if cfg.signals.dense.mode != "lazy":
        return None
    others = {name: hits for name, hits in rankings.items() if name != "dense"}
    fused = (FUSERS["rrf"](others, cfg.fusion.weights, k=cfg.fusion.rrf_k)
             if cfg.fusion.method == "rrf" else FUSERS["weighted"](others, cfg.fusion.weights))
    return [f.chunk_id for f in fused[:cfg.signals.dense.candidates]]


class RetrievalResult(msgspec.Struct, frozen=True, kw_only=True):
    """Everything one query produced, for attempts (``ranked``, ``candidates``) and --explain."""

    analysis: QueryAnalysis
    rewritten: str
    filters: Filters
    candidates: list[Scored]        # fused and filtered, before rerank, best first
    ranked: list[Scored]            # final, best first
    expanded_ids: list[str]
    signal_hits: dict[str, int]     # how many chunks each signal returned
    timing_ms: dict[str, float]


class ReferenceRetriever:
    def __init__(self, reader: IndexReader, config: RetrieverConfig, *,
                 dense: DenseSignal | None = None) -> None:
        self.reader = reader
        self.config = config
        self.dense = dense
        self._resolver: signals.PathResolver | None = None
        self._categories = Categories(config.rerank.category_patterns)

    @property
    def resolver(self) -> signals.PathResolver:
        if self._resolver is None:
            self._resolver = signals.PathResolver.of(self.reader)
        return self._resolver

    def retrieve(self, query: str, *, k: int | None = None, open_file: str | None = None,
                 filters: Filters | None = None) -> RetrievalResult:
        cfg = self.config
        want = max(1, k if k is not None else cfg.candidates.default_k)
        timing: dict[str, float] = {}
        started = time.perf_counter()

        def lap(name: str, since: float) -> float:
            now = time.perf_counter()
            timing[name] = round((now - since) * 1000, 3)
            return now

        analysis = analyze_query(query, max_terms=cfg.query.max_terms,
                                 max_identifiers=cfg.query.max_identifiers)
        mark = lap("analyze", started)
        active = Filters.from_config(cfg.filters).merged(filters or Filters())
        depth = cfg.candidates.per_signal
        runs: dict[str, Callable[[], signals.Hits]] = {}
        sig = cfg.signals
        if sig.lexical.enabled:
            runs["lexical"] = lambda: signals.lexical(self.reader, analysis.terms, sig.lexical, depth)
        if sig.identifier.enabled and analysis.identifier_terms:
            runs["identifier"] = lambda: signals.lexical(
                self.reader, analysis.identifier_terms, sig.identifier, depth)
        if sig.symbol.enabled and (analysis.identifiers or analysis.frames):
            runs["symbol"] = lambda: signals.symbol(self.reader, analysis, sig.symbol, depth)
        if sig.path.enabled and (analysis.paths or analysis.frames or analysis.qualified):
            runs["path"] = lambda: signals.path(self.reader, self.resolver, analysis, sig.path, depth)
        if sig.file.enabled:
            runs["file"] = lambda: signals.file_level(self.reader, analysis.terms, sig.lexical,
                                                      sig.file, depth)
        if sig.dense.enabled and self.dense is not None:
            dense = self.dense
            runs["dense"] = lambda: dense.search(query, depth,
                                                 candidates=_dense_pool(rankings, cfg))
        rankings: dict[str, signals.Hits] = {}
        for name, run in runs.items():
            rankings[name] = run()
            mark = lap(name, mark)

        fuser = FUSERS[cfg.fusion.method]
        weights = cfg.fusion.weights
        fused = (fuser(rankings, weights, k=cfg.fusion.rrf_k) if cfg.fusion.method == "rrf"
                 else fuser(rankings, weights))
        pool = fused[: max(_MIN_POOL, want * 5, cfg.candidates.record_candidates)]
        chunks = {c.id: c for c in self.reader.get_many([f.chunk_id for f in pool])}
        candidates = [Scored(chunk=chunks[f.chunk_id], score=f.score, contributions=f.contributions)
                      for f in pool if f.chunk_id in chunks and active.accepts(chunks[f.chunk_id])]
        if len(candidates) < want:
            candidates.extend(self._fill(active, want - len(candidates),
                                         {c.chunk.id for c in candidates}))
        mark = lap("fusion", mark)
        if cfg.rerank.enabled:
            ranked = rerank(candidates, config=cfg.rerank, intent=analysis.intent,
                            asks_for=analysis.asks_for, open_file=open_file,
                            categories=self._categories)
        else:
            ranked = list(candidates)
        mark = lap("rerank", mark)
        final, added = expand(self.reader, ranked, k=want, config=cfg.expansion, filters=active)
        lap("expand", mark)
        timing["total"] = round((time.perf_counter() - started) * 1000, 3)
        return RetrievalResult(
            analysis=analysis,
            rewritten=analysis.rewritten(),
            filters=active,
            candidates=candidates[: max(cfg.candidates.record_candidates, want)],
            ranked=final,
            expanded_ids=added,
            signal_hits={name: len(hits) for name, hits in rankings.items()},
            timing_ms=timing,
        )

    def _fill(self, filters: Filters, count: int, present: set[str]) -> list[Scored]:
        """When signals find too little, pad with indexed chunks in stable order.

        The ranking must be at least the requested depth whenever the index holds that
        many chunks, so a scorer never mistakes a short list for a retrieval miss.
        """
        out: list[Scored] = []
        for chunk in self.reader.iter_chunks():
            if len(out) >= count:
                break
            if chunk.id not in present and filters.accepts(chunk):
                out.append(Scored(chunk=chunk, score=0.0, factors={"fill": 1.0}))
        return out
