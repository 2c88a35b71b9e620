"""Java."""

from __future__ import annotations

from codegold.index.languages.c import C_COMMENTS
from codegold.index.languages.spec import LanguageSpec

SPECS = (
    LanguageSpec(name="java", module="tree_sitter_java", loader="language", family="java",
                 tags=("java",), wrappers=frozenset(), attached=C_COMMENTS,
                 test_names=r"^test|Test$|^Test",
                 member_lists=frozenset({"enum_body_declarations"})),
)
