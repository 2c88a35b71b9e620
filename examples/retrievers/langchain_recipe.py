"""Recipe: score a LangChain retriever with codegold through ``python:``.

LangChain retrievers return ``Document`` objects (``page_content`` and ``metadata``).
Give each document ``metadata["source"]`` (the file) and ``start_line``/``end_line``
when you split it, and this recipe turns a ranking into a codegold response. Run with
``--resolve`` so codegold reads which definitions those lines hold::

    # mysearch.py (on PYTHONPATH, next to this file)
    from langchain_recipe import make_search
    search = make_search(build_my_retriever(), root="/path/to/checkout")

    codegold run cases.yaml --index idx/ --resolve -o attempts.jsonl \
        --retriever python:mysearch:search

Only the standard library is used here; LangChain itself is whatever you installed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any


def _relative(source: str, root: str | None) -> str:
    path = source.replace("\\", "/")
    if root:
        base = root.replace("\\", "/").rstrip("/") + "/"
        if path.startswith(base):
            path = path[len(base):]
    while path.startswith("./"):
        path = path[2:]
    return path


def _line(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 1 else None


def documents_to_response(documents: Iterable[Any], request: dict[str, Any], *,
                          root: str | None = None, source_key: str = "source") -> dict[str, Any]:
    """A ranked list of Documents (best first) as a codegold format-1 response."""
    ranked = []
    for position, doc in enumerate(documents):
        metadata = dict(getattr(doc, "metadata", None) or {})
        source = metadata.get(source_key) or metadata.get("file_path")
        if not source:
            continue  # a document with no file cannot be judged
        chunk: dict[str, Any] = {"chunk_id": str(metadata.get("id") or f"lc-{position}"),
                                 "file": _relative(str(source), root),
                                 "revision": request["revision"]}
        start, end = _line(metadata.get("start_line")), _line(metadata.get("end_line"))
        if start is not None and end is not None and end >= start:
            chunk["start_line"], chunk["end_line"] = start, end
        text = getattr(doc, "page_content", None)
        if isinstance(text, str):
            chunk["excerpt"] = text[:600]
        ranked.append(chunk)
    return {"format": 1, "ranked": ranked[: max(int(request.get("k", 10)), 1)]}


def make_search(retriever: Any, *, root: str | None = None,
                source_key: str = "source") -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``python:`` entry point around any object with ``invoke(query)`` (or the older
    ``get_relevant_documents(query)``) returning Documents."""
    root = root or os.environ.get("CODEGOLD_CHECKOUT")

    def search(request: dict[str, Any]) -> dict[str, Any]:
        query = request["query"]
        if hasattr(retriever, "invoke"):
            documents = retriever.invoke(query)
        else:
            documents = retriever.get_relevant_documents(query)
        return documents_to_response(documents, request, root=root, source_key=source_key)

    return search
