"""The reference retriever behind the :class:`Retriever` protocol.

Opens the index the request names (one reader per thread and index, since SQLite
connections are not shared across threads) and runs
:class:`codegold.retrieve.ReferenceRetriever` on it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import msgspec

from codegold.adapters.protocol import RetrievalRequest, RetrievalResponse
from codegold.errors import InputError, RetrieverError
from codegold.index.store import IndexReader
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.filters import Filters
from codegold.retrieve.reference import ReferenceRetriever
from codegold.retrieve.signals import DenseSignal

DenseFactory = Callable[[IndexReader], DenseSignal | None]


DENSE_ENVIRONMENT = "CODEGOLD_DENSE"


def _from_environment(enabled: bool | str) -> bool | str:
    """``signals.dense.enabled: auto`` as ``CODEGOLD_DENSE`` (on | off | auto) decides, for
    CI jobs and test suites that want embeddings off (or required) without a config file."""
    value = os.environ.get(DENSE_ENVIRONMENT, "").strip().lower()
    if value not in ("", "auto", "on", "off"):  # a typo is an error even when unused
        raise InputError(f"{DENSE_ENVIRONMENT}={value!r} is not one of on, off, auto")
    if enabled != "auto" or value in ("", "auto"):
        return enabled
    return value == "on"


def reference_setup(config: RetrieverConfig, *, dense: bool | None = None,
                    embedder: str | None = None) -> tuple[RetrieverConfig, DenseFactory | None]:
    """The one place that decides whether the reference retriever runs dense retrieval.

    ``dense`` True or an ``embedder`` forces it on (a missing extra is an error), False
    forces it off; None follows ``signals.dense.enabled``: true, false, or ``auto`` (on
    when the embedder can be loaded here: the ``dense`` extra and its model are installed;
    the ``CODEGOLD_DENSE`` environment variable can settle ``auto`` to on or off).
    The returned config says what was decided (``enabled`` true or false) and, when on,
    the factory opens the dense signal of an index with ``embedder`` (default: the
    config's).
    """
    settings = config.signals.dense
    enabled = _from_environment(settings.enabled)
    forced = dense is True or embedder is not None
    wanted = forced or (dense is None and enabled is not False)
    factory = None
    if wanted:
        from codegold.errors import MissingDependency
        from codegold.retrieve.dense import dense_factory

        try:
            factory = dense_factory(embedder or settings.embedder, batch_size=settings.batch_size,
                                    max_tokens=settings.max_tokens, mode=settings.mode,
                                    store=settings.store)
        except MissingDependency:
            if forced or enabled is True:
                raise
    decided = factory is not None
    if settings.enabled is not decided:
        config = msgspec.structs.replace(config, signals=msgspec.structs.replace(
            config.signals, dense=msgspec.structs.replace(settings, enabled=decided)))
    return config, factory


def build_reference(config: RetrieverConfig, *, dense: bool | None = None,
                    embedder: str | None = None) -> ReferenceAdapter:
    """The reference retriever behind the protocol, dense included when asked for."""
    config, factory = reference_setup(config, dense=dense, embedder=embedder)
    return ReferenceAdapter(config, dense_factory=factory)


_SIGNALS = ("lexical", "identifier", "symbol", "path", "file")


def describe_signals(config: RetrieverConfig, embedder: str | None = None) -> str:
    """One line naming the signals ``config`` runs and whether dense did, with which
    embedder: what `run` prints under its summary (``config`` as :func:`reference_setup`
    returned it, so ``signals.dense.enabled`` is true or false)."""
    signals = config.signals
    names = [name for name in _SIGNALS if getattr(signals, name).enabled]
    dense = signals.dense
    if dense.enabled is True:
        detail = f"{dense.mode}, {dense.candidates} candidates" if dense.mode == "lazy" \
            else dense.mode
        state = f"dense on: {embedder or dense.embedder} ({detail})"
    else:
        state = "dense off (--dense turns it on)"
    return f"signals {', '.join(names) or 'none'}; {state}"


class ReferenceAdapter:
    def __init__(self, config: RetrieverConfig, *, dense_factory: DenseFactory | None = None,
                 excerpt_chars: int = 400) -> None:
        self.config = config
        self.dense_factory = dense_factory
        self.excerpt_chars = excerpt_chars
        self._local = threading.local()
        self._readers: list[IndexReader] = []
        self._lock = threading.Lock()
        self._embedders: set[str] = set()

    def describe(self) -> str:
        """The signals this retriever ran and the embedder that served dense, if any."""
        with self._lock:
            used = ", ".join(sorted(self._embedders))
        return describe_signals(self.config, used or None)

    def _retriever(self, index: str) -> ReferenceRetriever:
        cache: dict[str, ReferenceRetriever] | None = getattr(self._local, "cache", None)
        if cache is None:
            cache = self._local.cache = {}
        key = str(Path(index).resolve())
        found = cache.get(key)
        if found is None:
            reader = IndexReader.open(key)
            with self._lock:
                self._readers.append(reader)
            dense = self.dense_factory(reader) if self.dense_factory else None
            found = cache[key] = ReferenceRetriever(reader, self.config, dense=dense)
        return found

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        if request.index is None:
            raise RetrieverError(f"no index for revision {request.revision}: the reference "
                                 "retriever needs --index with an index of that revision")
        retriever = self._retriever(request.index)
        manifest = retriever.reader.manifest
        if retriever.dense is not None and retriever.config.signals.dense.enabled:
            # The vectors are part of what served this attempt: record their embedder.
            info = retriever.dense.info()
            manifest = msgspec.structs.replace(manifest, embedder=info)
            if info.name not in self._embedders:
                with self._lock:
                    self._embedders.add(info.name)
        if manifest.revision != request.revision:
            raise RetrieverError(f"index {request.index} holds revision {manifest.revision}, "
                                 f"the case asks for {request.revision}")
        context = request.context
        filters = Filters.from_dict(request.filters) if request.filters else Filters()
        if context is not None:
            filters = filters.merged(Filters(language=context.language,
                                             path_prefix=context.path_prefix))
        result = retriever.retrieve(request.query, k=request.k,
                                    open_file=context.open_file if context else None,
                                    filters=filters)
        ranked = [s.chunk.to_chunk(score=round(s.score, 6), excerpt_chars=self.excerpt_chars)
                  for s in result.ranked]
        candidates = [s.chunk.to_chunk(score=round(s.score, 6), excerpt_chars=0)
                      for s in result.candidates]
        return RetrievalResponse(
            ranked=ranked,
            candidates=candidates,
            context_ids=[c.chunk_id for c in ranked],
            rewritten=result.rewritten,
            filters=result.filters.as_dict(),
            manifest=manifest,
            timing_ms=result.timing_ms,
        )

    def close(self) -> None:
        with self._lock:
            for reader in self._readers:
                reader.close()
            self._readers.clear()
