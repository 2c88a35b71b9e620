"""Every registered language is complete: a file language with extensions, a grammar that
loads, query files that compile against it, test conventions that compile, and a fixture
chunked by its own structural chunker."""

from __future__ import annotations

import importlib
import re
from importlib import resources
from pathlib import Path

import pytest

from codegold.index import chunk_file
from codegold.index.grammars import calls_query, tags_query, ts_language
from codegold.index.languages import LANGUAGES, STRUCTURAL_LANGUAGES
from codegold.model.languages import BY_NAME, LANGUAGE_BY_EXTENSION
from langkit import FIXTURES

QUERIES = resources.files("codegold.index.languages").joinpath("queries")
PYPROJECT = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_a_registered_language_is_complete(name: str) -> None:
    spec = LANGUAGES[name]
    assert spec.name == name
    language = BY_NAME.get(name)
    assert language is not None and language.kind == "code", "not a code language of model.languages"
    assert language.extensions and all(LANGUAGE_BY_EXTENSION[e] == name for e in language.extensions)
    assert callable(getattr(importlib.import_module(spec.module), spec.loader))
    distribution = spec.module.replace("_", "-")
    assert f'"{distribution}>=' in PYPROJECT, f"{distribution} is not a dependency"
    grammar = ts_language(name)
    # Node types named for this language alone must be its grammar's; the shared sets
    # (C-style comments, the ECMAScript wrappers) need only hold some of its types.
    for kind in (*spec.member_lists, *spec.names_with_parameters):
        assert grammar.id_for_node_kind(kind, True), f"{name} has no node type {kind!r}"
    for kinds in (spec.wrappers, spec.attached, spec.flatten):
        assert not kinds or any(grammar.id_for_node_kind(k, True) for k in kinds), kinds
    for tags in spec.tags:
        assert QUERIES.joinpath(f"{tags}.tags.scm").is_file(), tags
    assert QUERIES.joinpath(f"{spec.family}.scm").is_file(), spec.family
    tags_query(name)
    calls_query(name)
    for pattern in (spec.test_names, spec.test_markers):
        if pattern is not None:
            re.compile(pattern)
    if spec.prepare is not None:
        source = b"a\n\tb \r\nc"
        assert spec.prepare(source).count(b"\n") >= source.count(b"\n")
    fixtures = [p for p in FIXTURES.iterdir()
                if LANGUAGE_BY_EXTENSION.get(p.suffix.lower()) == name
                or (name == "tsx" and p.suffix == ".tsx")]
    assert fixtures, f"no fixture file of {name} in tests/index/fixtures"
    chunked = chunk_file(f"src/{fixtures[0].name}", fixtures[0].read_bytes())
    assert chunked.entry.chunker == f"tree-sitter:{name}" and chunked.definitions


def test_every_query_file_belongs_to_a_registered_language() -> None:
    used = {f"{t}.tags.scm" for spec in LANGUAGES.values() for t in spec.tags}
    used |= {f"{spec.family}.scm" for spec in LANGUAGES.values()}
    present = {p.name for p in QUERIES.iterdir() if p.name.endswith(".scm")}
    assert present == used
    assert frozenset(LANGUAGES) == STRUCTURAL_LANGUAGES
