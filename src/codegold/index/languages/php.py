"""PHP."""

from __future__ import annotations

from codegold.index.languages.spec import LanguageSpec

SPECS = (
    LanguageSpec(name="php", module="tree_sitter_php", loader="language_php", family="php",
                 tags=("php",), wrappers=frozenset(),
                 attached=frozenset({"comment", "attribute_list"}), test_names=r"^test|Test$",
                 # `/** @test */`; `#[Test]`, also in a list or among groups
                 # (`#[Group('x'), Test]`, `#[DataProvider('p')]\n#[Test]`).
                 test_markers=(r"^(/\*\*.*@test\b|#\[.*?(?<![\w'\"\\])(\\?PHPUnit\\Framework\\"
                               r"Attributes\\)?Test\s*[\](,])"),
                 flatten=frozenset({"compound_statement", "colon_block", "else_clause",
                                    "else_if_clause"})),
)
