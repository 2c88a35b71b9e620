"""The reference hybrid retriever: signals → fusion → filters → rerank → expansion.

One :class:`ReferenceRetriever` serves one open index (an ``IndexReader`` is not shared
between threads; open one retriever per worker). Every weight comes from
:class:`~codegold.retrieve.config.RetrieverConfig`.
"""

from __future__ import annotations

import math
import time

import msgspec
import numpy as np
import numpy.typing as npt

from codegold.index import tokens
from codegold.index.categories import version_copies
from codegold.index.roots import MAX_BUILD_FILE_CHARS, is_build_file, unshipped_files
from codegold.index.store import IndexedChunk, IndexReader
from codegold.index.tokens import STOPWORDS
from codegold.model.languages import CODE_LANGUAGES
from codegold.retrieve import ltr, signals
from codegold.retrieve.config import FeedbackConfig, RetrieverConfig
from codegold.retrieve.expand import expand
from codegold.retrieve.filters import Filters
from codegold.retrieve.fusion import FUSERS
from codegold.retrieve.lexindex import LexicalIndex
from codegold.retrieve.query import QueryAnalysis, analyze_query
from codegold.retrieve.rerank import Categories, Scored, multipliers, rerank
from codegold.retrieve.signals import DenseSignal, title_weights

# Fused candidates read from the index per query, at least (filters may drop some).
_MIN_POOL = 100


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


class Gathered(msgspec.Struct, frozen=True, kw_only=True):
    """Fused, filtered candidates of one query and what ranking them needs."""

    analysis: QueryAnalysis
    filters: Filters
    candidates: list[Scored]
    rankings: dict[str, list[tuple[str, float]]]
    timing_ms: dict[str, float]


class ReferenceRetriever:
    def __init__(self, reader: IndexReader, config: RetrieverConfig, *,
                 dense: DenseSignal | None = None) -> None:
        self.reader = reader
        self.config = config
        self.dense = dense
        self._resolver: signals.PathResolver | None = None
        self._patterns = Categories(config.rerank.category_patterns)
        self._categories_of_tree: Categories | None = None
        self._domain_words: dict[str, bool] = {}
        self._non_test_files: npt.NDArray[np.bool_] | None = None
        ranker = config.ranker
        self._model = ltr.load_model(ranker.model) if ranker.method == "ltr" else None

    @property
    def _categories(self) -> Categories:
        """The configured path categories plus what only the whole tree tells: files of a
        previous release line kept beside the current one are ``legacy``; source files
        outside the code the repository's build files declare shipped (examples, docs
        sites, benchmark programs) and in no other category are ``unshipped``."""
        if self._categories_of_tree is None:
            copies = version_copies(self.resolver.files)
            categories = self._patterns.with_files("legacy", copies)
            if self.config.rerank.category_penalty.get("unshipped", 1.0) != 1.0:
                outside = frozenset(path for path in self._unshipped()
                                    if not categories.of_path(path))
                categories = categories.with_files("unshipped", outside)
            self._categories_of_tree = categories
        return self._categories_of_tree

    def _unshipped(self) -> frozenset[str]:
        """Source files the repository's build files leave out of what it ships
        (``index.roots``), read from the build files' chunks in the index."""
        code: dict[str, bool] = {}
        texts: dict[str, str] = {}
        for entry in self.reader.iter_inventory():
            if entry.fate != "indexed":
                continue
            code[entry.path] = (entry.category == "source"
                                and entry.language in CODE_LANGUAGES)
            if is_build_file(entry.path) and entry.category not in ("vendored", "generated"):
                text = _file_text(self.reader.chunks_in_file(entry.path))
                if text is not None:
                    texts[entry.path] = text
        return unshipped_files(code, texts, code)

    @property
    def resolver(self) -> signals.PathResolver:
        if self._resolver is None:
            self._resolver = signals.PathResolver.of(self.reader)
        return self._resolver

    def gather(self, query: str, *, want: int, filters: Filters | None = None,
               timing: dict[str, float] | None = None) -> Gathered:
        """Run the signals, fuse them and apply the filters: the candidates to rank."""
        cfg = self.config
        timing = {} if timing is None else timing
        started = time.perf_counter()

        def lap(name: str, since: float) -> float:
            now = time.perf_counter()
            timing[name] = round((now - since) * 1000, 3)
            return now

        analysis = analyze_query(query, max_terms=cfg.query.max_terms,
                                 max_identifiers=cfg.query.max_identifiers)
        if analysis.test_words and any(self._is_domain_word(w) for w in analysis.test_words):
            analysis = analysis.as_domain_vocabulary()
        mark = lap("analyze", started)
        active = Filters.from_config(cfg.filters).merged(filters or Filters())
        depth = cfg.candidates.per_signal
        weights: dict[str, float] = {str(k): v for k, v in cfg.fusion.weights.items()}
        sig = cfg.signals
        lexical_cfg = sig.lexical
        compounds: signals.Compounds | None = None
        feedback: FeedbackConfig | None = None
        # The learnt ranker's features come from the signals as it was trained on them.
        if cfg.short_query.applies(query) and not self._learnt(query):
            weights.update((str(k), v) for k, v in cfg.short_query.weights.items())
            lexical_cfg = cfg.short_lexical()
            if cfg.short_query.task_words:
                analysis = analysis.without_task_words()
            if cfg.short_query.task_intent and analysis.task_words and analysis.test_words:
                analysis = analysis.as_domain_vocabulary()
            joined = cfg.short_query.compounds
            if joined.weight > 0 and analysis.intent in joined.intents:
                compounds = signals.Compounds(analysis.words, STOPWORDS, joined.weight,
                                              joined.per_word)
            # A question that names code is anchored by its names (the symbol, identifier
            # and path signals); words borrowed from its first hits only blur it.
            if not (analysis.identifiers or analysis.paths):
                feedback = cfg.short_query.feedback
        rankings = signals.run_signals(signals.SignalInputs(
            reader=self.reader, query=query, analysis=analysis, config=cfg,
            lexical=lexical_cfg, weights=weights, depth=depth,
            resolver=lambda: self.resolver, compounds=compounds, feedback=feedback,
            dense=self.dense), timing)
        mark = time.perf_counter()

        fuser = FUSERS[cfg.fusion.method]
        fused = (fuser(rankings, weights, k=cfg.fusion.rrf_k) if cfg.fusion.method == "rrf"
                 else fuser(rankings, weights))
        size = max(_MIN_POOL, want * 5, cfg.candidates.record_candidates)
        if self._model is not None or cfg.ranker.method == "ltr":
            # The model's features describe a pool of this size, whatever k is.
            size = max(want, cfg.ranker.pool)
        pool = fused[:size]
        chunks = {c.id: c for c in self.reader.get_many([f.chunk_id for f in pool])}
        candidates = [Scored(chunk=chunks[f.chunk_id], score=f.score, contributions=f.contributions)
                      for f in pool if f.chunk_id in chunks and active.accepts(chunks[f.chunk_id])]
        if len(candidates) < want:
            candidates.extend(self._fill(active, want - len(candidates),
                                         {c.chunk.id for c in candidates}))
        lap("fusion", mark)
        return Gathered(analysis=analysis, filters=active, candidates=candidates,
                        rankings=rankings, timing_ms=timing)

    def _learnt(self, query: str) -> bool:
        """Whether the learnt ranker orders this query's candidates."""
        return self._model is not None and len(query.strip()) >= self.config.ranker.min_query_chars

    def _is_domain_word(self, word: str) -> bool:
        """Whether ``word`` (or its singular / plural) is in at least
        ``rerank.domain_word_share`` of the indexed non-test files."""
        found = self._domain_words.get(word)
        if found is not None:
            return found
        lexical = self.config.signals.lexical
        engine = LexicalIndex.for_reader(self.reader, weights=lexical.field_weights,
                                         k1=lexical.k1, b=lexical.b, unit="file",
                                         stemmed=lexical.stem)
        if self._non_test_files is None:
            self._non_test_files = np.asarray(
                [not self._patterns.of_path(path) & {"test"} for path in engine.chunk_ids],
                dtype=bool)
        total = int(np.count_nonzero(self._non_test_files))
        stem = word[:-1] if word.endswith("s") else word
        using = np.zeros(len(engine.chunk_ids), dtype=bool)
        forms = {tokens.stem(word)} if engine.stemmed else {stem, stem + "s"}
        for form in sorted(forms):
            row = engine.vocab.get(form)
            if row is not None:
                using[engine.docs[engine.offsets[row]:engine.offsets[row + 1]]] = True
        share = int(np.count_nonzero(using & self._non_test_files)) / total if total else 0.0
        found = share >= self.config.rerank.domain_word_share
        self._domain_words[word] = found
        return found

    def features(self, gathered: Gathered, *, open_file: str | None = None
                 ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                            list[dict[str, float]]]:
        """The learning-to-rank features of each candidate, its offset and multipliers.

        The rerank multipliers (role by intent, path categories, missing signature, open
        file) are policy, not evidence: they are added to the model's score as the sum of
        their logarithms (the offset; the model was trained on top of the same offsets),
        so a configuration keeps its meaning under either ranker.
        """
        cfg = self.config
        analysis = gathered.analysis
        factors = [multipliers(item.chunk, config=cfg.rerank, intent=analysis.intent,
                               asks_for=analysis.asks_for, open_file=open_file,
                               categories=self._categories,
                               named="symbol" in item.contributions)
                   for item in gathered.candidates]
        offsets = np.asarray([sum(math.log(v) for v in f.values() if v > 0) for f in factors],
                             dtype=np.float64)
        rows = ltr.feature_rows(gathered.candidates, gathered.rankings,
                                self._file_scores(gathered), ltr.QueryFacts(analysis))
        return rows, offsets, factors

    def _file_scores(self, gathered: Gathered) -> dict[str, tuple[float, int]]:
        """Whole-file BM25 score and 1-based rank of each candidate's file."""
        terms = gathered.analysis.terms
        files = {item.chunk.file for item in gathered.candidates}
        if not terms or not files:
            return {}
        lexical = self.config.signals.lexical
        engine = LexicalIndex.for_reader(self.reader, weights=lexical.field_weights,
                                         k1=lexical.k1, b=lexical.b, unit="file",
                                         stemmed=lexical.stem)
        scores = engine.scores(terms, weights=title_weights(gathered.analysis.title_terms, lexical))
        out: dict[str, tuple[float, int]] = {}
        for file in files:
            row = engine.row_of(file)
            if row is not None and scores[row] > 0:
                value = scores[row]
                out[file] = (float(value), 1 + int(np.count_nonzero(scores > value)))
        return out

    def retrieve(self, query: str, *, k: int | None = None, open_file: str | None = None,
                 filters: Filters | None = None) -> RetrievalResult:
        cfg = self.config
        want = max(1, k if k is not None else cfg.candidates.default_k)
        timing: dict[str, float] = {}
        started = time.perf_counter()
        gathered = self.gather(query, want=want, filters=filters, timing=timing)
        analysis, active, candidates = gathered.analysis, gathered.filters, gathered.candidates
        mark = time.perf_counter()
        # The model learnt from issue reports: a short question keeps the fused ranking.
        model = self._model if self._learnt(query) else None
        if model is not None and candidates:
            rows, offsets, factors = self.features(gathered, open_file=open_file)
            learnt = model.predict(rows)
            ranked = []
            for item, value, offset, found in zip(candidates, learnt.tolist(), offsets.tolist(),
                                                  factors, strict=True):
                ranked.append(Scored(chunk=item.chunk, score=round(value + offset, 6),
                                     contributions=item.contributions,
                                     factors={"ltr": round(value, 6), **found}))
            ranked.sort(key=lambda s: (-s.score, s.chunk.id))
        elif cfg.rerank.enabled:
            ranked = rerank(candidates, config=cfg.rerank, intent=analysis.intent,
                            asks_for=analysis.asks_for, open_file=open_file,
                            categories=self._categories)
        else:
            ranked = list(candidates)
        now = time.perf_counter()
        timing["rerank"] = round((now - mark) * 1000, 3)
        final, added = expand(self.reader, ranked, k=want, config=cfg.expansion, filters=active)
        timing["expand"] = round((time.perf_counter() - now) * 1000, 3)
        timing["total"] = round((time.perf_counter() - started) * 1000, 3)
        return RetrievalResult(
            analysis=analysis,
            rewritten=analysis.rewritten(),
            filters=active,
            candidates=candidates[: max(cfg.candidates.record_candidates, want)],
            ranked=final,
            expanded_ids=added,
            signal_hits={name: len(hits) for name, hits in gathered.rankings.items()},
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


def _file_text(chunks: list[IndexedChunk]) -> str | None:
    """A small file's text put back together from its chunks (each chunk's lines at its
    own rows), or None when the chunks do not line up with rows or the file is large."""
    lines: dict[int, str] = {}
    for chunk in chunks:
        rows = chunk.text.split("\n")
        if len(rows) != chunk.end_line - chunk.start_line + 1:
            return None
        for offset, row in enumerate(rows):
            lines.setdefault(chunk.start_line + offset, row)
        if sum(len(row) for row in lines.values()) > MAX_BUILD_FILE_CHARS:
            return None
    return "\n".join(lines.get(row, "") for row in range(1, max(lines, default=0) + 1))
