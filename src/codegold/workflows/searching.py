"""The search workflow: one query against one index with the reference retriever."""

from __future__ import annotations

from dataclasses import dataclass

from codegold.adapters.reference import reference_setup
from codegold.index.store import IndexReader
from codegold.model.manifest import Manifest
from codegold.retrieve.config import load_config
from codegold.retrieve.reference import ReferenceRetriever, RetrievalResult


@dataclass(frozen=True)
class SearchRequest:
    index: str
    query: str
    k: int = 10
    open_file: str | None = None
    config: str | None = None
    dense: bool | None = None  # None: as the config says
    embedder: str | None = None


@dataclass(frozen=True)
class Search:
    result: RetrievalResult
    manifest: Manifest  # of the index searched


def search(request: SearchRequest) -> Search:
    """The reference retriever's ranking for the query (dense decided as ``run`` does)."""
    config = load_config(request.config)
    with IndexReader.open(request.index) as reader:
        config, make_dense = reference_setup(config, dense=request.dense,
                                             embedder=request.embedder)
        dense_signal = make_dense(reader) if make_dense is not None else None
        result = ReferenceRetriever(reader, config, dense=dense_signal).retrieve(
            request.query, k=request.k, open_file=request.open_file)
        return Search(result=result, manifest=reader.manifest)
