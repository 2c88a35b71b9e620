"""ctags_measure: definition recall and precision of codegold's structural chunker against Universal Ctags.

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
  is a function or method (Python's methods are ctags ``member``s), or whose line lies
  inside a function's lines (ctags' ``end``; for JavaScript and TypeScript, where ctags records no end, the function bodies of the
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

    python -m ctags_measure PATH                 # every structural language (from tools/)
    python -m ctags_measure PATH --language javascript --misses 20
    python benchmarks/languages.py PATH          # the same, from the repository root

Needs ``ctags`` (Universal Ctags, ``apt-get install universal-ctags``) on PATH. The
repositories and commits of the published table are in
:data:`ctags_measure.repositories.REPOSITORIES`.

What a language *is* (its files' extensions, which languages codegold parses, their
grammar family) comes from codegold (:mod:`codegold.model.languages`,
:mod:`codegold.index.languages`); what ctags reads and what a reader would call a test
are this tool's own, on purpose independent of codegold's rules (a measure of the
chunker must not take the chunker's word). The parts: :mod:`~ctags_measure.rules` (what
is counted and how names compare), :mod:`~ctags_measure.tags` (running ctags and
keeping the counted tags), :mod:`~ctags_measure.readings` (the second and rewritten
readings), :mod:`~ctags_measure.report` (the walk over a checkout and the printed
figures).
"""

from __future__ import annotations

from ctags_measure.report import main

__all__ = ["main"]
