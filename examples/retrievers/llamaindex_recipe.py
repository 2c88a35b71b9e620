"""Recipe: score a LlamaIndex retriever with codegold through ``python:``.

LlamaIndex retrievers return ``NodeWithScore`` objects: ``.node`` (with ``metadata``,
``node_id`` and ``get_content()``) and ``.score``. Put the file in ``metadata["source"]``
(or LlamaIndex's own ``file_path``) and ``start_line``/``end_line`` when you split, then::

    # mysearch.py
    from llamaindex_recipe import make_search
    search = make_search(index.as_retriever(similarity_top_k=20), root="/path/to/checkout")

    codegold run cases.yaml --index idx/ --resolve -o attempts.jsonl \
        --retriever python:mysearch:search
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from langchain_recipe import _line, _relative


def nodes_to_response(nodes: Iterable[Any], request: dict[str, Any], *,
                      root: str | None = None) -> dict[str, Any]:
    """Ranked NodeWithScore objects (best first) as a codegold format-1 response."""
    ranked = []
    for position, item in enumerate(nodes):
        node = getattr(item, "node", item)
        metadata = dict(getattr(node, "metadata", None) or {})
        source = metadata.get("source") or metadata.get("file_path")
        if not source:
            continue
        chunk: dict[str, Any] = {
            "chunk_id": str(getattr(node, "node_id", None) or f"li-{position}"),
            "file": _relative(str(source), root), "revision": request["revision"]}
        start, end = _line(metadata.get("start_line")), _line(metadata.get("end_line"))
        if start is not None and end is not None and end >= start:
            chunk["start_line"], chunk["end_line"] = start, end
        score = getattr(item, "score", None)
        if isinstance(score, (int, float)) and score == score:  # not NaN
            chunk["score"] = float(score)
        ranked.append(chunk)
    return {"format": 1, "ranked": ranked[: max(int(request.get("k", 10)), 1)]}


def make_search(retriever: Any, *, root: str | None = None
                ) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``python:`` entry point around any object with ``retrieve(query)``."""
    root = root or os.environ.get("CODEGOLD_CHECKOUT")

    def search(request: dict[str, Any]) -> dict[str, Any]:
        return nodes_to_response(retriever.retrieve(request["query"]), request, root=root)

    return search
