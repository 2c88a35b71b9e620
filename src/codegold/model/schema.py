"""JSON Schemas of the on-disk formats, generated from the structs that read them."""

from __future__ import annotations

from typing import Any

import msgspec

from codegold.model.attempts import Attempt
from codegold.model.cases import CaseFileSpec
from codegold.model.manifest import Manifest
from codegold.model.results import RunResult

SCHEMAS: dict[str, tuple[type[Any], str]] = {
    "cases": (CaseFileSpec, "codegold gold cases (cases.yaml / .json; .jsonl holds one case a line)"),
    "attempts": (Attempt, "one line of attempts.jsonl: a retrieval attempt"),
    "manifest": (Manifest, "manifest.json of a codegold index"),
    "results": (RunResult, "results.json written by `codegold eval`"),
}


def json_schema(name: str) -> dict[str, Any]:
    kind, title = SCHEMAS[name]
    schema: dict[str, Any] = msgspec.json.schema(kind)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = title
    return schema
