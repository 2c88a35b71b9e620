"""The search workflow: one query against one index with the reference retriever, and the
picked results as a case stanza."""

from __future__ import annotations

from dataclasses import dataclass

from codegold.adapters.reference import reference_setup
from codegold.curate.stanza import search_case_stanza
from codegold.errors import InputError, quoted
from codegold.index.store import IndexReader
from codegold.model.manifest import Manifest
from codegold.plumbing.secrets import redact_once
from codegold.plumbing.text import LONE_SURROGATE
from codegold.retrieve.config import RetrieverConfig, load_config
from codegold.retrieve.reference import ReferenceRetriever, RetrievalResult
from codegold.retrieve.warm import missing_engines, warm_lexical
from codegold.workflows.progress import CacheProgress

MAX_PICKS = 100


@dataclass(frozen=True)
class SearchRequest:
    index: str
    query: str
    k: int = 10
    open_file: str | None = None
    config: str | None = None
    dense: bool | None = None  # None: as the config says
    embedder: str | None = None
    as_case: bool = False  # also write the picked results as a case stanza
    pick: str | None = None  # with as_case: the ranks to accept, "1,3" (default "1")


@dataclass(frozen=True)
class Search:
    result: RetrievalResult
    manifest: Manifest  # of the index searched
    stanza: str | None = None  # with as_case: the case (YAML list item) of the picked ranks


def search(request: SearchRequest, caches: CacheProgress | None = None) -> Search:
    """The reference retriever's ranking for the query (dense decided as ``run`` does).

    BM25 caches the index lacks for this config (an index from before `codegold index`
    built them, or other BM25 parameters) are built first, and ``caches`` hears of it.

    A secret value in the query (a pasted log line) is redacted first, as a case's query
    is when its file is read: what is searched, printed and written as a case holds the
    placeholder, never the value."""
    if request.pick is not None and not request.as_case:
        raise InputError("{pick} needs {as_case}", settings=("pick", "as_case"))
    check_query(request.query)
    ranks = parse_pick(request.pick or "1", request.k) if request.as_case else []
    query = redact_once(request.query)
    config = load_config(request.config)
    _build_missing_caches(request.index, config, caches)
    with IndexReader.open(request.index) as reader:
        config, make_dense = reference_setup(config, dense=request.dense,
                                             embedder=request.embedder)
        dense_signal = make_dense(reader) if make_dense is not None else None
        result = ReferenceRetriever(reader, config, dense=dense_signal).retrieve(
            query, k=request.k, open_file=request.open_file)
        manifest = reader.manifest
    stanza = None
    if request.as_case:
        chunks = [s.chunk.to_chunk() for s in result.ranked]
        if len(chunks) < max(ranks):
            raise InputError(f"{{pick}} {request.pick or '1'} asks for rank {max(ranks)}, but "
                             f"the search returned {len(chunks)} result(s)", settings=("pick",))
        stanza = search_case_stanza(query, manifest, [chunks[r - 1] for r in ranks])
    return Search(result=result, manifest=manifest, stanza=stanza)


def check_query(query: str) -> None:
    """Refuse a query a case file could not hold: a blank one (every chunk scores 0, and
    its stanza is refused as a case), or one with undecodable bytes (kept by the command
    line as lone surrogates, which no case file can be written with)."""
    if not query.strip():
        raise InputError(f"the query is blank ({quoted(query)}): expected words or names to "
                         "search for")
    bad = LONE_SURROGATE.search(query)
    if bad is not None:
        char, at = bad.group(), bad.start()
        shown = f"byte 0x{ord(char) - 0xDC00:02x}" if char >= "\udc80" else repr(char)
        raise InputError(f"the query is not valid UTF-8 text ({shown} at character {at}): "
                         "expected text in the terminal's UTF-8 encoding")


def parse_pick(text: str, k: int) -> list[int]:
    """``1,3`` -> [1, 3]: distinct ranks from 1 to ``k``, in the order given."""
    ranks: list[int] = []
    parts = text.split(",")
    if len(parts) > MAX_PICKS:
        raise InputError(f"{{pick}} names {len(parts)} ranks; at most {MAX_PICKS}",
                         settings=("pick",))
    for part in parts:
        item = part.strip()
        if not (item.isascii() and item.isdigit()) or len(item) > 6:
            raise InputError(f"{{pick}} expects ranks like 1,3; found {part[:20]!r}",
                             settings=("pick",))
        rank = int(item)
        if not 1 <= rank <= k:
            raise InputError(f"{{pick}} rank {rank} is outside 1..{k} ({{k}} {k})",
                             settings=("pick", "k"))
        if rank not in ranks:
            ranks.append(rank)
    return ranks


def _build_missing_caches(index: str, config: RetrieverConfig,
                          caches: CacheProgress | None) -> None:
    missing = missing_engines(index, config)
    if not missing:
        return
    if caches is not None:
        caches.building(len(missing))
    warm_lexical(index, config, keep=True,
                 progress=caches.built_engine if caches is not None else None)
    if caches is not None:
        caches.built()
