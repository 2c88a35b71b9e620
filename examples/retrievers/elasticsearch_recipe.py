"""Recipe: score an Elasticsearch or OpenSearch index of code chunks through ``python:``.

Each indexed document holds ``path``, ``start_line``, ``end_line`` and the chunk text in
``content``. The function below sends a ``match`` query to ``URL/INDEX/_search`` and turns
the hits into a codegold response; ``--resolve`` then judges what those lines hold::

    export CODEGOLD_ES_URL=http://localhost:9200 CODEGOLD_ES_INDEX=code
    codegold run cases.yaml --index idx/ --resolve -o attempts.jsonl \
        --retriever python:elasticsearch_recipe:search

Only the standard library is used (``urllib``); add authentication headers as you need.
"""

from __future__ import annotations

import json
import os
import urllib.request
from typing import Any

from langchain_recipe import _line, _relative


def hits_to_response(body: dict[str, Any], request: dict[str, Any], *,
                     root: str | None = None) -> dict[str, Any]:
    """An Elasticsearch/OpenSearch ``_search`` answer as a codegold format-1 response."""
    ranked = []
    for position, hit in enumerate(body.get("hits", {}).get("hits", [])):
        source = hit.get("_source") or {}
        path = source.get("path")
        if not path:
            continue
        chunk: dict[str, Any] = {"chunk_id": str(hit.get("_id") or f"es-{position}"),
                                 "file": _relative(str(path), root),
                                 "revision": request["revision"]}
        start, end = _line(source.get("start_line")), _line(source.get("end_line"))
        if start is not None and end is not None and end >= start:
            chunk["start_line"], chunk["end_line"] = start, end
        if isinstance(hit.get("_score"), (int, float)):
            chunk["score"] = float(hit["_score"])
        ranked.append(chunk)
    return {"format": 1, "ranked": ranked}


def search(request: dict[str, Any]) -> dict[str, Any]:
    """The ``python:`` entry point; the endpoint comes from CODEGOLD_ES_URL/_INDEX."""
    url = os.environ.get("CODEGOLD_ES_URL", "http://localhost:9200").rstrip("/")
    index = os.environ.get("CODEGOLD_ES_INDEX", "code")
    field = os.environ.get("CODEGOLD_ES_FIELD", "content")
    query = {"size": int(request.get("k", 10)), "query": {"match": {field: request["query"]}}}
    http = urllib.request.Request(f"{url}/{index}/_search", data=json.dumps(query).encode(),
                                  headers={"Content-Type": "application/json"}, method="POST")
    timeout = float(os.environ.get("CODEGOLD_ES_TIMEOUT", "30"))
    with urllib.request.urlopen(http, timeout=timeout) as answer:
        body = json.loads(answer.read(16 * 1024 * 1024))
    return hits_to_response(body, request, root=os.environ.get("CODEGOLD_CHECKOUT"))
