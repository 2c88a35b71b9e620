"""Builders for gold case files and attempts files in tests (plain dicts written to disk).

Tests describe cases and attempts as the documented file formats (what a user writes),
then go through the real loaders, so validation and scoring are exercised end to end.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from codegold.evaluate import evaluate_files
from codegold.model import RunResult

SHA_A = "a" * 40
SHA_B = "b" * 40


def manifest(revision: str = SHA_A, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "repository": "acme/shop",
        "revision": revision,
        "index_build_id": "build-1",
        "chunker": {"name": "codegold", "version": "1"},
        "files": 10,
        "chunks": 100,
        "complete": True,
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def chunk(chunk_id: str, file: str, symbol: str | None = None, role: str | None = None,
          revision: str | None = SHA_A, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"chunk_id": chunk_id, "file": file, "revision": revision}
    if symbol is not None:
        data["symbol"] = symbol
    if role is not None:
        data["role"] = role
    data.update(extra)
    return {k: v for k, v in data.items() if v is not None}


def attempt(attempt_id: str, case_id: str, ranked: Sequence[dict[str, Any]],
            *, with_manifest: dict[str, Any] | bool | None = True, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"attempt_id": attempt_id, "case_id": case_id, "ranked": list(ranked)}
    if with_manifest is True:
        data["manifest"] = manifest()
    elif isinstance(with_manifest, dict):
        data["manifest"] = with_manifest
    data.update(extra)
    return data


def case(case_id: str, accepted: Sequence[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"id": case_id, "query": f"query for {case_id}"}
    if accepted is not None:
        data["accepted"] = list(accepted)
    data.update(fields)
    return data


def case_file(cases: Sequence[dict[str, Any]], defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    base = {"repository": "acme/shop", "revision": SHA_A, "cutoff": 5}
    if defaults is not None:
        base = defaults
    return {"format": 1, "defaults": base, "cases": list(cases)}


def write_cases(directory: Path, cases: Sequence[dict[str, Any]],
                defaults: dict[str, Any] | None = None, *, name: str = "cases.yaml") -> Path:
    doc = case_file(cases, defaults)
    path = directory / name
    if name.endswith(".jsonl"):
        header = {k: v for k, v in doc.items() if k != "cases"}
        lines = [json.dumps(header)] + [json.dumps(c) for c in doc["cases"]]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif name.endswith(".json"):
        path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def write_attempts(directory: Path, attempts: Iterable[dict[str, Any]],
                   *, name: str = "attempts.jsonl") -> Path:
    path = directory / name
    path.write_text("".join(json.dumps(a) + "\n" for a in attempts), encoding="utf-8")
    return path


def run_eval(directory: Path, cases: Sequence[dict[str, Any]], attempts: Iterable[dict[str, Any]],
             defaults: dict[str, Any] | None = None) -> RunResult:
    cases_path = write_cases(directory, cases, defaults)
    attempts_path = write_attempts(directory, attempts)
    return evaluate_files(str(cases_path), str(attempts_path))
