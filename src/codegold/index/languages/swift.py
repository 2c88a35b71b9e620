"""Swift: a grammar wheel, its query files and this spec; nothing to rewrite."""

from __future__ import annotations

from codegold.index.languages.spec import LanguageSpec

SPECS = (
    LanguageSpec(name="swift", module="tree_sitter_swift", loader="language", family="swift",
                 tags=("swift",), wrappers=frozenset(),
                 attached=frozenset({"comment", "multiline_comment"}),
                 test_names=r"^test"),
)
