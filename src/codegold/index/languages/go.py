"""Go."""

from __future__ import annotations

from codegold.index.languages.c import C_COMMENTS
from codegold.index.languages.spec import LanguageSpec

SPECS = (
    LanguageSpec(name="go", module="tree_sitter_go", loader="language", family="go", tags=("go",),
                 wrappers=frozenset({"type_declaration", "field_declaration"}),
                 # `testRoute(t, ...)` helpers in a _test.go file test too.
                 attached=C_COMMENTS, test_names=r"^(Test|Benchmark|Example|Fuzz|test)"),
)
