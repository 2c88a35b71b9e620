"""What is counted: the ctags kinds that are definitions, the tags left out, how a name
compares, what a reader would call a test and a comment-only chunk, and the files walked."""

from __future__ import annotations

import os
import re
from pathlib import Path

from codegold.index.languages import LANGUAGES, STRUCTURAL_LANGUAGES
from codegold.model.languages import language_of

# ctags kinds that are definitions codegold promises to find.
DEFINITION_KINDS = frozenset({
    "function", "method", "class", "interface", "struct", "union", "enum", "trait", "macro",
    "typedef", "type", "alias", "module", "namespace", "singletonMethod", "annotation",
    "generator", "getter", "setter", "implementation", "record", "func", "methodSpec",
    "interfaceMethod", "constructor", "prototype",
})
# Per language: kinds that are not definitions there. Python's `namespace` tags are
# import aliases (`import typing as t`); C/C++ `member`s are struct fields; PHP `alias`es
# are `use` imports and its `namespace`s are statements that qualify what follows; Ruby
# `alias`es give an existing method a second name.
SKIP = frozenset({("Python", "namespace"), ("C", "member"), ("C++", "member"),
                  ("PHP", "alias"), ("PHP", "namespace"), ("Ruby", "alias")})
# Per language: kinds that are functions there beyond CALLABLE_KINDS. Python's methods
# are ctags `member`s (its class attributes are `variable`s): a class inside a method
# (`class Meta:` of a schema a test defines) is nested in a function body.
LANGUAGE_CALLABLE_KINDS = frozenset({("Python", "member")})
SKIP_NAMES = frozenset({"<lambda>"})
# Names ctags makes up for anonymous functions, classes and structs.
ANONYMOUS = re.compile(r"^(Anonymous(Function|Class|Object)[0-9a-f]+|__anon[0-9a-f]+)$")
# Reserved words: a tag so named is ctags misreading a statement (`if (...) {`).
RESERVED = frozenset({"if", "for", "while", "switch", "typeof", "instanceof", "sizeof", "true",
                       "false"})
WHITESPACE = re.compile(r"\s+")
# A backtick-quoted Kotlin name after its keyword (fun `a test`()).
BACKTICKED = re.compile(r"\b(?:fun|class|interface|object|val|var)\b[^`]*`([^`]+)`")
BACKTICK = re.compile(r"`([^`\n]+)`")


def plain_identifier(name: str) -> str:
    """A backtick-quoted name spelled as a plain identifier (``a test`` as ``a_test``)."""
    plain = re.sub(r"\W", "_", name)
    return plain if plain[:1].isalpha() or plain[:1] == "_" else f"_{plain}"
# An upper-case macro called at the top level (`FMT_TYPE_CONSTANT(int, int_type);`) is
# read by ctags as a prototype or function named after the macro: it declares no such
# function.
MACRO_NAME = re.compile(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]*$")
# Tags whose scope is one of these kinds are nested inside a function body.
CALLABLE_KINDS = frozenset({"function", "method", "singletonMethod", "generator", "getter",
                            "setter", "constructor", "func"})
# File-scope tags (``"file": true``) count only where they are real definitions (C's
# `static` functions); elsewhere they are locals (a class inside a function).
FILE_SCOPE_LANGUAGES = frozenset({"c", "cpp"})
# codegold kinds that hold members (their opening and closing lines frame a member read
# alone).
CONTAINER_KINDS = frozenset({"class", "interface", "module", "object", "trait", "impl"})
CODEGOLD_KINDS = frozenset({"function", "method", "class", "interface", "type", "module",
                            "macro", "object", "trait", "impl", "field"})
SKIP_DIRS = frozenset({".git", "node_modules", "vendor", "dist", "build", "__pycache__"})
LINE_TOLERANCE = 2
# gtest's test macros: ctags names a `TEST(Suite, Name) {...}` after the macro (`TEST`);
# codegold names the test `Suite.Name`. Such a tag is compared by line with a definition
# of role test.
GTEST_MACROS = frozenset({"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P"})
# The languages of codegold's JavaScript grammar family (JavaScript, TypeScript, TSX).
ECMASCRIPT = frozenset(name for name, spec in LANGUAGES.items() if spec.family == "javascript")
FUNCTION_NODES = frozenset({"function_declaration", "function_expression", "function",
                             "arrow_function", "method_definition", "generator_function",
                             "generator_function_declaration"})


# Independent of codegold's own rules: what a reader would call a test.
_TEST_PATH = re.compile(r"(^|/)(tests?|spec|__tests__)/|(^|/)test_|_test\.|Tests?\.|\.(test|spec)\.")
_TEST_NAME = re.compile(r"^(test|Test)")
_TEST_MARKER = re.compile(
    r"@(Test|ParameterizedTest|RepeatedTest)\b|#\[(\w+::)*test\]|\[(Test|Fact|Theory|TestMethod)"
    r"\b|@test\b|^\s*(TYPED_)?TEST(_F|_P)?\(")
# Vendored code kept inside a test folder (``tests/thirdparty/doctest/doctest.h``, a test
# framework whose ``test_case_start`` reports on tests): not the repository's own tests.
_THIRD_PARTY = re.compile(r"(^|/)(vendor|vendored|third_party|third-party|thirdparty)/")
# Line prefixes of comments and attributes; a chunk made only of these defines nothing.
_COMMENT_PREFIXES: dict[str, tuple[str, ...]] = {
    "python": ("#",), "ruby": ("#", "=begin", "=end"),
    "rust": ("//", "/*", "*", "#[", "#!["), "php": ("//", "/*", "*", "#"),
    "java": ("//", "/*", "*", "@"), "kotlin": ("//", "/*", "*", "@"),
    "csharp": ("//", "/*", "*", "["),
}
_C_LIKE = ("//", "/*", "*")
# The prefixes above that open annotations or attributes: a row holding code after them
# (``@Throws(E::class) fun f()``, ``[Fact] public void F()``) is code.
_ATTRIBUTE_PREFIXES: dict[str, tuple[str, ...]] = {
    "rust": ("#[",), "php": ("#[",), "java": ("@",), "kotlin": ("@",), "csharp": ("[",)}


def compared(name: str) -> str:
    """A name as compared with ctags': without whitespace (ctags writes ``operator ==``),
    and a JavaScript private member without its ``#`` (``#parse``; ctags writes
    ``parse``, codegold keeps the ``#`` as the language spells the name)."""
    return WHITESPACE.sub("", name).lstrip("#") or name


def test_looking(lines: list[str], rel: str, name: str, header: int, start: int) -> bool:
    if _THIRD_PARTY.search(rel):
        return False
    if _TEST_PATH.search(rel) and _TEST_NAME.match(name):
        return True
    return any(_TEST_MARKER.search(lines[i]) for i in range(max(start - 1, header - 4),
                                                              min(header, len(lines))))


def _after_attributes(row: str) -> str:
    """What follows the annotations or attributes a row opens with (``@Throws(E::class)
    fun f()`` holds a declaration after them; ``[Fact] public void F()`` too); "" when
    one goes on past the row."""
    rest = row
    while rest.startswith(("@", "[", "#[")):
        i = 0
        if rest.startswith("@"):
            i = 1
            while i < len(rest) and (rest[i].isalnum() or rest[i] in "_.:"):
                i += 1
            if rest[i:i + 1] != "(":
                rest = rest[i:].lstrip()
                continue
        elif rest.startswith("#"):
            i = 1
        depth, quoted, j = 0, False, i
        while j < len(rest):
            char = rest[j]
            if quoted:
                j += char == "\\"
                quoted = char != '"'
            elif char == '"':
                quoted = True
            elif char in "([":
                depth += 1
            elif char in ")]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        else:
            return ""
        rest = rest[j + 1:].lstrip()
    return rest


def comment_only(text: str, language: str) -> bool:
    prefixes = _COMMENT_PREFIXES.get(language, _C_LIKE)
    attributes = _ATTRIBUTE_PREFIXES.get(language, ())
    rows = [line.strip() for line in text.splitlines() if line.strip()]
    return bool(rows) and all(
        row.startswith(prefixes) and (not row.startswith(attributes)
                                      or not _after_attributes(row).lstrip()
                                      or _after_attributes(row).startswith(_C_LIKE))
        for row in rows)


def measured_files(root: Path, language: str | None) -> list[Path]:
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            lang = language_of(name)
            if lang in STRUCTURAL_LANGUAGES and (language is None or lang == language):
                found.append(Path(folder) / name)
    return found

