"""C and C++: macros the grammars cannot read (attribute and calling-convention macros,
lone macro lines and statements, test macros), rewritten without moving a row or offset."""

from __future__ import annotations

import re

from codegold.index.languages._rewrite import blank as _blank
from codegold.index.languages._rewrite import first_branch_only as _first_branch_only
from codegold.index.languages.spec import LanguageSpec

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
# as an array's initializer (``names[] SPDLOG_LEVEL_NAMES;``),
# and a macro call in a template parameter list (``template <typename T,
# FMT_ENABLE_IF(...)>``). Not a macro but as fatal: ``unsigned(x)``, a cast the grammar
# cannot read, loses its ``unsigned`` (``(x)`` is the same expression to a reader).
_MACRO = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\((?:[^()\n]|\([^()\n]*\))*\))?"
_WHOLE_MACRO = rb"[A-Z][A-Z0-9]*+_[A-Z0-9_]*+(?:\((?:[^()\n]|\([^()\n]*+\))*+\))?+"
_MACRO_RUN = 8
_DECLARATION_START = (rb"(?m)(?:^[ \t]*|\b(?:template|static|inline|constexpr|consteval|"
                      rb"constinit|virtual|explicit|friend|extern|mutable)[ \t]+|"
                      rb"\btemplate[ \t]*<[^;{}\n]{0,200}>[ \t]+)")
_ATTRIBUTE_MACROS = (
    re.compile(_DECLARATION_START + rb"((?:" + _MACRO + rb"[ \t]+)+)(?=[A-Za-z_~])"),
    re.compile(rb"\b(?:class|struct|union)[ \t]+((?:" + _MACRO + rb"[ \t]+)+)(?=[A-Za-z_]|\[\[)"),
    re.compile(rb"\bif[ \t]+(" + _MACRO + rb")[ \t]*(?=\()"),
    # Not a macro at the start of a line: a definition's header (``// Tests f()`` above
    # ``TEST_F(Suite, Name) {``).
    # At most _MACRO_RUN macros, each taken whole (possessive): a `)` starts a try, and a
    # macro's own arguments hold one, so a line of `A_B(x) A_B(x) ...` tried the rest of
    # the line from each (and every way of splitting it): 72 s for 35 kB.
    re.compile(rb"\)(?:\s*(?:const|noexcept|override|final)\b)*((?:\s*+(?<!\n)" + _WHOLE_MACRO
               + rb"){1,%d}+)\s*(?=\{)" % _MACRO_RUN),
    re.compile(rb"\)(?:\s*(?:const|noexcept|override|final)\b)+((?:\s*+(?<!\n)" + _WHOLE_MACRO
               + rb"){1,%d}+)\s*(?=;)" % _MACRO_RUN),
    re.compile(rb"(?m)^[ \t]*([A-Z][A-Z0-9]*_[A-Z0-9_]*)[ \t]*(?=(?:\r?\n[ \t]*)?\{)"),
    re.compile(rb"(?<=\w)([ \t]+[A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]*[),])"),
    # An array whose initializer is a macro (``static const char *names[] LEVEL_NAMES;``).
    re.compile(rb"(?<=\])([ \t]+[A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]*;)"),
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
# C: an upper-case type name right before a declared name (flex's ``YY_BUFFER_STATE
# yy_scan_buffer (...)``, Unity's ``UNITY_INTERNAL_PTR UnityNumToPtr(...)`` and
# ``UNITY_INT8 p0[] = {...};``, a typedef or a macro ``#define``d to a type) is its type:
# blanked as an attribute macro, it leaves a declaration without a type, which C cannot
# parse (a function's body so broken swallows the functions after it). Kept; were it an
# attribute after all, the declaration still parses with its own name.
_C_TYPE_NAME = re.compile(rb"(?<!\w)[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]+$")
# A declared name after a type: a function's (``f(``) or a variable's (``p0[] =``, ``n;``).
_NAME_AND_PARAMETERS = re.compile(rb"[A-Za-z_]\w*[ \t]*[(\[=;,]")
# A calling-convention or attribute macro between a return type and the function's name
# (``int CJSON_CDECL main(void)``, ``DWORD WINAPI worker(void* arg)``, a qualified one's
# ``void SPDLOG_INLINE ns::sink<M>::log(...)``, the name on the next line): read as the name,
# it leaves the real name a syntax error. Blanked in C and C++.
_CALLING_CONVENTION = re.compile(
    rb"(?<=[\w*][ \t])([A-Z][A-Z0-9]*_[A-Z0-9_]*|WINAPI|CALLBACK|APIENTRY|WSAAPI|NTAPI)"
    rb"(?=(?:[ \t]+|[ \t]*\r?\n[ \t]*)(?:[A-Za-z_]\w*(?:<[^<>;{}()\n]*>)?::)*~?[A-Za-z_]\w*"
    rb"[ \t]*\()")
# C: a C++ linkage block opened or closed under ``#ifdef __cplusplus`` (``extern "C" {``
# or its ``}``) is no C; the C grammar cannot close it, so the conditional becomes blank.
_CPLUSPLUS_LINKAGE = re.compile(
    rb"(?m)^[ \t]*#[ \t]*if(?:def[ \t]+__cplusplus|[ \t]+defined[ \t]*\(?[ \t]*__cplusplus[ \t]*\)?)"
    rb"[ \t]*(?://[^\n]*|/\*[^\n]*\*/[ \t]*)?\r?\n"
    rb"[ \t]*(?:extern[ \t]+\"C\"[ \t]*\{|\})[^\n]*\n[ \t]*#[ \t]*endif\b[^\n]*")



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
    source = _first_branch_only(source, alternatives_only=True, inside_blocks=True)
    return source if source.endswith(b"\n") else source + b"\n"


def _blank_attributes_not_types(match: re.Match[bytes]) -> bytes:
    """A run of attribute macros blanked, but for a last one that wraps or is the type of
    the function or variable named next (``_C_TYPE_MACRO``, ``_C_TYPE_NAME``)."""
    start, end = match.span(1)
    kept = (_C_TYPE_MACRO.search(match.string, start, end)
            or _C_TYPE_NAME.search(match.string, start, end))
    if kept is not None and _NAME_AND_PARAMETERS.match(match.string, end):
        end = kept.start()
    text = match.group(0)
    offset = match.start(0)
    return (text[:start - offset] + re.sub(rb"[^\n]", b" ", text[start - offset:end - offset])
            + text[end - offset:])


# Specifiers that come before a return type, never after one: a macro behind only these
# (``static UNITY_INTERNAL_PTR UnityNumToPtr(...)``) is the type, not a calling convention.
_BEFORE_A_TYPE = re.compile(rb"[ \t]*(?:(?:static|inline|__inline|__inline__|extern|const)"
                            rb"[ \t]+)+")


def _blank_calling_convention(match: re.Match[bytes]) -> bytes:
    """``_CALLING_CONVENTION`` blanked, but not in a directive (``#define X_PUSH
    _Pragma("...")`` defines the macro) nor where it is the return type (``_BEFORE_A_TYPE``)."""
    line_start = match.string.rfind(b"\n", max(0, match.start() - 200), match.start()) + 1
    before = match.string[line_start:match.start()]
    if before.lstrip().startswith(b"#") or _BEFORE_A_TYPE.fullmatch(before):
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


C_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_TESTS = r"^test_?|_test$|^Test"

SPECS = (
    # `field_declaration`, `declaration`: a struct defined where a member or a variable is
    # declared (`union u { struct inner {...} x; }`, `static struct s {...} v;`).
    LanguageSpec(name="c", module="tree_sitter_c", loader="language", family="c", tags=("c",),
                 wrappers=frozenset({"type_definition", "field_declaration", "declaration"}),
                 attached=C_COMMENTS, test_names=_TESTS, prepare=_prepare_c_source),
    LanguageSpec(name="cpp", module="tree_sitter_cpp", loader="language", family="cpp",
                 tags=("cpp", "c"),
                 # `field_declaration`: a class's `struct data {...};` member.
                 wrappers=frozenset({"template_declaration", "type_definition",
                                     "friend_declaration", "linkage_specification",
                                     "field_declaration"}),
                 attached=C_COMMENTS, test_names=_TESTS, prepare=_prepare_c,
                 names_with_parameters=frozenset({"operator_cast"})),
)
