"""Retrievers for tests: python: functions and tiny scripts for command: (run with sys.executable)."""

from __future__ import annotations

from typing import Any

REVISION = "a" * 40
MANIFEST = {"repository": "acme/shop", "revision": REVISION, "index_build_id": "fake-1",
            "chunker": {"name": "fake", "version": "1"}, "complete": True}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """Ranks src/<word>.py for the query's first word, then filler chunks, k deep."""
    first = request["query"].split()[0].lower()
    ranked = [{"chunk_id": f"c{i}", "file": f"src/{first if i == 0 else 'other'}.py",
               "revision": request["revision"], "start_line": 1, "end_line": 3,
               "symbol": first if i == 0 else None, "role": "definition"}
              for i in range(request["k"])]
    return {"format": 1, "ranked": ranked, "manifest": MANIFEST, "rewritten": first}


def as_list(request: dict[str, Any]) -> list[dict[str, Any]]:
    return answer(request)["ranked"]


def explode(request: dict[str, Any]) -> dict[str, Any]:
    raise ValueError("index offline")


def wrong_shape(request: dict[str, Any]) -> dict[str, Any]:
    return {"ranked": [{"file": "no chunk id"}]}


SCRIPT_OK = """
import json, sys
sys.path.insert(0, {here!r})
from fake_retrievers import answer
json.dump(answer(json.load(sys.stdin)), sys.stdout)
"""
SCRIPT_CRASH = "import sys; sys.stderr.write('boom: database locked'); sys.exit(3)"
SCRIPT_HANG = "import time; time.sleep(30)"
SCRIPT_BAD_JSON = "import sys; sys.stdin.read(); print('{not json')"


def with_extra_fields(request: dict[str, Any]) -> dict[str, Any]:
    """A team's service: each chunk also carries its ``text``, the answer a debug field."""
    answered = answer(request)
    for chunk in answered["ranked"]:
        chunk["text"] = f"lines of {chunk['file']}"
    return {**answered, "debug": {"took": 3}}
