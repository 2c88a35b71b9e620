"""Language knowledge as data: which grammar wheel parses a language, which query files
find its definitions (``queries/<name>.tags.scm``) and call sites (``queries/<family>.scm``),
and the few node types the structural walker must know (wrappers and attached comments).

Adding a language is a grammar dependency, a tags query file and one :data:`LANGUAGES`
entry. Grammars and queries are loaded lazily and cached per process (both are immutable
and safe to share); parsers are not thread-safe, so there is one per thread.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from tree_sitter import Language, Parser, Query, QueryCursor


@dataclass(frozen=True)
class LanguageSpec:
    """What codegold knows about one structurally chunked language.

    ``tags`` name query files under ``queries/`` (``<name>.tags.scm``) concatenated in
    order; their captures are documented in docs/index.md. ``wrappers`` are node types
    that wrap a definition without changing what it defines (``export``, decorators, an
    expression statement around an assignment): the walker sees the wrapper, the query
    matches the definition inside. ``attached`` are node types (doc comments, attributes)
    that belong to the definition right below them. ``test_names`` is the naming
    convention of tests: in a test file, a definition whose short name matches it has
    role ``test``. ``test_markers`` matches an attached node's text (an attribute) that
    makes the definition below it a test in any file, its members included.
    ``flatten`` are node types whose statements belong to the level holding them (the
    branches of a conditional the tags query marks as a nameless ``module``): the walker
    takes their statements as members and leaves out their conditions.
    ``prepare``: rewrites the bytes before parsing (see :func:`parse_source`), keeping
    every row and byte offset.
    """

    module: str
    loader: str
    family: str
    tags: tuple[str, ...]
    wrappers: frozenset[str]
    attached: frozenset[str]
    test_names: str | None = None
    test_markers: str | None = None
    prepare: Callable[[bytes], bytes] | None = None
    flatten: frozenset[str] = frozenset()


# A line holding only an upper-case macro (``FMT_BEGIN_NAMESPACE``, ``EXTERN_C_BEGIN``)
# opens or closes a scope the grammar cannot see; parsed as code it turns everything up to
# its partner into one syntax error.
# So does a line holding only a macro call (``FMT_PRAGMA_CLANG(diagnostic push)``), unless
# a block follows it (gtest's ``TEST(Suite, Name)`` with its brace on the next line) or
# it continues a ``#define`` (a blank continuation line would end the macro early).
_LONE_MACRO_LINE = re.compile(
    rb"(?<!\\\n)(?<!\\\r\n)^[ \t]*[A-Z][A-Z0-9_]{2,}(?:\((?:[^()\n]|\([^()\n]*\))*\))?[ \t]*$(?![\r\n]+[ \t]*\{)",
    re.MULTILINE)


# Attribute macros (``FMT_CONSTEXPR``, ``FMT_API``, ``FMT_INLINE``, ``EXPORT_API``): an
# upper-case name with an underscore, with or without arguments, that the preprocessor
# turns into a specifier or attribute. The grammar reads one as a type name, so where a
# type, a keyword or a constructor's initializer list follows, the declaration breaks.
# They are blanked where a declaration starts (a line's start, or after ``static``,
# ``inline``, ``template``, ...) when a name, a keyword or ``~`` follows
# (``FMT_CONSTEXPR inline auto f()``, ``FMT_API std::string vformat()``,
# ``FMT_CONSTEXPR20 T(T&& other) : base(other)``): a function keeps its name either way.
# Also between ``class``/``struct`` and the name (``class FMT_API file``, ``class GTEST_API_
# [[nodiscard]] Test``), after ``if``
# (``if FMT_CONSTEXPR20 (...)``), before a block (``FMT_TRY {``, or ``JSON_TRY`` with
# its brace on the next line), after a parameter list
# (``bool f(int x) GTEST_LOCK_EXCLUDED_(mu) {``), after a parameter (``value(int x FMT_BUILTIN)``),
# and a macro call in a template parameter list (``template <typename T,
# FMT_ENABLE_IF(...)>``). Not a macro but as fatal: ``unsigned(x)``, a cast the grammar
# cannot read, loses its ``unsigned`` (``(x)`` is the same expression to a reader).
_MACRO = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\((?:[^()\n]|\([^()\n]*\))*\))?"
_DECLARATION_START = (rb"(?m)(?:^[ \t]*|\b(?:template|static|inline|constexpr|consteval|"
                      rb"constinit|virtual|explicit|friend|extern|mutable)[ \t]+|"
                      rb"\btemplate[ \t]*<[^;{}\n]{0,200}>[ \t]+)")
_ATTRIBUTE_MACROS = (
    re.compile(_DECLARATION_START + rb"((?:" + _MACRO + rb"[ \t]+)+)(?=[A-Za-z_~])"),
    re.compile(rb"\b(?:class|struct|union)[ \t]+((?:" + _MACRO + rb"[ \t]+)+)(?=[A-Za-z_]|\[\[)"),
    re.compile(rb"\bif[ \t]+(" + _MACRO + rb")[ \t]*(?=\()"),
    # Not a macro at the start of a line: a definition's header (``// Tests f()`` above
    # ``TEST_F(Suite, Name) {``).
    re.compile(rb"\)(?:\s*(?:const|noexcept|override|final)\b)*((?:\s*(?<!\n)" + _MACRO
               + rb")+)\s*(?=\{)"),
    re.compile(rb"\)(?:\s*(?:const|noexcept|override|final)\b)+((?:\s*(?<!\n)" + _MACRO
               + rb")+)\s*(?=;)"),
    re.compile(rb"(?m)^[ \t]*([A-Z][A-Z0-9]*_[A-Z0-9_]*)[ \t]*(?=(?:\r?\n[ \t]*)?\{)"),
    re.compile(rb"(?<=\w)([ \t]+[A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]*[),])"),
    re.compile(rb"\b(unsigned|signed)(?=\()"),
    re.compile(rb"(,\s*[A-Z][A-Z0-9]*_[A-Z0-9_]*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))\s*(?=>)"),
    # An access specifier behind a macro (``JSON_PRIVATE_UNLESS_TESTED:`` alone on its
    # line, ``#define``d to ``private`` or ``public``): read as a bit field, it swallows
    # the rest of the class.
    re.compile(rb"(?m)^[ \t]*([A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]*:)(?=[ \t]*(?:$|//|/\*))"),
)
# A macro call statement at the start of a line, outside any block (``GTEST_DECLARE_bool_(x);``,
# ``GMOCK_DEFINE_DEFAULT_ACTION_FOR_RETURN_TYPE_(void, );  // NOLINT``): it declares what
# its expansion declares, which the grammar cannot see; read as a prototype, an empty or
# literal argument turns everything after it into one syntax error. Blanked.
# So is one without ``;`` whose arguments go on over a backslash-continued line
# (``GTEST_DISABLE_MSC_WARNINGS_PUSH_(4251 \`` ``/* comment */)``), unless a block follows.
_TOP_LEVEL_MACRO_STATEMENT = re.compile(
    rb"(?m)^[A-Z][A-Z0-9]*_[A-Za-z0-9_]*\((?:[^()\n\\]|\\\r?\n|\\.|\((?:[^()\n]|\([^()\n]*\))*\))*\)"
    rb"[ \t]*;?(?=[ \t]*(?://[^\n]*)?$(?![\r\n]+[ \t]*\{))")
# C: a macro call wrapping a function's return type (``CJSON_PUBLIC(cJSON*) f(...)``,
# ``#define``d to the type and an export attribute) is the type itself to the C grammar
# (a ``macro_type_specifier``); blanked, the function has no type, which C cannot parse
# (C++ reads it as a constructor-like function). In C it is kept.
_C_TYPE_MACRO = re.compile(rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*\([\w \t*&,]+\)[ \t]+$")
_NAME_AND_PARAMETERS = re.compile(rb"[A-Za-z_]\w*[ \t]*\(")
# A calling-convention or attribute macro between a return type and the function's name
# (``int CJSON_CDECL main(void)``, ``DWORD WINAPI worker(void* arg)``): read as the name,
# it leaves the real name a syntax error. Blanked in C and C++.
_CALLING_CONVENTION = re.compile(
    rb"(?<=[\w*][ \t])([A-Z][A-Z0-9]*_[A-Z0-9_]*|WINAPI|CALLBACK|APIENTRY|WSAAPI|NTAPI)"
    rb"(?=[ \t]+[A-Za-z_]\w*[ \t]*\()")
# C: a C++ linkage block opened or closed under ``#ifdef __cplusplus`` (``extern "C" {``
# or its ``}``) is no C; the C grammar cannot close it, so the conditional becomes blank.
_CPLUSPLUS_LINKAGE = re.compile(
    rb"(?m)^[ \t]*#[ \t]*if(?:def[ \t]+__cplusplus|[ \t]+defined[ \t]*\(?[ \t]*__cplusplus[ \t]*\)?)"
    rb"[ \t]*(?://[^\n]*|/\*[^\n]*\*/[ \t]*)?\r?\n"
    rb"[ \t]*(?:extern[ \t]+\"C\"[ \t]*\{|\})[^\n]*\n[ \t]*#[ \t]*endif\b[^\n]*")


def _blank(match: re.Match[bytes], group: int | str = 0) -> bytes:
    """``match`` with ``group`` turned into spaces (newlines kept: rows stay put)."""
    start, end = match.span(group)
    text = match.group(0)
    offset = match.start(0)
    return (text[:start - offset] + re.sub(rb"[^\n]", b" ", text[start - offset:end - offset])
            + text[end - offset:])


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


_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elifdef|elifndef|elif|else|endif)\b")
_OPENING_DIRECTIVES = frozenset({b"if", b"ifdef", b"ifndef"})
_BRANCH_DIRECTIVES = frozenset({b"elif", b"elifdef", b"elifndef", b"else"})
# What a line's braces are counted without: strings, characters and line comments.
_NOT_BRACES = re.compile(rb"@\"(?:[^\"]|\"\")*\"|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|//.*")


# A line of code after which a declaration goes on: a signature (``)``), a generic
# constraint or type (``where T : class``, ``>``).
_DECLARATION_GOES_ON = re.compile(rb"[)>\w]$")


def _body_follows(lines: list[bytes], index: int) -> bool:
    """Whether the first line of code after row ``index`` opens a body (``{``, ``=>``):
    the conditional that ends there holds alternative signatures."""
    for line in lines[index + 1:index + 50]:
        code = line.strip()
        if code and not code.startswith((b"//", b"#")):
            return code.startswith((b"{", b"=>"))
    return False


def _first_branch_only(data: bytes, alternatives_only: bool = False,
                       declarations: bool = False) -> bytes:
    """Blank (rows and byte offsets kept) a conditional whose branches do not each close
    the braces they open (``#if X`` ``if (a) {`` ``#else`` ``var a = b;`` ``#endif``): the
    grammar reads a conditional as a node of complete statements, so such a one ends the
    enclosing class early. Its directive lines and every branch but the first become
    blank, and the first branch is read as plain code, as the compiler would read it with
    the condition set (with ``alternatives_only``, only a conditional with an ``#else`` or
    ``#elif``). Conditionals whose branches balance (members under ``#if`` and
    ``#else``) keep them all, except, with ``declarations`` (C#), one that continues a
    declaration or holds its alternative signatures."""
    if b"#" not in data:
        return data
    lines = data.split(b"\n")
    # Per open conditional: its branches, each [directive line index, brace balance].
    frames: list[list[list[int]]] = []
    balance = [0]  # the brace balance of the innermost branch being read (outermost first)
    # Rows to blank as a difference array: +1 where a blank run starts, -1 past its end
    # (runs nest, so marking them row by row could cost rows times depth).
    marks = [0] * (len(lines) + 1)
    continued = False  # a line continuing a directive (C's `#define X \`)
    # Conditionals that continue a declaration (``void Write(...)`` ``#if X`` ``{ ... }``
    # ``#else`` ``;`` ``#endif``) or hold its alternative signatures (``#if X`` ``void
    # F(Span<T> a)`` ``#else`` ``void F(T[] a)`` ``#endif`` ``{``): the grammar reads
    # none of their branches as a member.
    continuing: set[int] = set()
    last_code = b";"  # the last line of code so far, stripped
    for index, line in enumerate(lines):
        directive = _DIRECTIVE.match(line)
        in_directive = continued or line.lstrip().startswith(b"#")
        continued = in_directive and line.rstrip().endswith(b"\\")
        if directive is None:
            if in_directive:  # a macro's braces are not the code's
                continue
            text = _NOT_BRACES.sub(b"", line)
            balance[-1] += text.count(b"{") - text.count(b"}")
            code = text.strip()
            if code and not code.startswith((b"#", b"/*", b"*")):
                last_code = code
            continue
        word = directive.group(1)
        if word in _OPENING_DIRECTIVES:
            if declarations and _DECLARATION_GOES_ON.search(last_code):
                continuing.add(len(frames))
            frames.append([[index, 0]])
            balance.append(0)
        elif not frames:
            continue  # a stray #else or #endif: nothing to pair it with
        elif word in _BRANCH_DIRECTIVES:
            frames[-1][-1][1] = balance[-1]
            frames[-1].append([index, 0])
            balance[-1] = 0
        else:
            goes_on = declarations and (len(frames) - 1 in continuing
                                        or _body_follows(lines, index))
            continuing.discard(len(frames) - 1)
            branches = frames.pop()
            branches[-1][1] = balance.pop()
            if goes_on or (any(b[1] != 0 for b in branches)
                           and (len(branches) > 1 or not alternatives_only)):
                for row in (*(b[0] for b in branches[:2]), index):
                    marks[row] += 1
                    marks[row + 1] -= 1
                if len(branches) > 1:  # every later branch, its directives included
                    marks[branches[1][0]] += 1
                    marks[index] -= 1
            balance[-1] += branches[0][1]
    depth = 0
    blanked = False
    for row, mark in enumerate(marks[:-1]):
        depth += mark
        if depth > 0:
            lines[row] = b" " * len(lines[row])
            blanked = True
    return b"\n".join(lines) if blanked else data


def _prepare_c(data: bytes, keep_type_macros: bool = False) -> bytes:
    """C and C++: lines holding only an upper-case macro (``_LONE_MACRO_LINE``) or a
    macro call statement (``_TOP_LEVEL_MACRO_STATEMENT``), calling conventions
    (``_CALLING_CONVENTION``) and attribute macros (``_ATTRIBUTE_MACROS``) become blanks of the same length (in C, not
    a macro wrapping a return type, ``_C_TYPE_MACRO``), a conditional whose branches open
    and close braces differently (``#if X`` ``for (;x;) {`` ``#else`` ``for (;;) {``
    ``#endif``; a lone ``#if`` is left to the grammar) keeps its first branch only (``_first_branch_only``), and a final newline
    is added when missing (the grammar fails a whole ``#ifndef`` guard whose ``#endif``
    ends the file)."""
    source = _LONE_MACRO_LINE.sub(_blank, data)
    source = _TOP_LEVEL_MACRO_STATEMENT.sub(_blank, source)  # continuation rows kept
    for number, pattern in enumerate(_ATTRIBUTE_MACROS):
        if number == 0 and keep_type_macros:
            source = pattern.sub(_blank_attributes_not_types, source)
        else:
            source = pattern.sub(lambda m: _blank(m, 1), source)
    source = _CALLING_CONVENTION.sub(_blank_calling_convention, source)
    if keep_type_macros:
        source = _CPLUSPLUS_LINKAGE.sub(lambda m: _blank(m), source)
    source = _first_branch_only(source, alternatives_only=True)
    return source if source.endswith(b"\n") else source + b"\n"


def _blank_attributes_not_types(match: re.Match[bytes]) -> bytes:
    """A run of attribute macros blanked, but for a last one that wraps the return type of
    the function named next (``_C_TYPE_MACRO``)."""
    start, end = match.span(1)
    kept = _C_TYPE_MACRO.search(match.string, start, end)
    if kept is not None and _NAME_AND_PARAMETERS.match(match.string, end):
        end = kept.start()
    text = match.group(0)
    offset = match.start(0)
    return (text[:start - offset] + re.sub(rb"[^\n]", b" ", text[start - offset:end - offset])
            + text[end - offset:])


def _blank_calling_convention(match: re.Match[bytes]) -> bytes:
    """``_CALLING_CONVENTION`` blanked, but not in a directive (``#define X_PUSH
    _Pragma("...")`` defines the macro)."""
    line_start = match.string.rfind(b"\n", max(0, match.start() - 200), match.start()) + 1
    if match.string[line_start:match.start()].lstrip().startswith(b"#"):
        return match.group(0)
    return _blank(match, 1)


# C test macros with a block (Unity fixture's ``TEST(Group, Name) {``, ``IGNORE_TEST``,
# Criterion's ``Test(suite, name) {``): C reads them as a call and a stray block. Their
# punctuation is moved within the same bytes (``TEST Group( Name) {``), which C reads as a
# function ``Group`` of type ``TEST`` (c.tags.scm names it ``Group.Name``, a test).
_C_TEST_MACRO = re.compile(
    rb"(?m)^(TEST|IGNORE_TEST|Test)\(([ \t]*[A-Za-z_]\w*[ \t]*),([ \t]*[A-Za-z_]\w*[ \t]*)\)"
    rb"(?=[ \t]*(?:\r?\n[ \t]*)?\{)")


def _prepare_c_source(data: bytes) -> bytes:
    """C (not C++): :func:`_prepare_c`, keeping return-type macros and blanking C++
    linkage blocks (``_CPLUSPLUS_LINKAGE``), then test macros read as functions
    (``_C_TEST_MACRO``; after, so ``IGNORE_TEST`` is no attribute macro to blank)."""
    return _C_TEST_MACRO.sub(rb"\1 \2(\3)", _prepare_c(data, keep_type_macros=True))


# Kotlin Multiplatform's `actual`/`expect` before a primary constructor on its own line
# (`class ByteString\ninternal actual constructor(`) fails the grammar for the whole
# class; the modifier changes nothing codegold reads, so it becomes blanks.
_KOTLIN_PLATFORM_CONSTRUCTOR = re.compile(
    rb"^(?P<lead>[ \t]*(?:(?:public|protected|internal|private|@[\w.]+(?:\([^)\n]*\))?)"
    rb"[ \t]+)*)(?P<platform>actual|expect)"
    rb"(?=[ \t]+(?:(?:public|protected|internal|private)[ \t]+)*constructor\b)",
    re.MULTILINE)


# An annotation on a property accessor (`val size\n  @JvmName("size")\n  get() = ...`)
# fails the grammar when the property has no type; it names nothing, so it becomes blanks.
_KOTLIN_ACCESSOR_ANNOTATION = re.compile(
    rb"@[\w.:]++(?:\([^()\n]*+\))?+(?=\s*+(?:(?:public|protected|internal|private)\s++)?+"
    rb"(?:get|set)\s*+\()")


# Annotations on the line of a top-level class (`@Retention(RUNTIME) annotation class
# FromJson`, `@A @B(x) class C`) are read by the grammar as an annotated expression, so the
# class is lost; they name nothing, so they become blanks.
_KOTLIN_CLASS_LINE_ANNOTATIONS = re.compile(
    rb"(?m)^[ \t]*+(?P<annotations>(?:@[\w.:]++(?:\((?:[^()\n]|\([^()\n]*+\))*+\))?+[ \t]++)++)"
    rb"(?=(?:(?:public|protected|internal|private|abstract|open|final|sealed|data|inner|enum"
    rb"|annotation|value|expect|actual|fun)[ \t]++)*+(?:class|interface|object)\b)")


# A nested class whose primary constructor starts the next line (`class Options\n
# private constructor(`) ends at the line break in the grammar (the constructor becomes
# its container's, or an error that loses the whole file). The line break moves to just
# before the constructor's `(`: the class name and everything from the `(` on keep their
# rows and byte offsets.
_KOTLIN_CONSTRUCTOR_LINE = re.compile(
    rb"(?m)^(?P<head>[ \t]*(?:(?:public|protected|internal|private|open|abstract|final|sealed"
    rb"|data|inner|enum|value|expect|actual|@[\w.]+(?:\([^()\n]*\))?)[ \t]+)*class[ \t]+"
    rb"\w+[ \t]*(?:<(?:[^<>\n]|<[^<>\n]*>)*>)?)"
    rb"(?P<gap>[ \t]*\n[ \t]+)(?P<constructor>(?:(?:public|protected|internal|private|actual"
    rb"|expect|@[\w.]+(?:\([^()\n]*\))?)[ \t]+)*constructor)(?=[ \t]*\()")


# Kotlin 2.2's multi-dollar string prefix (`$$"{\"$foo\": 1}"`) is unknown to the grammar,
# which then loses the rest of the class; the prefix becomes blanks (a plain string).
_KOTLIN_MULTI_DOLLAR = re.compile(rb"\$\$++(?=\")")


# A call to a function named like a modifier at a statement's start (`{ open(place) }`),
# a lambda parameter so named (`{ override, b -> }`) and a local named `get` or `set` at a line's start (`set += x`, after `val set = ...`
# reads as the property's setter) fail the grammar; such a name is spelled as another
# identifier of the same length.
_KOTLIN_MODIFIER_CALL = re.compile(
    rb"(?m)(?:^|[{;]|->)[ \t]*+(open|override|abstract|final|sealed|internal|private|public"
    rb"|protected|inline|suspend|infix|lateinit|external|tailrec|vararg)(?=\(|[ \t]*+(?:,[^\n{}]*?)?->)")
_KOTLIN_ACCESSOR_NAMED_LOCAL = re.compile(
    rb"(?m)^[ \t]*+(get|set)(?=[ \t]*+(?:[-+*/%]?=(?!=)|\.|\?\.|\[|!!|\+\+|--))")


def _respell(match: re.Match[bytes]) -> bytes:
    """``match`` with group 1 (a keyword) spelled as an identifier of the same length."""
    start, end = match.span(1)
    offset = match.start(0)
    text = match.group(0)
    return text[:start - offset] + match.group(1)[:-1] + b"_" + text[end - offset:]


# The `annotation` modifier (`@Qualifier\nannotation class Name`) makes the grammar read
# the annotations above it, and a class annotated at the top level around it, as an
# expression: the classes are lost. It changes nothing codegold reads, so it becomes blanks.
_KOTLIN_ANNOTATION_MODIFIER = re.compile(rb"\bannotation(?=[ \t]++class\b)")


def _constructor_on_class_line(match: re.Match[bytes]) -> bytes:
    gap = match.group("gap")
    return (match.group("head") + b" " + match.group("constructor") + b"\n"
            + b" " * (len(gap) - 2))


def _prepare_kotlin(data: bytes) -> bytes:
    source = _KOTLIN_PLATFORM_CONSTRUCTOR.sub(lambda m: _blank(m, "platform"), data)
    source = _KOTLIN_ANNOTATION_MODIFIER.sub(_blank, source)
    source = _KOTLIN_CLASS_LINE_ANNOTATIONS.sub(lambda m: _blank(m, 1), source)
    source = _KOTLIN_CONSTRUCTOR_LINE.sub(_constructor_on_class_line, source)
    source = _KOTLIN_MULTI_DOLLAR.sub(_blank, source)
    source = _KOTLIN_MODIFIER_CALL.sub(_respell, source)
    source = _KOTLIN_ACCESSOR_NAMED_LOCAL.sub(_respell, source)
    return _KOTLIN_ACCESSOR_ANNOTATION.sub(_blank, source)


# TypeScript without semicolons: a generic call signature on its own line (`<T>(x: T): T`
# after `(x: number): [B]` in an interface or type literal) is read by the grammar as type
# arguments of the member before it, and the rest of the file becomes one syntax error.
# The blank before its `<` becomes the `;` the compiler infers, when the code line above
# ends a type (a name, `)`, `]`, `>` or `}`; not `=>`). TSX is left alone (JSX lines
# start with `<`).
_LINE_OPENING_ANGLE = re.compile(rb"(?m)^[ \t]*[ \t]<(?=[\w\s])")
_ENDS_A_TYPE = re.compile(rb"(?:[\w)\]}]|(?<!=)>)$")


def _prepare_typescript(data: bytes) -> bytes:
    if b"\n" not in data or not _LINE_OPENING_ANGLE.search(data):
        return data
    out = bytearray(data)
    for match in _LINE_OPENING_ANGLE.finditer(data):
        end = match.start()  # the start of the `<` line: look above it
        while end > 0:
            start = data.rfind(b"\n", 0, end - 1) + 1
            line = data[start:end - 1].strip()
            if line and not line.startswith((b"//", b"/*", b"*")):
                if _ENDS_A_TYPE.search(line):
                    out[match.end() - 2] = ord(";")
                break
            end = start
    return bytes(out)


_C_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
# `assignment_expression`: a chained assignment (`req.get = req.header = function ...`)
# defines what its inner assignment defines.
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

_JS_WRAPPERS = frozenset({"export_statement", "expression_statement", "ambient_declaration",
                          "assignment_expression"})
_JS_ATTACHED = frozenset({"comment", "decorator", "html_comment"})
_JS_TESTS = r"^(test|it|describe)"
_JS_FLATTEN = frozenset({"statement_block", "else_clause", "catch_clause", "finally_clause"})

LANGUAGES: dict[str, LanguageSpec] = {
    "python": LanguageSpec("tree_sitter_python", "language", "python", ("python",),
                           frozenset({"decorated_definition", "expression_statement"}),
                           frozenset({"comment", "decorator"}), r"^(test|Test)",
                           flatten=frozenset({"block", "elif_clause", "else_clause",
                                              "except_clause", "except_group_clause",
                                              "finally_clause"})),
    "javascript": LanguageSpec("tree_sitter_javascript", "language", "javascript",
                               ("ecmascript", "javascript"), _JS_WRAPPERS, _JS_ATTACHED, _JS_TESTS,
                               flatten=_JS_FLATTEN),
    "typescript": LanguageSpec("tree_sitter_typescript", "language_typescript", "javascript",
                               ("ecmascript", "typescript"), _JS_WRAPPERS, _JS_ATTACHED,
                               _JS_TESTS, flatten=_JS_FLATTEN, prepare=_prepare_typescript),
    "tsx": LanguageSpec("tree_sitter_typescript", "language_tsx", "javascript",
                        ("ecmascript", "typescript"), _JS_WRAPPERS, _JS_ATTACHED, _JS_TESTS,
                        flatten=_JS_FLATTEN),
    "go": LanguageSpec("tree_sitter_go", "language", "go", ("go",),
                       frozenset({"type_declaration", "field_declaration"}),
                       # `testRoute(t, ...)` helpers in a _test.go file test too.
                       _C_COMMENTS, r"^(Test|Benchmark|Example|Fuzz|test)"),
    "java": LanguageSpec("tree_sitter_java", "language", "java", ("java",), frozenset(),
                         _C_COMMENTS, r"^test|Test$|^Test"),
    "rust": LanguageSpec("tree_sitter_rust", "language", "rust", ("rust",), frozenset(),
                         frozenset({*_C_COMMENTS, "attribute_item", "inner_attribute_item"}),
                         r"^test_", r"^#\[(([A-Za-z_]+::)*test(\(.*\))?|cfg\(test\))\]$"),
    # A call wraps the definition it is given (`private def x`, `memoize def x`) and the
    # block of a call it is given or called on (`use(Class.new do def call ... end)`,
    # `Struct.new(:a) do ... end.new`), and an assignment the block it assigns.
    "ruby": LanguageSpec("tree_sitter_ruby", "language", "ruby", ("ruby",),
                         frozenset({"if_modifier", "unless_modifier", "call", "argument_list",
                                    "assignment"}),
                         frozenset({"comment"}), r"^test_|^Test|Test$"),
    "csharp": LanguageSpec("tree_sitter_c_sharp", "language", "csharp", ("csharp",),
                           frozenset(), frozenset({"comment", "attribute_list"}),
                           r"^Test|Tests?$", _CSHARP_TEST_ATTRIBUTES,
                           prepare=_prepare_csharp),
    # `field_declaration`, `declaration`: a struct defined where a member or a variable is
    # declared (`union u { struct inner {...} x; }`, `static struct s {...} v;`).
    "c": LanguageSpec("tree_sitter_c", "language", "c", ("c",),
                      frozenset({"type_definition", "field_declaration", "declaration"}),
                      _C_COMMENTS,
                      r"^test_?|_test$|^Test", prepare=_prepare_c_source),
    "cpp": LanguageSpec("tree_sitter_cpp", "language", "cpp", ("cpp", "c"),
                        # `field_declaration`: a class's `struct data {...};` member.
                        frozenset({"template_declaration", "type_definition",
                                   "friend_declaration", "linkage_specification",
                                   "field_declaration"}),
                        _C_COMMENTS,
                        r"^test_?|_test$|^Test", prepare=_prepare_c),
    "php": LanguageSpec("tree_sitter_php", "language_php", "php", ("php",), frozenset(),
                        frozenset({"comment", "attribute_list"}), r"^test|Test$",
                        # `/** @test */`; `#[Test]`, also in a list or among groups
                        # (`#[Group('x'), Test]`, `#[DataProvider('p')]\n#[Test]`).
                        r"^(/\*\*.*@test\b|#\[.*?(?<![\w'\"\\])(\\?PHPUnit\\Framework\\"
                        r"Attributes\\)?Test\s*[\](,])",
                        flatten=frozenset({"compound_statement", "colon_block", "else_clause",
                                           "else_if_clause"})),
    "kotlin": LanguageSpec("tree_sitter_kotlin", "language", "kotlin", ("kotlin",), frozenset(),
                           # An annotation with arguments on its own line above a
                           # top-level function parses as an annotated expression.
                           frozenset({"line_comment", "block_comment", "annotated_expression"}),
                           r"^test|Tests?$", prepare=_prepare_kotlin),
}

STRUCTURAL_LANGUAGES: frozenset[str] = frozenset(LANGUAGES)


def family(language: str) -> str:
    """The family whose call-site query a language uses (TS/TSX use JavaScript's)."""
    return LANGUAGES[language].family


@cache
def test_name_pattern(language: str) -> re.Pattern[str] | None:
    pattern = LANGUAGES[language].test_names
    return re.compile(pattern) if pattern else None


@cache
def test_marker_pattern(language: str) -> re.Pattern[str] | None:
    pattern = LANGUAGES[language].test_markers
    return re.compile(pattern, re.DOTALL) if pattern else None


@cache
def ts_language(language: str) -> Language:
    spec = LANGUAGES[language]
    module: Any = importlib.import_module(spec.module)
    return Language(getattr(module, spec.loader)())


_local = threading.local()


def parser(language: str) -> Parser:
    """This thread's parser for ``language`` (a Parser must not be shared by threads)."""
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    found = parsers.get(language)
    if found is None:
        found = parsers[language] = Parser(ts_language(language))
    return found


def parse_source(language: str, data: bytes) -> bytes:
    """The bytes tree-sitter parses for ``data``: ``data`` itself, or what the language's
    ``prepare`` makes of it (rows and byte offsets stay those of ``data``)."""
    prepare = LANGUAGES[language].prepare
    return data if prepare is None else prepare(data)


def _query_text(name: str) -> str:
    return resources.files("codegold.index").joinpath(f"queries/{name}").read_text(
        encoding="utf-8")


@cache
def calls_query(language: str) -> Query:
    return Query(ts_language(language), _query_text(f"{family(language)}.scm"))


# Definitions, calls and syntax errors sit within a few dozen levels of the root in real
# code; a query cursor that may start matching at any depth spends super-linear time on
# pathological trees (a 400 KB one-line expression took minutes). Matches never start
# deeper than this.
MAX_QUERY_START_DEPTH = 128


def query_cursor(query: Query) -> QueryCursor:
    """A cursor for ``query`` that starts matches at most :data:`MAX_QUERY_START_DEPTH` deep."""
    cursor = QueryCursor(query)
    cursor.set_max_start_depth(MAX_QUERY_START_DEPTH)
    return cursor


@cache
def tags_query(language: str) -> Query:
    """Definitions: ``@definition.<kind>`` / ``@declaration.<kind>`` with ``@name``."""
    source = "\n".join(_query_text(f"{name}.tags.scm") for name in LANGUAGES[language].tags)
    return Query(ts_language(language), source)

