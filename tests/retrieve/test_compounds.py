"""Compound terms: a question's words that code runs together (``setenv``, ``filterwarnings``)."""

from __future__ import annotations

from pathlib import Path

import msgspec
from test_reference import _index_of

from codegold.index.store import IndexReader
from codegold.index.tokens import stem
from codegold.retrieve.compounds import Vocabulary, compound_terms
from codegold.retrieve.config import load_config
from codegold.retrieve.reference import ReferenceRetriever

TERMS = ["set", "env", "setenv", "filter", "warnings", "filterwarnings", "host", "name",
         "hostname", "rootdir", "root", "ab", "abwarnings", "getenv", "get"]


def _vocabulary(terms: list[str] = TERMS) -> Vocabulary:
    frequency = {t: i for i, t in enumerate(terms)}  # later terms are more frequent
    return Vocabulary(terms, frequency.__getitem__)


def test_a_compound_holds_the_word_beside_another_indexed_term() -> None:
    vocabulary = _vocabulary()
    assert vocabulary.holding("warnings", 3) == ["filterwarnings"]  # not abwarnings: "ab" < 3
    assert vocabulary.holding("env", 3) == ["getenv", "setenv"]  # most frequent first
    assert vocabulary.holding("env", 1) == ["getenv"]
    assert vocabulary.holding("root", 3) == []  # "dir" is not an indexed term here


def test_adjacent_question_words_join_and_asked_words_are_never_added() -> None:
    vocabulary = _vocabulary()
    words = ["which", "warnings", "does", "the", "host", "name", "filter"]
    found = compound_terms(words, vocabulary, skip=frozenset({"which", "does", "the"}))
    assert found == ["hostname", "filterwarnings"]
    # A stemmed engine's terms: the question's words are folded the same way.
    stemmed = _vocabulary([stem(t) for t in TERMS])
    assert stem("filterwarnings") in compound_terms(["warnings"], stemmed, fold=stem)


def test_test_questions_find_a_test_named_by_a_compound(tmp_path: Path) -> None:
    files = {
        "src/env.py": 'def set_variable(name, value):\n    """Set an environment variable."""\n    return name, value\n',
        "tests/test_env.py": 'def test_setenv(monkeypatch):\n    monkeypatch.setenv("A", "1")\n\n\n'
                             'def test_delattr(monkeypatch):\n    monkeypatch.delattr("os.sep")\n',
        "tests/test_other.py": 'def test_variable_names():\n    """Variable names of the environment module."""\n    assert names("environment variable")\n',
    }
    query = "which tests cover setting an env variable"
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        config = load_config()
        found = ReferenceRetriever(reader, config).retrieve(query, k=1)
        assert found.analysis.intent == "tests"
        assert found.ranked[0].chunk.symbol == "test_setenv"
        # Without compounds the test that repeats the question's words wins.
        off = msgspec.structs.replace(config, short_query=msgspec.structs.replace(
            config.short_query, compounds=msgspec.structs.replace(
                config.short_query.compounds, weight=0.0)))
        plain = ReferenceRetriever(reader, off).retrieve(query, k=1)
        assert plain.ranked[0].chunk.symbol != "test_setenv"
