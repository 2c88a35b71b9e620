"""C#: conditional base lists and unbalanced conditionals, and test attributes."""

from __future__ import annotations

import re

from codegold.index.languages._rewrite import first_branch_only as _first_branch_only
from codegold.index.languages.spec import LanguageSpec

# C#: a base list under a condition (``class W\n#if X\n    : IAsyncDisposable\n#endif\n{``)
# breaks the class header in the grammar (the condition becomes the class name); its
# ``#if`` / ``#endif`` lines are blanked, the base list kept.
_CONDITIONAL_BASE_LIST = re.compile(
    rb"(?m)^([ \t]*#if\b[^\n]*)\n((?:[ \t]*[:,][^\n]*\n)+)([ \t]*#endif\b[^\n]*)$")


def _blank_directives(match: re.Match[bytes]) -> bytes:
    return b" " * len(match.group(1)) + b"\n" + match.group(2) + b" " * len(match.group(3))


def _prepare_csharp(data: bytes) -> bytes:
    """C#: a conditional base list's directives (``_CONDITIONAL_BASE_LIST``) become blanks,
    and so do the other branches of a conditional whose branches open and close braces
    differently (``_first_branch_only``)."""
    return _first_branch_only(_CONDITIONAL_BASE_LIST.sub(_blank_directives, data),
                              declarations=True)


# A C# attribute list holding a test attribute of NUnit, xUnit or MSTest (`[Test]`,
# `[Fact, Trait("a", "b")]`, `[Xunit.Theory]`, `[TestCase(1)]`): the method it is part of
# is a test. Matched on the list's text, not by a query pattern over its attributes, whose
# cost grows with the cube of a method's attribute lists.
_CS_STRING = r'"(?:[^"\\\n]|\\.)*"'
_CS_ARGUMENTS = rf'\((?:[^()"]|{_CS_STRING}|\((?:[^()"]|{_CS_STRING})*\))*\)'
_CSHARP_TEST_ATTRIBUTES = (
    rf'^\[(?:\w+\s*:)?(?:(?:[^\[\]"(),]|{_CS_STRING}|{_CS_ARGUMENTS})*,)*\s*(?:\w+\.)*'
    r"(?:Test|Fact|Theory|TestMethod|TestCase|TestCaseSource|DataTestMethod)(?:Attribute)?"
    r"\s*[(,\]]")

SPECS = (
    LanguageSpec(name="csharp", module="tree_sitter_c_sharp", loader="language",
                 family="csharp", tags=("csharp",), wrappers=frozenset(),
                 attached=frozenset({"comment", "attribute_list"}), test_names=r"^Test|Tests?$",
                 test_markers=_CSHARP_TEST_ATTRIBUTES, prepare=_prepare_csharp),
)
