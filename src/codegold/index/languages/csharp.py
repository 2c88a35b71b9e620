"""C#: conditional base lists and unbalanced conditionals, and test attributes."""

from __future__ import annotations

import re

from codegold.index.languages._rewrite import (
    LINE_LITERAL,
    VERBATIM_STRING,
    spaces,
)
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
# BuildUri``, called as ``client.BuildUri()``). Bounded: a header's parameter list and
# constraints are read up to a length, so a flood of unclosed headers stays linear.
_EXTENSION_HEADER = re.compile(
    rb"(?m)^[ \t]*extension[ \t]*(?:<[^<>{};\n]{0,300}>)?[ \t]*\([^(){};]{0,1000}\)"
    rb"(?:[ \t\r\n]{0,100}where\b[^{};]{0,500})?[ \t\r\n]{0,100}\{")
_LINE_LITERAL = re.compile(LINE_LITERAL)
_VERBATIM = re.compile(VERBATIM_STRING)


def _block_end(data: bytes, at: int) -> int | None:
    """The offset just past the brace that closes the block open at ``at`` (after its
    ``{``), skipping comments, raw, verbatim and one-line strings and characters; None
    when the file ends first or a comment or string never closes (left to the grammar)."""
    depth, size = 1, len(data)
    while at < size:
        byte = data[at]
        if byte == 0x7B:  # {
            depth += 1
        elif byte == 0x7D:  # }
            depth -= 1
            if depth == 0:
                return at + 1
        elif byte == 0x2F and data[at + 1:at + 2] == b"/":  # // to the line's end
            newline = data.find(b"\n", at)
            at = size if newline < 0 else newline
            continue
        elif byte == 0x2F and data[at + 1:at + 2] == b"*":  # /* ... */
            close = data.find(b"*/", at + 2)
            if close < 0:
                return None
            at = close + 2
            continue
        elif data.startswith(b'"""', at):
            close = data.find(b'"""', at + 3)
            if close < 0:
                return None
            at = close + 3
            continue
        elif byte == 0x40 and data[at + 1:at + 2] == b'"':  # @"..." (quotes doubled)
            verbatim = _VERBATIM.match(data, at)
            if verbatim is None:
                return None
            at = verbatim.end()
            continue
        elif byte in (0x22, 0x27):  # " or '
            literal = _LINE_LITERAL.match(data, at)
            if literal is not None:
                at = literal.end()
                continue
        at += 1
    return None


def _unwrap_extension_blocks(data: bytes) -> bytes:
    """``_EXTENSION_HEADER`` and the brace that closes its block blanked; a block whose
    end is not found, and every header after it, are left alone."""
    if b"extension" not in data:
        return data
    out = bytearray(data)
    position = 0
    while (match := _EXTENSION_HEADER.search(data, position)) is not None:
        end = _block_end(data, match.end())
        if end is None:
            break
        out[match.start():match.end()] = spaces(data[match.start():match.end()])
        out[end - 1] = 32
        position = match.end()  # a header inside the block is another block, not one
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
