"""Python."""

from __future__ import annotations

from codegold.index.languages.spec import LanguageSpec

SPECS = (
    LanguageSpec(name="python", module="tree_sitter_python", loader="language", family="python",
                 tags=("python",),
                 wrappers=frozenset({"decorated_definition", "expression_statement"}),
                 attached=frozenset({"comment", "decorator"}), test_names=r"^(test|Test)",
                 flatten=frozenset({"block", "elif_clause", "else_clause", "except_clause",
                                    "except_group_clause", "finally_clause"})),
)
