"""`codegold schema NAME` and the loader of NAME give the same verdict on each document.

Each format gets valid documents and invalid ones (wrong type, out-of-range value, bad
revision, unknown role, unknown key, unsupported format version); every document goes
through the published JSON Schema (``jsonschema``) and through the real loader, and the
two must agree. Known limits of the schema (rules across values such as unique case
ids, or a revision given either on the case or in defaults) are not among these
documents: the loader alone checks them, and says so in its messages.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from codegold.diagnose.owners import load_owners
from codegold.errors import CodegoldError
from codegold.index.policy import load_policy
from codegold.model import decode_attempt, load_cases, load_manifest
from codegold.model.schema import SCHEMAS, json_schema
from codegold.retrieve.config import load_config

SHA = "0123456789abcdef0123456789abcdef01234567"


def _file_loader(load: Callable[[str], Any], suffix: str = ".json") -> Callable[[Path, Any], None]:
    def run(tmp_path: Path, doc: Any) -> None:
        path = tmp_path / f"doc{suffix}"
        path.write_text(json.dumps(doc), encoding="utf-8")
        load(str(path))
    return run


def _attempt_loader(tmp_path: Path, doc: Any) -> None:
    decode_attempt(json.dumps(doc).encode())


LOADERS: dict[str, Callable[[Path, Any], None]] = {
    "cases": _file_loader(load_cases),
    "owners": _file_loader(load_owners),
    "retriever-config": _file_loader(load_config),
    "index-policy": _file_loader(load_policy),
    "manifest": _file_loader(load_manifest),
    "attempts": _attempt_loader,
}

CASES: dict[str, Any] = {
    "format": 1,
    "defaults": {"repository": "acme/shop", "revision": SHA, "cutoff": 5},
    "cases": [{"id": "a", "query": "where is login", "accepted": [{"file": "src/a.py"}]},
              {"id": "b", "query": "who calls it", "cutoff": 1000, "revision": SHA,
               "groups": [{"id": "g", "any_of": [{"file": "src/**", "roles": ["call_site"]}]},
                          {"id": "s", "required": False, "any_of": [{"file": "t.py"}]}],
               "tags": {"area": "auth", "risk": 2, "w": 0.5, "flag": True}}],
}
ATTEMPT: dict[str, Any] = {
    "attempt_id": "a1", "case_id": "a", "format": 1,
    "ranked": [{"chunk_id": "c1", "file": "src/a.py", "role": "definition", "score": 1.5}],
    "manifest": {"revision": SHA, "index_build_id": "b", "complete": True, "files": 3,
                 "chunker": {"name": "codegold", "version": "1"}},
}


def _with(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``doc`` with ``a.b.0.c`` set to ``value`` (``...DEL`` removes the key)."""
    out = copy.deepcopy(doc)
    node: Any = out
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if part.isdigit() else node[part]
    last: Any = int(parts[-1]) if parts[-1].isdigit() else parts[-1]
    if value == "...DEL":
        del node[last]
    else:
        node[last] = value
    return out


# (format, label, document, loads?)
DOCUMENTS: list[tuple[str, str, Any, bool]] = [
    ("cases", "valid", CASES, True),
    ("cases", "cutoff_max", _with(CASES, "defaults.cutoff", 1000), True),
    ("cases", "cutoff_zero", _with(CASES, "defaults.cutoff", 0), False),
    ("cases", "cutoff_huge", _with(CASES, "cases.1.cutoff", 1_000_000_000), False),
    ("cases", "cutoff_string", _with(CASES, "defaults.cutoff", "5"), False),
    ("cases", "short_revision", _with(CASES, "defaults.revision", "abc123"), False),
    ("cases", "upper_revision", _with(CASES, "cases.1.revision", SHA.upper()), False),
    ("cases", "unknown_role", _with(CASES, "cases.1.groups.0.any_of.0.roles", ["definiton"]),
     False),
    ("cases", "unknown_key", _with(CASES, "cases.0.acepted", []), False),
    ("cases", "unknown_top_key", _with(CASES, "version", 1), False),
    ("cases", "format_2", _with(CASES, "format", 2), False),
    ("cases", "format_missing", _with(CASES, "format", "...DEL"), False),
    ("cases", "format_string", _with(CASES, "format", "1"), False),
    ("cases", "blank_query", _with(CASES, "cases.0.query", "  "), False),
    ("cases", "empty_cases", _with(CASES, "cases", []), False),
    ("cases", "empty_accepted", _with(CASES, "cases.0.accepted", []), False),
    ("cases", "query_number", _with(CASES, "cases.0.query", 7), False),
    ("cases", "tag_list", _with(CASES, "cases.1.tags.area", ["x"]), False),
    ("cases", "not_a_mapping", [CASES], False),
    ("cases", "budget_lines", _with(CASES, "cases.0.budget", {"lines": 400}), True),
    ("cases", "budget_steps_default", _with(_with(CASES, "defaults.cutoff", "...DEL"),
                                            "defaults.budget", {"steps": 3}), True),
    ("cases", "budget_two_units", _with(CASES, "cases.0.budget", {"lines": 4, "tokens": 9}),
     False),
    ("cases", "budget_empty", _with(CASES, "cases.0.budget", {}), False),
    ("cases", "budget_unknown_unit", _with(CASES, "cases.0.budget", {"pages": 4}), False),
    ("cases", "budget_zero", _with(CASES, "cases.0.budget", {"tokens": 0}), False),
    ("cases", "target_lines", _with(CASES, "cases.0.accepted.0.lines", [3, 9]), True),
    ("cases", "target_lines_one", _with(CASES, "cases.0.accepted.0.lines", [3]), False),
    ("cases", "target_lines_zero", _with(CASES, "cases.0.accepted.0.lines", [0, 2]), False),
    ("owners", "valid", {"format": 1, "owners": {"stale_label": "data"}, "default": "s"}, True),
    ("owners", "minimal", {"format": 1}, True),
    ("owners", "unknown_cause", {"format": 1, "owners": {"stale_lable": "data"}}, False),
    ("owners", "team_number", {"format": 1, "owners": {"stale_label": 3}}, False),
    ("owners", "blank_team", {"format": 1, "default": ""}, False),
    ("owners", "unknown_key", {"format": 1, "owner": {}}, False),
    ("owners", "format_2", {"format": 2}, False),
    ("owners", "format_missing", {"owners": {}}, False),
    ("retriever-config", "valid", {"fusion": {"method": "weighted", "rrf_k": 10,
                                              "weights": {"lexical": 2}}}, True),
    ("retriever-config", "format_1", {"format": 1, "signals": {"lexical": {"b": 1}}}, True),
    ("retriever-config", "negative_rrf_k", {"fusion": {"rrf_k": -60}}, False),
    ("retriever-config", "negative_b", {"signals": {"lexical": {"b": -5}}}, False),
    ("retriever-config", "b_above_1", {"signals": {"identifier": {"b": 1.5}}}, False),
    ("retriever-config", "negative_k1", {"signals": {"lexical": {"k1": -0.1}}}, False),
    ("retriever-config", "huge_weight", {"fusion": {"weights": {"lexical": 1e309}}}, False),
    ("retriever-config", "unknown_signal", {"fusion": {"weights": {"lexicl": 1}}}, False),
    ("retriever-config", "unknown_method", {"fusion": {"method": "borda"}}, False),
    ("retriever-config", "unknown_key", {"fusion": {"wieghts": {}}}, False),
    ("retriever-config", "unknown_role", {"filters": {"roles": ["definiton"]}}, False),
    ("retriever-config", "unknown_intent", {"rerank": {"role_preference": {"x": {}}}}, False),
    ("retriever-config", "wrong_type", {"candidates": {"per_signal": "many"}}, False),
    ("retriever-config", "format_2", {"format": 2}, False),
    ("retriever-config", "dense_auto", {"signals": {"dense": {"enabled": "auto", "mode": "full",
                                                              "store": "vectors/"}}}, True),
    ("retriever-config", "dense_bool", {"signals": {"dense": {"enabled": False}}}, True),
    ("retriever-config", "dense_maybe", {"signals": {"dense": {"enabled": "maybe"}}}, False),
    ("retriever-config", "dense_mode", {"signals": {"dense": {"mode": "eager"}}}, False),
    ("retriever-config", "dense_tokens", {"signals": {"dense": {"max_tokens": 4}}}, False),
    ("retriever-config", "dense_pool", {"signals": {"dense": {"candidates": 0}}}, False),
    ("index-policy", "valid", {"format": 1, "include": ["src/**"], "exclude": ["*.md"],
                               "max_bytes": 10, "defaults": False}, True),
    ("index-policy", "no_format", {"exclude": ["docs/"]}, True),
    ("index-policy", "empty_glob", {"include": [""]}, False),
    ("index-policy", "zero_max_bytes", {"max_bytes": 0}, False),
    ("index-policy", "bool_max_bytes", {"max_bytes": True}, False),
    ("index-policy", "globs_string", {"include": "src/**"}, False),
    ("index-policy", "unknown_key", {"includes": ["a"]}, False),
    ("index-policy", "format_2", {"format": 2}, False),
    ("manifest", "valid", ATTEMPT["manifest"], True),
    ("manifest", "partial", {"revision": "abc"}, True),
    ("manifest", "negative_files", {"files": -1}, False),
    ("manifest", "complete_string", {"complete": "yes"}, False),
    ("manifest", "format_2", {"format": 2}, False),
    ("manifest", "chunker_without_version", {"chunker": {"name": "x"}}, False),
    ("attempts", "valid", ATTEMPT, True),
    ("attempts", "unknown_key", _with(ATTEMPT, "rankd", []), False),
    ("attempts", "ranked_not_list", _with(ATTEMPT, "ranked", {}), False),
    ("attempts", "chunk_without_file", _with(ATTEMPT, "ranked.0.file", "...DEL"), False),
    ("attempts", "format_2", _with(ATTEMPT, "format", 2), False),
    ("attempts", "bad_manifest", _with(ATTEMPT, "manifest.files", -3), False),
    ("attempts", "not_an_object", [ATTEMPT], False),
]


def test_every_loader_format_has_a_schema() -> None:
    assert set(LOADERS) <= set(SCHEMAS)


@pytest.mark.parametrize(("name", "label", "doc", "loads"), DOCUMENTS,
                         ids=[f"{d[0]}-{d[1]}" for d in DOCUMENTS])
def test_schema_and_loader_agree(tmp_path: Path, name: str, label: str, doc: Any,
                                 loads: bool) -> None:
    schema = json_schema(name)
    schema_ok = jsonschema.Draft202012Validator(schema).is_valid(doc)
    try:
        LOADERS[name](tmp_path, doc)
        loader_ok = True
    except CodegoldError:
        loader_ok = False
    assert (schema_ok, loader_ok) == (loads, loads), (name, label)
