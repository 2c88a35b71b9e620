"""Tree-sitter grammars from the per-language wheels, and the call-site queries kept as
data files (``queries/<family>.scm``). Loaded lazily and cached per process."""

from __future__ import annotations

import importlib
from functools import cache
from importlib import resources
from typing import Any

from tree_sitter import Language, Parser, Query

# language name → (module, loader function, query family)
_GRAMMARS: dict[str, tuple[str, str, str]] = {
    "python": ("tree_sitter_python", "language", "python"),
    "typescript": ("tree_sitter_typescript", "language_typescript", "javascript"),
    "tsx": ("tree_sitter_typescript", "language_tsx", "javascript"),
    "javascript": ("tree_sitter_javascript", "language", "javascript"),
    "go": ("tree_sitter_go", "language", "go"),
    "java": ("tree_sitter_java", "language", "java"),
    "rust": ("tree_sitter_rust", "language", "rust"),
}

STRUCTURAL_LANGUAGES: frozenset[str] = frozenset(_GRAMMARS)


def family(language: str) -> str:
    """The structural family a language shares rules with (TS/TSX use JavaScript's)."""
    return _GRAMMARS[language][2]


@cache
def ts_language(language: str) -> Language:
    module_name, loader, _ = _GRAMMARS[language]
    module: Any = importlib.import_module(module_name)
    return Language(getattr(module, loader)())


@cache
def parser(language: str) -> Parser:
    """A cached parser; parsers are not thread-safe, so share one per thread only."""
    return Parser(ts_language(language))


@cache
def calls_query(language: str) -> Query:
    source = resources.files("codegold.index").joinpath(f"queries/{family(language)}.scm")
    return Query(ts_language(language), source.read_text(encoding="utf-8"))


@cache
def error_query(language: str) -> Query:
    return Query(ts_language(language), "(ERROR) @error")
