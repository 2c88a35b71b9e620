"""Rust."""

from __future__ import annotations

from codegold.index.languages.c import C_COMMENTS
from codegold.index.languages.spec import LanguageSpec

SPECS = (
    LanguageSpec(name="rust", module="tree_sitter_rust", loader="language", family="rust",
                 tags=("rust",), wrappers=frozenset(),
                 attached=frozenset({*C_COMMENTS, "attribute_item", "inner_attribute_item"}),
                 test_names=r"^test_",
                 test_markers=r"^#\[(([A-Za-z_]+::)*test(\(.*\))?|cfg\(test\))\]$"),
)
