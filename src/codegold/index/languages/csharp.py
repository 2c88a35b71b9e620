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


# C# 14's extension block (``extension(IRestClient client) { public Uri BuildUri() ... }``
# inside a static class): a grammar that predates it reads a method named ``extension``
# whose members are statements. The header and its braces become blanks, so the members
# are members of the static class, which is where C# puts them (``BuildUriExtensions.
# BuildUri``, called as ``client.BuildUri()``).
_EXTENSION_HEADER = re.compile(
    rb"(?m)^[ \t]*extension[ \t]*(?:<[^<>{};\n]*>)?[ \t]*\([^(){};]*\)"
    rb"(?:\s*where\b[^{};]*)?\s*\{")
# What the braces of a block are counted without: verbatim, raw and plain strings (an
# interpolated one's holes hold no unbalanced brace), characters, comments.
_NOT_CODE = re.compile(rb'"""[\s\S]*?"""|@"(?:[^"]|"")*"|"(?:[^"\\\n]|\\.)*"'
                       rb"|'(?:[^'\\\n]|\\.)*'|//[^\n]*|/\*[\s\S]*?\*/")


def _spaces(data: bytes) -> bytes:
    return bytes(32 if b != 10 else 10 for b in data)


def _unwrap_extension_blocks(data: bytes) -> bytes:
    """``_EXTENSION_HEADER`` and the brace that closes its block blanked (a block whose
    end is not found is left alone)."""
    if b"extension" not in data:
        return data
    out = bytearray(data)
    for match in _EXTENSION_HEADER.finditer(data):
        depth, at = 1, match.end()
        while depth and at < len(data):
            skipped = _NOT_CODE.match(data, at)
            if skipped is not None and skipped.end() > at:
                at = skipped.end()
                continue
            if data[at] == 0x7B:  # {
                depth += 1
            elif data[at] == 0x7D:  # }
                depth -= 1
            at += 1
        if depth == 0:
            out[match.start():match.end()] = _spaces(data[match.start():match.end()])
            out[at - 1] = 32
    return bytes(out)


def _prepare_csharp(data: bytes) -> bytes:
    """C#: a conditional base list's directives (``_CONDITIONAL_BASE_LIST``) become blanks,
    and so do the other branches of a conditional whose branches open and close braces
    differently (``_first_branch_only``) and the header and braces of an extension block
    (``_unwrap_extension_blocks``)."""
    return _first_branch_only(_CONDITIONAL_BASE_LIST.sub(_blank_directives,
                                                         _unwrap_extension_blocks(data)),
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
