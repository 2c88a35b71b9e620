"""Ruby."""

from __future__ import annotations

from codegold.index.languages.spec import LanguageSpec

SPECS = (
    # A call wraps the definition it is given (`private def x`, `memoize def x`) and the
    # block of a call it is given or called on (`use(Class.new do def call ... end)`,
    # `Struct.new(:a) do ... end.new`), and an assignment the block it assigns.
    LanguageSpec(name="ruby", module="tree_sitter_ruby", loader="language", family="ruby",
                 tags=("ruby",),
                 wrappers=frozenset({"if_modifier", "unless_modifier", "call", "argument_list",
                                     "assignment"}),
                 attached=frozenset({"comment"}), test_names=r"^test_|^Test|Test$",
                 member_lists=frozenset({"body_statement"})),
)
