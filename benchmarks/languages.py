"""Definition recall and precision of codegold's structural chunker against Universal Ctags.

Walks the files of a local directory (a checkout; nothing is fetched), chunks each file
of a structural language with ``chunk_file``, runs ``ctags`` on the same file, and
compares definitions as (file, short name, line). The measure:

- a ctags definition tag at line L is *found* when codegold records a definition with the
  same short name whose header line is within 2 lines of L (``--span``: or whose span
  contains L); recall is found / counted tags;
- a codegold definition is *confirmed* when ctags tags the same name within 2 lines of its
  header line with any kind at all (a variable, a property, a nested function too): the
  name is really defined there; precision is confirmed / codegold definitions.

Counted tags are definitions of code and types: functions, methods, classes, interfaces,
structs, unions, enums, typedefs and type aliases, namespaces and modules, macros, and
C/C++ prototypes (``--kinds-C=+p``: a signature is a ``declaration`` symbol, as interface
and abstract method signatures are). Left out, on principle and for every language:

- data, not code: variables, constants, fields and struct members, properties, enum
  members (ctags kinds ``variable``, ``constant``, ``field``, ``member``, ``property``,
  ``enumerator``, ``accessor`` ...);
- object literals holding no function (JavaScript and TypeScript ``var users = { tj:
  { name: 'tj' } }``, which ctags tags as classes ``users`` and ``tj``): data, found by
  the syntax tree as function bodies are;
- the CommonJS export object itself: ctags tags ``module.exports = {...}`` and
  ``module.exports = class Application {...}`` as a class named ``exports`` (scope
  ``module``) beside the class's own name and the members; what it holds are the
  definitions, and codegold names a class expression by its own name;
- definitions nested inside a function body: a tag whose scope (or any scope above it)
  is a function or method, or whose line lies inside a function's lines (ctags' ``end``;
  for JavaScript and TypeScript, where ctags records no end, the function bodies of the
  syntax tree; for C and C++, the blocks of the syntax tree that follow a macro call at
  file or namespace level, doctest's and Catch2's ``TEST_CASE("name") {...}``, bodies
  ctags does not read as functions, so it tags the calls in them, ``CHECK(x == 1);``,
  ``v.push_back(1);``, as prototypes);
- names ctags makes up for anonymous functions, classes and structs (``extras``
  ``anonymous``, ``AnonymousFunction1a2b``, ``__anon1a2b``, Kotlin's ``<lambda>``) and
  statement keywords and literals as names (``if``, ``instanceof``: ctags misreading a
  statement; ``true`` from a TypeScript conditional type ``T extends true ? (x: A) => B``),
  and upper-case macro calls ctags reads as functions or prototypes
  (``FMT_TYPE_CONSTANT(int, int_type);`` declares no function of that name);
- imports and aliases: names bound by an ``import`` or re-exported by ``export ... from``
  (``import { type X }`` defines nothing), Ruby ``alias``/``alias_method``, PHP ``use``,
  Python ``import x as y`` (ctags ``namespace``), PHP ``namespace`` statements (they
  qualify what follows and define nothing of their own);
- local (file-scope) tags other than C/C++ ``static`` functions;
- files no ctags parser reads (TSX, ``.mts``, ``.cts``): nothing to compare with.

ctags reads a file as one stream and can lose its place for the rest of it: a
preprocessor branch it does not follow (C# ``#if ... #else`` around a base list), syntax
its parser does not know (a TypeScript ``as const``, a C# ``where`` constraint or ``T[]?``),
a top-level function after a call whose arguments are functions (mocha's ``describe``).
So a codegold definition ctags does not confirm in the whole file is read a second time:
ctags reads that definition's own lines inside its containers' opening lines (up to the
``{``, when one comes before a blank line) and closing lines, every other line blank
(same file extension, same line numbers), and a tag of the same name within 2 lines of
its header line confirms it (a PHP file keeps its ``<?php`` line: ctags reads no PHP
code before it). The second reading gives ctags no context it lacked: a data
member, a local or a re-assignment reads the same there as in the whole file. The report
gives how many were confirmed only so (``second reading``). ctags's TypeScript parser reads
no object literal: it tags ``export const api = { get() {...}, put: () => 1 }`` as a
constant ``api`` and nothing inside it, where its JavaScript parser tags the members. So
a TypeScript definition inside an object literal of the syntax tree is also read the
second time by ctags's JavaScript parser (``--language-force=JavaScript``), on the same
lines with their types erased (type annotations, type parameters and type arguments
blanked: ``const f: Record<string, () => T> = {`` reads ``const f = {``). Its TypeScript
parser also loses its place on some types (a function type in a type parameter's
constraint, ``async #retry<T extends (...a: any) => Promise<any>>(f: T)``, makes it name
the method ``Promise``), so any TypeScript definition is also read by it so erased. ctags 5.9
predates Go's type parameters (Go 1.18): it tags ``type Entry[K comparable, V any]
struct {...}`` as a plain ``type`` and none of its fields or its interface's methods, so
the second reading of a Go file blanks each type declaration's type parameter list
(``type Entry ... struct {``).

Universal Ctags 5.9 (Debian's) has a JavaScript parser that tags nothing for some
plain ES5/ES2015 syntax: an arrow function assigned to a member (``a.b = (x) => {}``,
``exports.f = async () => {}``), a named function expression as an object member
(``{ req: function asReqValue () {} }``), a chained assignment (``req.get = req.header
= function``, also around a container: ``jQuery.fn = jQuery.prototype = {...}``) and a
property or method named by a word it reads as a keyword (``get``, ``set``, ``static``,
``default``, ``new``, ``async``, ``prototype`` ...: ``a.set = function``, ``{ get: function }``,
``class A { get (field) {} }``, ``function get (key) {}``; ctags warns "ignoring null tag"). A JavaScript definition
the second reading leaves unconfirmed is read once more, *rewritten*: the file as the
second reading gives it, with only that syntax changed on the same rows (the arrow
becomes ``function (x) {...}``, the function expression loses its own name, the outer
links of a chain become blanks, a keyword name gets a trailing ``_`` and is looked for
so). The rewrite never moves the name or changes what is assigned: ``x.get = 5``
rewritten is ``x.get_ = 5``, which ctags tags no more than before. The report counts
these (``rewritten``) and gives precision with plain ctags alone (``plain ctags``), the
whole file read once, for comparison with other tools.

Packed (minified) files, which codegold chunks as line windows that still name their
top-level definitions, are counted apart (``packed files``): on a line holding the
whole program, ctags' line numbers cannot tell a nested function from a top-level one.

Two JavaScript misreadings are left out of the counted tags: an assignment of an existing
name (``init.prototype = jQuery.fn``, ``Reply.prototype.status = Reply.prototype.code``),
which ctags tags as a class or method and which defines nothing new (an alias, as
imports are); and a call statement ctags tags as a class named after the function called
(``test('x', t => {...})`` after a destructuring ``const { test } = require(...)``).

Universal Ctags 5.9 (Debian's) also has gaps in C# and Kotlin syntax that end a
definition's reading even alone: its C# parser knows neither a primary constructor
(``class PathMap(TypeMap map) : MemberMap(map)``, C# 12) nor ``record`` (C# 9), and reads
such a type as a method whose body it skips; it tags no method with a nullable parameter
(``object? value``, C# 8) or a ``where`` constraint. Its Kotlin parser names a
backtick-quoted definition (``fun `a test`()``, the usual JUnit name in Kotlin) with
unrelated bytes (often the file's path) or tags nothing. A tag on a Kotlin line whose name
that line does not hold, on a line holding a backtick-quoted name, takes that name. A C#
or Kotlin definition the second reading leaves unconfirmed is read once more,
*rewritten*: as the second reading gives it, with, in C#, the opening lines of the
definition and of its containers (up to their ``{`` or ``=>``) without a primary
constructor's parameter list, nullable marks and ``where`` constraints, a ``record``
spelled ``class`` (``struct`` for a record struct), and in Kotlin the definition's
backtick-quoted names spelled as plain identifiers (``a test`` as ``a_test``, looked for
so). Every rewrite keeps lines on their rows and never moves or changes a name other
than the quoted one. The report counts these (``rewritten``).

An overload set (a run of definitions of one name, each right after the previous one:
TypeScript's overload signatures and their implementation) is one definition to ctags,
tagged once: it is confirmed as a whole when one of it is. ctags names a member
assignment whose member is a word its JavaScript parser reserves after the object
(``res.get = function`` is a function ``res``): a tag named as the name just before a
definition's own name (``res`` of ``res.get``), on the definition's header line, pairs
with it. Names are compared without whitespace (ctags writes ``operator ==``), a
JavaScript private member without its ``#`` (ctags writes ``parse`` for ``#parse``), and a
namespace's dotted name by its last part (``Newtonsoft.Json``). One name differs by
design: ctags names gtest's ``TEST(Suite, Name) {...}`` after the macro (``TEST``),
codegold ``Suite.Name``; such a tag matches a definition of role test within 2 lines.

Three more figures per language: ``tests`` is the share of test-looking definitions
(a ``test*`` function or method in a test path, or one under a test marker such as
``@Test``, ``#[test]``, ``[Fact]``, ``/** @test */`` or gtest's ``TEST(``; not in a
vendored folder, ``third_party/``, ``thirdparty/``, ``vendor/``: a test framework kept
under ``tests/`` is no test) that codegold gives role ``test``; ``comment-only`` is the
share of chunks whose every line is a comment or an attribute (a chunk that defines
nothing; a line that goes on with code after its annotations, ``@Throws(E::class) fun
f()``, ``[Fact] public void F()``, is code); ``time`` is the seconds spent in
``chunk_file`` (parse, query, chunk), without ctags.

    python benchmarks/languages.py PATH                 # every structural language
    python benchmarks/languages.py PATH --language javascript --misses 20

Needs ``ctags`` (Universal Ctags, ``apt-get install universal-ctags``) on PATH. The
repositories and commits of the published table are in :data:`REPOSITORIES`.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tree_sitter import Node

from codegold.index import SymbolDef, chunk_file
from codegold.index.grammars import STRUCTURAL_LANGUAGES
from codegold.index.grammars import parser as ts_parser
from codegold.model.languages import language_of

# The table in docs/index.md: (language, repository[:folder measured], commit), each a
# plain checkout (the folder, when given, is the PATH argument).
REPOSITORIES = (
    ("javascript", "expressjs/express", "a3714473feb3d2908add734d340e7755fd85e0a3"),
    ("javascript", "koajs/koa", "e0ba8ef39d27fe5dae5492f9fe753d155124f994"),
    ("javascript", "axios/axios", "23a25af0688d1db2c396deb09229d2271cc24f6c"),
    ("javascript", "fastify/fastify", "83e69762aff047940b376fc2a266d143499ef727"),
    ("javascript", "jquery/jquery", "51eb576cca6ffce252dc152bf8e91d5230a0d887"),
    ("javascript", "mochajs/mocha", "e6b9ee773481fd739ae24caeb42f32ac0b010f95"),
    ("javascript", "moment/moment", "18aba135ab927ffe7f868ee09276979bed6993a6"),
    ("javascript", "nodejs/undici", "7eb7c8ec8f23acd9c3da93a286162f8c1dc68326"),
    ("typescript", "colinhacks/zod", "e516c3baf22615e20934116abebfed6c000222c2"),
    ("typescript", "sindresorhus/ky", "3419113b48e034fdcf8fa6bd3be3da7b3d0d758f"),
    ("typescript", "trpc/trpc", "340811ba5320637fbaf48fccf3dbfdd258bd34db"),
    ("typescript", "date-fns/date-fns", "dd66398305c2b015fba3c1b3d31ccff42ee8d4cf"),
    ("typescript", "honojs/hono", "28a9c128912de19f3fb28b00ae289c9b93f6f392"),
    ("python", "pallets/flask", "2ac89889f4cc330eabd50f295dcef02828522c69"),
    ("python", "pallets/click", "2c8cd3ac958a7eb316d67f2d316c27086c4c0369"),
    ("python", "encode/httpx", "ae1b9f66238f75ced3ced5e4485408435de10768"),
    ("python", "psf/requests", "1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e"),
    ("python", "Textualize/rich", "42899d8a0a96b121a514516f4be9db44ff7aeaf3"),
    ("python", "fastapi/fastapi", "c3f316b7e814667e8ee81e03a7330d00ee61e45c"),
    ("go", "spf13/cobra", "adbc8813901bba65827259daa8e22ff94ec1f30e"),
    ("go", "gin-gonic/gin", "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9"),
    ("go", "spf13/viper", "528f7416c4b56a4948673984b190bf8713f0c3c4"),
    ("go", "go-chi/chi", "735ae2b87f8c733d616e809ae86e0985c1bc3350"),
    ("go", "samber/lo", "f75f39097da911621c7fd629579563f1ebfcffd0"),
    ("go", "urfave/cli", "1305a08200f7c4d873e28bd2bbad1ff257c6cfc4"),
    ("java", "google/gson", "9835b6f90192f79cdf5300c528fc6212455fb6c1"),
    ("java", "square/javapoet", "b9017a9503b76e11b4ad4c1a9f050e2d29112cb0"),
    ("java", "junit-team/junit4", "71c33ce555230d9dfb6cab5e133e22a4cc95cdff"),
    ("kotlin", "square/okio", "4164f2976ac7174f3d35d52150e8ffbdbe0acbec"),
    ("kotlin", "square/moshi", "889013ec2edb8d8034902662a1dc8c4f3b3f8111"),
    ("kotlin", "square/leakcanary", "0f7dbab17e2a9f6f310f7b8be214e029bfc502e3"),
    ("kotlin", "JakeWharton/timber", "d226eb0391d6d32547dad7b2c77da84010d61aac"),
    ("csharp", "JamesNK/Newtonsoft.Json", "09bb545d72969ad7fb4ea07db0d5c34f4fc07877"),
    ("csharp", "serilog/serilog", "60935b4d7abad71cf6157b45a10f5c3c65ead527"),
    ("csharp", "AutoMapper/AutoMapper", "4b9633f60ee386cf0efc69b967e04fa28405cf3e"),
    ("c, cpp", "redis/hiredis", "29ea2791c102fdffff350f1ea6e04d1f71903d0d"),
    ("c", "DaveGamble/cJSON", "a29814f285cc531c00223743ad3c55cd38c0dc56"),
    ("c", "libuv/libuv:src", "6179e7af87413396d5853a1c3722c8b5749336c8"),
    ("cpp", "fmtlib/fmt", "60ccad511fd680cb91d8b60a315759f71c67bef9"),
    ("cpp", "nlohmann/json", "199dea11b17c533721b26249e2dcaee6ca1d51d3"),
    ("cpp", "google/googletest", "7260682388d493f155be62c3ce2efc7c7a9a3dcf"),
    ("rust", "BurntSushi/ripgrep", "3fce3b5bb0236da2df6d99672afb8a719642eca7"),
    ("rust", "tokio-rs/bytes", "d5c8ad3227afe459c09f1d0d85455abf00f0381a"),
    ("rust", "serde-rs/serde", "1023d077510b4aef36a41ef56fdb7798568a2654"),
    ("php", "slimphp/Slim", "038fd5713d5a41636fdff0e8dcceedecdd17fc17"),
    ("php", "guzzle/guzzle", "2779e868a00289e1b1fd854af030c43a06f4bcb4"),
    ("php", "symfony/console", "6b099f3306f7c9c2d2786ed736d0026b2903205f"),
    ("php", "thephpleague/flysystem", "072735c56cc0da00e10716dd90d5a7f7b40b36be"),
    ("php", "composer/composer", "eba7baa59eb1b59246cf9800b0120fe78915b6ac"),
    ("ruby", "sinatra/sinatra", "cb22afd7902b566b6eaba6c4ea89739494a65d12"),
    ("ruby", "rack/rack", "8bf4eb078498edc9105fb04add80d89c5340e60b"),
    ("ruby", "jekyll/jekyll", "202df571314ba1d18e9fccd81d12aaad4a703c38"),
    ("ruby", "rspec/rspec-core", "aec5f49485d97908183dbe790a7fefb8baaa8091"),
    ("ruby", "faker-ruby/faker", "9b0780388e6333ec2baaa75d5546c88d4fe05d81"),
    ("ruby", "heartcombo/devise", "7ca7ed9c174525a4d36167441b35af4a0991b6af"),
    ("ruby", "rails/rails:activesupport", "2a2db1e8d6d104ee0611efcae7eb023af65cff34"),
)

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
SKIP_NAMES = frozenset({"<lambda>"})
# Names ctags makes up for anonymous functions, classes and structs.
_ANONYMOUS = re.compile(r"^(Anonymous(Function|Class|Object)[0-9a-f]+|__anon[0-9a-f]+)$")
# Reserved words: a tag so named is ctags misreading a statement (`if (...) {`).
_RESERVED = frozenset({"if", "for", "while", "switch", "typeof", "instanceof", "sizeof", "true",
                       "false"})
_WHITESPACE = re.compile(r"\s+")
# A backtick-quoted Kotlin name after its keyword (fun `a test`()).
_BACKTICKED = re.compile(r"\b(?:fun|class|interface|object|val|var)\b[^`]*`([^`]+)`")
_BACKTICK = re.compile(r"`([^`\n]+)`")


def _identifier(name: str) -> str:
    """A backtick-quoted name spelled as a plain identifier (``a test`` as ``a_test``)."""
    plain = re.sub(r"\W", "_", name)
    return plain if plain[:1].isalpha() or plain[:1] == "_" else f"_{plain}"
# An upper-case macro called at the top level (`FMT_TYPE_CONSTANT(int, int_type);`) is
# read by ctags as a prototype or function named after the macro: it declares no such
# function.
_MACRO_NAME = re.compile(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]*$")
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
_ECMASCRIPT = frozenset({"javascript", "typescript", "tsx"})
_FUNCTION_NODES = frozenset({"function_declaration", "function_expression", "function",
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


def _compared(name: str) -> str:
    """A name as compared with ctags': without whitespace (ctags writes ``operator ==``),
    and a JavaScript private member without its ``#`` (``#parse``; ctags writes
    ``parse``, codegold keeps the ``#`` as the language spells the name)."""
    return _WHITESPACE.sub("", name).lstrip("#") or name


def _test_looking(lines: list[str], rel: str, name: str, header: int, start: int) -> bool:
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


def _comment_only(text: str, language: str) -> bool:
    prefixes = _COMMENT_PREFIXES.get(language, _C_LIKE)
    attributes = _ATTRIBUTE_PREFIXES.get(language, ())
    rows = [line.strip() for line in text.splitlines() if line.strip()]
    return bool(rows) and all(
        row.startswith(prefixes) and (not row.startswith(attributes)
                                      or not _after_attributes(row).lstrip()
                                      or _after_attributes(row).startswith(_C_LIKE))
        for row in rows)


def _files(root: Path, language: str | None) -> list[Path]:
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            lang = language_of(name)
            if lang in STRUCTURAL_LANGUAGES and (language is None or lang == language):
                found.append(Path(folder) / name)
    return found


def _blanked(text: bytes) -> bytes:
    """``text`` as spaces, its newlines kept (a rewrite never moves a row)."""
    return re.sub(rb"[^\n]", b" ", text)


def _holds_function(node: Node) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _FUNCTION_NODES:
            return True
        stack.extend(current.named_children)
    return False


def _function_rows(language: str, root: Node
                   ) -> tuple[list[tuple[int, int]], list[tuple[int, int]], set[int],
                                      set[tuple[str, int]]]:
    """JavaScript/TypeScript only (ctags records no end line there): the 1-based line
    ranges of function bodies, those of import and re-export statements, and the lines
    that open an object literal holding no function or assign an existing name (data
    and aliases ctags tags as classes or methods). C/C++: the blocks after macro calls."""
    if language in ("c", "cpp"):
        return _macro_bodies(root), [], set(), set()
    if language not in _ECMASCRIPT:
        return [], [], set(), set()
    bodies: list[tuple[int, int]] = []
    imports: list[tuple[int, int]] = []
    data_rows: set[int] = set()
    alias_rows: set[tuple[str, int]] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        left = node.child_by_field_name("left") if node.type == "assignment_expression" else None
        if left is not None and (node.child_by_field_name("right") or node).type in (
                "identifier", "member_expression"):
            # an alias, `init.prototype = jQuery.fn`: the names ctags may give it
            for part in re.split(r"\W+", (left.text or b"").decode("utf-8", "replace")):
                alias_rows.add((part, node.start_point.row + 1))
        call = node.named_children[0] if (node.type == "expression_statement"
                                          and node.named_children) else None
        if call is not None and call.type == "call_expression":
            # a call statement, `test('x', t => {...})`, `test.after(...)`: ctags may read
            # it as a class named after the function called
            callee = call.child_by_field_name("function")
            for part in re.split(r"\W+", (callee.text if callee else b"").decode("utf-8", "replace")):
                alias_rows.add((f"class {part}", node.start_point.row + 1))
        if node.type == "object" and not _holds_function(node):
            data_rows.add(node.start_point.row + 1)
            if node.parent is not None:
                data_rows.add(node.parent.start_point.row + 1)
        if node.type == "import_statement" or (node.type == "export_statement" and (
                node.child_by_field_name("source") is not None
                or any(c.type == "export_clause" for c in node.named_children))):
            imports.append((node.start_point.row + 1, node.end_point.row + 1))
            continue
        if node.type in _FUNCTION_NODES:
            body = node.child_by_field_name("body")
            if body is not None:
                bodies.append((body.start_point.row + 1, body.end_point.row + 1))
        stack.extend(node.named_children)
    return bodies, imports, data_rows, alias_rows


def _macro_bodies(root: Node) -> list[tuple[int, int]]:
    """C/C++: the 1-based line ranges of blocks that follow a macro call at file or
    namespace level (doctest's and Catch2's ``TEST_CASE("name") {...}``, a ``SECTION``
    inside): function bodies whose header is a macro, which ctags does not read as a
    function, so it tags the calls inside as prototypes (``CHECK(x == 1);``,
    ``v.push_back(1);``). A block can stand there only as such a body."""
    bodies: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            before = child.prev_named_sibling
            if (child.type == "compound_statement" and before is not None
                    and before.type == "expression_statement"
                    and any(c.type == "call_expression" for c in before.named_children)):
                bodies.append((child.start_point.row + 1, child.end_point.row + 1))
            elif child.type in ("declaration_list", "namespace_definition",
                                "linkage_specification", "preproc_ifdef", "preproc_if",
                                "preproc_else", "preproc_elif"):
                stack.append(child)
    return bodies


def _tag_name(tag: dict[str, object], lines: list[str]) -> str:
    """A tag's name; ctags 5.9's Kotlin parser names a backtick-quoted definition
    (fun `a test`()) with unrelated bytes (often the file's path), on the right line: a
    name its own line does not hold, on a line holding a backtick-quoted name, is that name."""
    name = str(tag.get("name", ""))
    line = int(str(tag.get("line", 0)))
    if tag.get("language") == "Kotlin" and 0 < line <= len(lines):
        source = lines[line - 1]
        quoted = _BACKTICKED.search(source)
        if quoted and name not in source:
            return quoted.group(1)
    return name


def _ctags_extensions() -> frozenset[str]:
    """File extensions (``.ts``) that some ctags parser reads."""
    proc = subprocess.run(["ctags", "--list-maps"], capture_output=True, text=True,
                          check=False, timeout=60)
    return frozenset(m.group(1).lower() for m in re.finditer(r"\*(\.[\w+]+)", proc.stdout))


def _inside(line: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start < line <= end for start, end in ranges)


def _ctags(path: Path, language: str, data: bytes, root: Node
           ) -> tuple[list[tuple[str, int, str]], set[tuple[str, int]]]:
    """The counted definition tags (name, line, kind) of one file, and every tag
    (name, line) that confirms a definition (any kind, nested ones too)."""
    proc = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+nKlzsZeE", "--kinds-C=+p",
         "--kinds-C++=+p", "-f", "-", str(path)],
        capture_output=True, text=True, check=False, timeout=60)
    raw = []
    for text in proc.stdout.splitlines():
        try:
            tag = json.loads(text)
        except json.JSONDecodeError:
            continue
        if tag.get("_type") == "tag":
            raw.append(tag)
    lines = data.decode("utf-8", "replace").splitlines()
    for tag in raw:
        tag["name"] = _tag_name(tag, lines)
    bodies, imports, data_rows, alias_rows = _function_rows(language, root)
    callables = {(f"{t['scope']}.{t['name']}" if t.get("scope") else str(t["name"]))
                 for t in raw if t.get("kind") in CALLABLE_KINDS}
    ranges = [(int(t["line"]), int(t["end"])) for t in raw
              if t.get("kind") in CALLABLE_KINDS and "end" in t]
    counted: dict[tuple[str, int], str] = {}
    confirming: set[tuple[str, int]] = set()
    for tag in raw:
        # A namespace's tag names its whole path (`Newtonsoft.Json`): compare the last part.
        name = re.split(r"\.|::|\\", str(tag["name"]))[-1] or str(tag["name"])
        name = _WHITESPACE.sub("", name)  # `operator ==` is `operator==`
        line, kind = int(tag.get("line", 0)), str(tag.get("kind"))
        if (name in SKIP_NAMES or _ANONYMOUS.match(name) or "anonymous" in tag.get("extras", "")
                or name in _RESERVED or any(s <= line <= e for s, e in imports)
                or (kind in ("prototype", "function") and _MACRO_NAME.match(name)
                    and name not in GTEST_MACROS)):
            continue
        confirming.add((name, line))
        scope = str(tag.get("scope", ""))
        scopes = re.split(r"\.|::", scope) if scope else []
        nested = (tag.get("scopeKind") in CALLABLE_KINDS
                  or any(".".join(scopes[:i]) in callables for i in range(1, len(scopes) + 1))
                  or _inside(line, ranges) or _inside(line, bodies))
        if (kind in DEFINITION_KINDS and not nested
                and not (kind == "class" and line in data_rows)
                and (name, line) not in alias_rows and (f"{kind} {name}", line) not in alias_rows
                and not (language in _ECMASCRIPT and name == "exports" and scope == "module")
                and (tag.get("language"), kind) not in SKIP
                and (not tag.get("file") or language in FILE_SCOPE_LANGUAGES)):
            counted.setdefault((name, line), kind)
    return [(name, line, kind) for (name, line), kind in counted.items()], confirming


def _syntax_containers(language: str, root: Node) -> list[tuple[int, int, int]]:
    """JavaScript/TypeScript only: the object literals and class bodies of the syntax tree
    as 1-based (statement line, opening-brace line, closing line): containers a
    definition may sit in without codegold naming them (``module.exports = {...}``)."""
    if language not in _ECMASCRIPT:
        return []
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("object", "class_body"):
            outer = node.parent if node.parent is not None else node
            found.append((outer.start_point.row + 1, node.start_point.row + 1,
                          node.end_point.row + 1))
        stack.extend(node.named_children)
    return found


# TypeScript syntax a JavaScript reader cannot read, erased for ctags's JavaScript parser.
_TYPESCRIPT_TYPES = frozenset({"type_annotation", "type_parameters", "type_arguments"})


def _javascript_view(language: str, data: bytes, root: Node
                     ) -> tuple[list[tuple[int, int]], list[str]]:
    """TypeScript only (ctags's TypeScript parser reads no object literal's members): the
    1-based line ranges of the syntax tree's object literals, and the file's lines with
    its type annotations, type parameters and type arguments blanked (types erased, as a
    compiler to JavaScript does; every row and column kept)."""
    if language != "typescript":
        return [], []
    found = []
    erased = bytearray(data)
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "object":
            found.append((node.start_point.row + 1, node.end_point.row + 1))
        if node.type in _TYPESCRIPT_TYPES:
            erased[node.start_byte:node.end_byte] = _blanked(data[node.start_byte:node.end_byte])
            continue
        stack.extend(node.named_children)
    return found, bytes(erased).decode("utf-8", "replace").splitlines()


def _without_type_parameters(language: str, data: bytes, lines: list[str], root: Node
                             ) -> list[str]:
    """Go only: the lines with each type declaration's type parameter list blanked
    (``type Entry[K comparable, V any] struct {`` reads ``type Entry ... struct {``):
    ctags 5.9 predates Go's type parameters and tags such a type as a plain ``type``,
    without its fields or its interface's methods."""
    if language != "go":
        return lines
    plain = bytearray(data)
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("type_spec", "type_alias"):
            params = node.child_by_field_name("type_parameters")
            if params is not None:
                plain[params.start_byte:params.end_byte] = _blanked(
                    data[params.start_byte:params.end_byte])
            continue
        stack.extend(node.named_children)
    return bytes(plain).decode("utf-8", "replace").splitlines()


def _alone(path: Path, lines: list[str], definition: SymbolDef, ours: list[SymbolDef],
           scratch: Path, containers: Sequence[tuple[int, int, int]] = (),
           wanted: str | None = None, parser: str | None = None,
           rewrite: bool = False) -> bool:
    """Whether ctags, reading only the definition's own lines inside its containers'
    opening and closing lines (every other line blank, so lines keep their numbers), tags
    its name within LINE_TOLERANCE lines of its header line. The containers are
    codegold's own, and in JavaScript/TypeScript also the syntax tree's object literals
    and class bodies (``module.exports = {...}`` names nothing, yet holds methods).
    ``rewrite``: C# headers and Kotlin backtick-quoted names are rewritten as the module
    docstring says (the rewritten reading)."""
    keep = set(range(definition.start_line, definition.end_line + 1))
    # PHP: ctags reads nothing before the `<?php` opening tag, so its line stays.
    opening_tag = next((n for n, line in enumerate(lines, 1) if "<?php" in line), None)
    if path.suffix.lower() in (".php", ".phtml") and opening_tag is not None:
        keep.add(opening_tag)
    headers: list[tuple[int, int]] = []  # C# containers' opening lines
    for first, brace, last in containers:
        if first <= definition.start_line and definition.end_line <= last and (
                first, last) != (definition.start_line, definition.end_line):
            keep.update(range(first, brace + 1))
            keep.add(last)
    for outer in ours:
        if (outer is not definition and outer.kind in CONTAINER_KINDS
                and outer.start_line <= definition.start_line
                and definition.end_line <= outer.end_line
                and (outer.start_line, outer.end_line) != (definition.start_line,
                                                          definition.end_line)):
            opening = outer.header_line  # up to its `{`, if one comes before a blank line
            for n in range(outer.header_line, definition.start_line):
                if not lines[n - 1].strip():
                    break
                if "{" in lines[n - 1]:
                    opening = n
                    break
            keep.update(range(outer.start_line, opening + 1))
            keep.add(outer.end_line)
            if rewrite and path.suffix.lower() == ".cs":
                headers.append((outer.start_line, opening))
    kept = [line if n in keep else "" for n, line in enumerate(lines, 1)]
    if rewrite and path.suffix.lower() == ".cs":  # its own header: up to its `{` or `=>`
        last = definition.header_line
        while last < definition.end_line and not re.search(r"[{;]|=>", lines[last - 1]):
            last += 1
        headers.append((definition.start_line, last))
    for first, last in headers:
        kept[first - 1:last] = _csharp_header("\n".join(kept[first - 1:last])).split("\n")
    wanted = _compared(wanted or definition.name)
    if rewrite and path.suffix.lower() in (".kt", ".kts"):
        # ctags 5.9 drops or misnames a backtick-quoted name (fun `a test`()): read alone,
        # it is spelled as a plain identifier (a_test), in the definition's lines only.
        for n in range(definition.start_line, definition.end_line + 1):
            kept[n - 1] = _BACKTICK.sub(lambda m: _identifier(m.group(1)), kept[n - 1])
        if not definition.name.isidentifier():
            wanted = _compared(_identifier(definition.name))
    alone = scratch / f"alone{path.suffix}"
    alone.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    force = [f"--language-force={parser}"] if parser else []
    proc = subprocess.run(["ctags", "--output-format=json", "--fields=+nl", *force, "-f", "-",
                           str(alone)], capture_output=True, text=True, check=False, timeout=60)
    for text in proc.stdout.splitlines():
        try:
            tag = json.loads(text)
        except json.JSONDecodeError:
            continue
        name = re.split(r"\.|::|\\", _tag_name(tag, kept))[-1]
        # A gtest macro's tag (`TEST`) names a test (`Suite.Name`) here as in the first reading.
        named = _compared(name) == wanted or (
            definition.role == "test" and name in GTEST_MACROS)
        if (tag.get("_type") == "tag" and named
                and abs(int(tag.get("line", 0)) - definition.header_line) <= LINE_TOLERANCE):
            return True
    return False


# Property and method names Universal Ctags 5.9's JavaScript parser reads as keywords
# (ES5 allows every one of them as a property name): `a.get = function`, `{ set: function }`
# and `class A { static get default () {} }` give no tag, or a "null tag" warning.
_CTAGS_JS_KEYWORDS = frozenset({
    "get", "set", "static", "default", "new", "async", "class", "function", "return", "var",
    "let", "const", "export", "extends", "this", "catch", "finally", "try", "do", "if", "else",
    "for", "while", "switch", "prototype"})
_NAMING_NODES = frozenset({"assignment_expression", "pair", "method_definition",
                           "variable_declarator", "field_definition", "function_declaration",
                           "generator_function_declaration", "class_declaration"})


def _naming(node: Node) -> tuple[Node | None, Node | None]:
    """The node that names a definition statement (``b`` of ``a.b = ...``, a key, a
    method's name) and the value it is given, or (None, None)."""
    if node.type == "assignment_expression":
        left = node.child_by_field_name("left")
        if left is not None and left.type == "member_expression":
            owner = left.child_by_field_name("object")
            left = left.child_by_field_name("property")
            if left is not None and left.text == b"prototype" and owner is not None:
                # `X.prototype = {...}` defines X's members: named X, as ctags does
                left = owner.child_by_field_name("property") or owner
        return left, node.child_by_field_name("right")
    if node.type == "pair":
        return node.child_by_field_name("key"), node.child_by_field_name("value")
    if node.type == "variable_declarator":
        return node.child_by_field_name("name"), node.child_by_field_name("value")
    if node.type == "field_definition":
        return node.child_by_field_name("property"), node.child_by_field_name("value")
    return node.child_by_field_name("name"), None


def _plain_javascript(root: Node, data: bytes, definition: SymbolDef
                      ) -> tuple[list[str], str] | None:
    """The file rewritten where ctags 5.9's JavaScript parser cannot read a definition it
    should tag, and the name to look for; None when nothing there needs rewriting.

    Each rewrite keeps every line on its row and changes only syntax, never the name's
    place or what is assigned: an arrow function becomes a ``function`` expression (its
    expression body in braces); a function expression's own name is dropped (ctags tags
    ``{ req: function asReqValue () {} }`` nowhere); the outer links of a chained
    assignment (``req.get = req.header = function``) become blanks; a name ctags reads as
    a keyword, the definition's own or a member's, gets a trailing ``_`` (``get`` is looked
    for as ``get_``)."""
    short = definition.name.rsplit(".", 1)[-1]
    row = definition.header_line - 1
    stack = [root]
    target: tuple[Node, Node, Node | None] | None = None
    while stack:  # the innermost naming node (a chain's last link) wins
        node = stack.pop()
        if node.end_point.row < row or node.start_point.row > row:
            continue
        if node.type in _NAMING_NODES:
            name, value = _naming(node)
            if (name is not None and name.start_point.row == row
                    and data[name.start_byte:name.end_byte].decode("utf-8", "replace").strip(
                        "'\"") == short):
                target = node, name, value
        stack.extend(reversed(node.named_children))
    if target is None:
        return None
    node, name, value = target
    edits: list[tuple[int, int, bytes]] = []
    wanted = short + "_" if short in _CTAGS_JS_KEYWORDS else short
    # Keyword names: the definition's own, and its members' (`{ set: function }` in an
    # object makes ctags drop the whole object).
    inner = [node]
    while inner:
        current = inner.pop()
        inner.extend(current.named_children)
        if current.type in _NAMING_NODES:
            named = _naming(current)[0]
            if named is not None and (named.text or b"").decode(
                    "utf-8", "replace").strip("'\"") in _CTAGS_JS_KEYWORDS:
                edits.append((named.end_byte, named.end_byte, b"_"))
    if value is not None and value.type == "function_expression":
        own = value.child_by_field_name("name")
        if own is not None:
            edits.append((own.start_byte, own.end_byte, b""))
    if value is not None and value.type == "arrow_function":
        body = value.child_by_field_name("body")
        params = value.child_by_field_name("parameters") or value.child_by_field_name("parameter")
        if body is not None and params is not None:
            text = data[params.start_byte:params.end_byte]
            if params.type != "formal_parameters":
                text = b"(" + text + b")"
            prefix = b"async " if data[value.start_byte:params.start_byte].strip() else b""
            edits.append((value.start_byte, body.start_byte, prefix + b"function " + text + b" "))
            if body.type != "statement_block":
                edits.append((body.start_byte, body.start_byte, b"{ "))
                edits.append((body.end_byte, body.end_byte, b" }"))
    # Chains around the definition and around the containers holding it
    # (`jQuery.fn = jQuery.prototype = { toArray: function }`).
    link: Node | None = node
    while link is not None:
        outer = link
        while (outer.type == "assignment_expression" and outer.parent is not None
               and outer.parent.type == "assignment_expression"):
            outer = outer.parent
        if outer is not link:
            edits.append((outer.start_byte, link.start_byte,
                          _blanked(data[outer.start_byte:link.start_byte])))
        link = outer.parent
    if not edits:
        return None
    out = data
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return out.decode("utf-8", "replace").splitlines(), wanted


_CSHARP_TYPE_HEADER = re.compile(r"\b(?:record\s+)?(class|struct|record)\s+@?\w+\s*(<[^>{]*>)?\s*(\()?")


# Files whose unconfirmed definitions get the rewritten reading (C#, Kotlin).
_REWRITTEN_SUFFIXES = frozenset({".cs", ".kt", ".kts"})
_CSHARP_NULLABLE = re.compile(r"(?<=[\w>\]])\?(?=[\s,)\[>])")
_CSHARP_WHERE = re.compile(r"\bwhere\s+\w+\s*:[^{;=]*")


def _csharp_header(text: str) -> str:
    """A C# declaration's opening lines (up to its ``{`` or ``=>``) as ctags 5.9 reads
    them: it knows neither a primary constructor (``class PathMap(TypeMap map) :
    MemberMap(map)``, C# 12) nor ``record`` (C# 9), and reads such a type as a method or
    a property whose body it skips; it drops a method with a nullable parameter
    (``object? value``, C# 8) or a ``where`` constraint. The parameter list, the nullable
    marks and the constraints go (blanked, lines keep their numbers) and a record reads
    as the class or struct it is."""
    code = re.sub(r'"(?:[^"\\\n]|\\.)*"', lambda m: "_" * len(m.group(0)), text)
    cut = min((i for i in (code.find("{"), code.find("=>")) if i >= 0), default=len(text))
    head, rest = text[:cut], text[cut:]
    head = _CSHARP_NULLABLE.sub(" ", head)
    head = _CSHARP_WHERE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), head)
    return _csharp_type_header(head + rest)


def _csharp_type_header(text: str) -> str:
    out = []
    at = 0
    for match in _CSHARP_TYPE_HEADER.finditer(text):
        if match.start() < at:
            continue
        keyword = "struct" if match.group(1) == "struct" else "class"
        head = match.group(0)
        head = re.sub(r"^(record\s+)?(class|struct|record)", keyword, head)
        out.append(text[at:match.start()] + head)
        at = match.end()
        if match.group(3):
            depth, j = 1, at
            while j < len(text) and depth:
                depth += (text[j] == "(") - (text[j] == ")")
                j += 1
            out[-1] = out[-1][:-1] + " "
            out.append(re.sub(r"[^\n]", " ", text[at:j]))
            at = j
    out.append(text[at:])
    return "".join(out)


def _overload_sets(ours: list[SymbolDef]) -> list[list[int]]:
    """Indexes of overload sets: runs of definitions of one qualified name, each starting
    within LINE_TOLERANCE lines after the previous one ends (TypeScript's overload
    signatures and their implementation). ctags tags such a run once."""
    order = sorted(range(len(ours)), key=lambda i: (ours[i].start_line, ours[i].end_line))
    groups: list[list[int]] = []
    for i in order:
        last = groups[-1][-1] if groups else None
        if (last is not None and ours[last].qualified == ours[i].qualified
                and ours[i].start_line - ours[last].end_line <= LINE_TOLERANCE):
            groups[-1].append(i)
        else:
            groups.append([i])
    return [g for g in groups if len(g) > 1]


def _owner(definition: SymbolDef) -> str:
    """The name just before a definition's own name (``res`` in ``res.get``), or ""."""
    parts = definition.qualified.rsplit(".", 2)
    return _WHITESPACE.sub("", parts[-2]) if len(parts) > 1 else ""


def _spread_overloads(ours: list[SymbolDef], confirmed: list[bool]) -> None:
    """An overload set is confirmed as a whole when one of it is."""
    for group in _overload_sets(ours):
        if any(confirmed[i] for i in group):
            for i in group:
                confirmed[i] = True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="local directory to measure (a checkout)")
    parser.add_argument("--language", help="only this language (python, javascript, ...)")
    parser.add_argument("--span", action="store_true",
                        help="count a tag found when a same-named definition's span holds it")
    parser.add_argument("--misses", type=int, default=5, help="misses to list per language")
    args = parser.parse_args(argv)
    if shutil.which("ctags") is None:
        print("ctags not found: apt-get install universal-ctags", file=sys.stderr)
        return 2
    stats: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    misses: dict[str, list[str]] = collections.defaultdict(list)
    extras: dict[str, list[str]] = collections.defaultdict(list)
    reread: dict[str, list[str]] = collections.defaultdict(list)
    rewritten: dict[str, list[str]] = collections.defaultdict(list)
    read_by_ctags = _ctags_extensions()
    scratch = Path(tempfile.mkdtemp(prefix="languages-"))
    for path in _files(args.path, args.language):
        rel = path.relative_to(args.path).as_posix()
        language = language_of(rel) or "?"
        if path.suffix.lower() not in read_by_ctags:
            continue  # ctags has no parser for it (TSX): nothing to compare with
        data = path.read_bytes()
        started = time.perf_counter()
        result = chunk_file(rel, data)
        elapsed = time.perf_counter() - started
        lines = data.decode("utf-8", "replace").splitlines()
        ours = [d for d in result.definitions if d.kind in CODEGOLD_KINDS]
        by_name: dict[str, list[tuple[int, int, int]]] = collections.defaultdict(list)
        for d in ours:
            by_name[_compared(d.name)].append((d.header_line, d.start_line, d.end_line))
            if d.role == "test":
                by_name["<test>"].append((d.header_line, d.start_line, d.end_line))
        owners = {(_owner(d), d.header_line) for d in ours if _owner(d)}
        root = ts_parser(language).parse(data).root_node  # one parse serves every reading
        tags, confirming = _ctags(path, language, data, root)
        if "minified" in (result.entry.reason or ""):
            # Packed code: every definition on one line, where ctags' line numbers cannot
            # tell a nested function from a top-level one. Counted apart.
            stats[language]["packed_files"] += 1
            stats[language]["packed_ctags"] += len(tags)
            stats[language]["packed_codegold"] += len(ours)
            continue
        near: dict[str, list[int]] = collections.defaultdict(list)
        for name, line in confirming:
            near["<test>" if name in GTEST_MACROS else name].append(line)
        counts = stats[language]
        counts["files"] += 1
        counts["ctags"] += len(tags)
        counts["codegold"] += len(ours)
        counts["microseconds"] += int(elapsed * 1e6)
        counts["lines"] += len(lines)
        counts["chunks"] += len(result.chunks)
        counts["comment_only"] += sum(_comment_only(c.text, language) for c in result.chunks)
        for d in ours:
            if d.kind in ("function", "method") and _test_looking(
                    lines, rel, d.name, d.header_line, d.start_line):
                counts["test_looking"] += 1
                counts["test_role"] += d.role == "test"
        for name, line, kind in tags:
            hit = any(abs(h - line) <= LINE_TOLERANCE or (args.span and s <= line <= e)
                      for h, s, e in by_name["<test>" if name in GTEST_MACROS else name]
                      ) or (name, line) in owners
            counts["found"] += hit
            if not hit:
                counts[f"miss:{kind}"] += 1
                misses[language].append(f"{rel}:{line} {kind} {name}")
        confirmed = [any(abs(ln - d.header_line) <= LINE_TOLERANCE
                         or (args.span and d.start_line <= ln <= d.end_line)
                         for ln in near[_compared(d.name)] + (near["<test>"] if d.role == "test" else []))
                     or (_owner(d), d.header_line) in confirming for d in ours]
        _spread_overloads(ours, confirmed)
        containers = _syntax_containers(language, root) if not all(confirmed) else []
        objects, untyped = (_javascript_view(language, data, root) if not all(confirmed)
                            else ([], []))
        plain = _without_type_parameters(language, data, lines, root) if not all(confirmed) else []
        for i, d in enumerate(ours):
            if not confirmed[i] and (
                    _alone(path, plain, d, ours, scratch, containers)
                    or (untyped and _alone(path, untyped, d, ours, scratch, containers))
                    or (_inside(d.header_line, objects)
                        and _alone(path, untyped, d, ours, scratch, containers,
                                   parser="JavaScript"))):
                confirmed[i] = True
                counts["second_reading"] += 1
                reread[language].append(f"{rel}:{d.header_line} {d.kind} {d.qualified}")
        _spread_overloads(ours, confirmed)
        for i, d in enumerate(ours):
            if confirmed[i]:
                continue
            rewrite = _plain_javascript(root, data, d) if language == "javascript" else None
            if (rewrite is not None and _alone(path, rewrite[0], d, ours, scratch, containers,
                                               wanted=rewrite[1])) or (
                    path.suffix.lower() in _REWRITTEN_SUFFIXES
                    and _alone(path, lines, d, ours, scratch, containers, rewrite=True)):
                confirmed[i] = True
                counts["rewritten_reading"] += 1
                rewritten[language].append(f"{rel}:{d.header_line} {d.kind} {d.qualified}")
        _spread_overloads(ours, confirmed)
        for d, ok in zip(ours, confirmed, strict=True):
            counts["confirmed"] += ok
            if not ok:
                extras[language].append(f"{rel}:{d.header_line} {d.kind} {d.qualified}")
    for language, counts in sorted(stats.items()):
        recall = counts["found"] / counts["ctags"] if counts["ctags"] else 1.0
        precision = counts["confirmed"] / counts["codegold"] if counts["codegold"] else 1.0
        plain = ((counts["confirmed"] - counts["second_reading"] - counts["rewritten_reading"])
                 / counts["codegold"] if counts["codegold"] else 1.0)
        print(f"{language:11} files {counts['files']:5}  ctags {counts['ctags']:6}  "
              f"codegold {counts['codegold']:6}  recall {recall:6.1%}  "
              f"precision {precision:6.1%}  (second reading {counts['second_reading']}, "
              f"rewritten {counts['rewritten_reading']}; plain ctags {plain:6.1%})")
        tests = counts["test_role"] / counts["test_looking"] if counts["test_looking"] else 1.0
        comments = counts["comment_only"] / counts["chunks"] if counts["chunks"] else 0.0
        print(f"{'':11} lines {counts['lines']:7}  tests {tests:6.1%} of "
              f"{counts['test_looking']}  comment-only {comments:6.1%} of {counts['chunks']}  "
              f"time {counts['microseconds'] / 1e6:6.2f}s")
        if counts["packed_files"]:
            print(f"{'':11} packed files {counts['packed_files']} left out (ctags "
                  f"{counts['packed_ctags']} tags, codegold {counts['packed_codegold']} "
                  "definitions)")
        kinds = sorted(((k[5:], v) for k, v in counts.items() if k.startswith("miss:")),
                       key=lambda item: -item[1])
        if kinds:
            print("    misses by kind: " + ", ".join(f"{k} {v}" for k, v in kinds[:6]))
        for entry in misses[language][:args.misses]:
            print(f"    missed {entry}")
        for entry in extras[language][:args.misses]:
            print(f"    unconfirmed {entry}")
        for entry in reread[language][:args.misses]:
            print(f"    confirmed by the second reading {entry}")
        for entry in rewritten[language][:args.misses]:
            print(f"    confirmed by the rewritten reading {entry}")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
