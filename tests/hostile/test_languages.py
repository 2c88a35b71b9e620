"""Hostile source files for the structural chunker (tags queries, containers, long lines):
`codegold index parse` must finish in bounded time and memory, print bounded chunks and
never a traceback, whatever the bytes; the files next to the input survive."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hostilekit import assert_no_traceback, assert_sentinels, plant_sentinels, run_cli

MAX_TEXT = 8_000 + 2 * 600 + 16  # chunk limit plus repeated headers (drafts.py)


def _nested_object(depth: int) -> bytes:
    return b"const deep = " + b"{a: " * depth + b"1" + b"}" * depth + b";\n"


def _prototype_flood(count: int) -> bytes:
    return b"".join(b"X.prototype.m%d = function () { return %d; };\n" % (i, i)
                    for i in range(count))


def _long_literal() -> bytes:
    return b'BLOB = "' + b"A" * 2_000_000 + b'"\n\ndef load():\n    return BLOB\n'


def _rust_attribute_flood(count: int) -> bytes:
    return b"#[test]\n" * count + b"fn t() {}\n" + b"/// doc\n" * count


def _exports_chain(count: int) -> bytes:
    return b"module.exports = {\n" + b"".join(b"  f%d() { return %d; },\n" % (i, i)
                                               for i in range(count)) + b"};\n"


CASES: dict[str, tuple[str, Callable[[], bytes]]] = {
    "nested-object": ("lib/deep.js", lambda: _nested_object(5_000)),
    "prototype-flood": ("lib/flood.js", lambda: _prototype_flood(5_000)),
    "long-literal": ("src/blob.py", _long_literal),
    "attribute-flood": ("src/attrs.rs", lambda: _rust_attribute_flood(20_000)),
    "exports-object": ("lib/exports.js", lambda: _exports_chain(5_000)),
    "ruby-garbage": ("app/x.rb", lambda: b"class \xff\xfe < def end end\n" * 5_000),
    "csharp-unclosed": ("src/X.cs", lambda: b"namespace N { class C { void M() {" * 3_000),
    "go-comments-only": ("pkg/c.go", lambda: b"// c\n" * 50_000),
    "java-annotations": ("src/A.java", lambda: b"@A(" * 5_000 + b")" * 5_000 + b" class A {}\n"),
    "c-ifdef-nest": ("include/x.h", lambda: b"#ifdef A\n" * 5_000 + b"int f(void);\n"),
    "c-macro-lines": ("src/m.c", lambda: b"BEGIN_SCOPE\n" * 50_000 + b"int f(void) { return 0; }"),
    "cpp-namespaces": ("src/n.cpp", lambda: b"namespace a { " * 5_000 + b"int f(); " + b"}" * 5_000),
    "cpp-gtest-flood": ("src/x_test.cc", lambda: b"".join(
        b"TEST(S%d, N%d) { EXPECT_EQ(1, 1); }\n" % (i, i) for i in range(5_000))),
    "php-namespace-flood": ("src/x.php", lambda: b"<?php\n" + b"namespace A\\B;\n" * 20_000
                            + b"class C { function f() {} }\n"),
    "kotlin-annotations": ("src/A.kt", lambda: b"@Test " * 20_000 + b"fun f() {}\n"),
    # Attribute-macro blanking before parsing (a regular expression per pattern) must
    # stay linear in the line length: these took hours when a template pattern was not.
    "cpp-template-line": ("include/t.h", lambda: b"template <x> " * 100_000 + b"\n"),
    "cpp-template-open": ("include/o.h", lambda: b"template <" * 100_000 + b">\n"),
    "cpp-attribute-macros": ("include/m.h", lambda: b"A_B " * 200_000 + b"\n"
                             + b", A_B(x\n" * 50_000 + b"x A_B" * 50_000 + b")\n"),
    "csharp-conditional-bases": ("src/B.cs", lambda: b"#if X\n: A\n" * 50_000),
    "ruby-nested-blocks": ("app/b.rb", lambda: b"a do\n" * 3_000 + b"def f; end\n"
                           + b"end\n" * 3_000),
    # A query pattern over a method's attribute lists cost their count cubed (1,000 lists:
    # 92 s); one statement's names were compared pairwise (20,000 declarators: 24 s).
    "csharp-attribute-lists": ("src/A.cs", lambda: b"class A {\n" + b"[Attr]\n" * 20_000
                               + b"[Fact] void M() {} }\n"),
    "js-declarators": ("lib/d.js", lambda: b"var " + b",\n".join(
        b"f%d = function () {}" % i for i in range(40_000)) + b";\n"),
    "js-assignment-chain": ("lib/c.js", lambda: b"a.b = " * 20_000 + b"function () {};\n"),
    "js-umd-nest": ("lib/u.js", lambda: b"(function (r, f) {})(this, function () {\n" * 3_000
                    + b"function g() {}\n" + b"});\n" * 3_000),
    "js-conditionals": ("lib/i.js", lambda: b"if (a) {\n" * 5_000 + b"f = function () {};\n"
                        + b"} else {\n}\n" * 5_000),
    # C# 14 extension blocks are unwrapped by a brace scan: an unclosed comment, string or
    # header flood must not make it rescan the rest of the file from each one (an unclosed
    # comment per line took 11 s for 100 kB).
    "csharp-extension-unclosed-comments": ("src/E.cs", lambda: b"static class E {\n"
                                           b"extension(A a) {\n" + b"/* x\n" * 10_000),
    "csharp-extension-headers": ("src/H.cs", lambda: b"extension(A a) {\n" * 30_000),
    "csharp-extension-open": ("src/O.cs", lambda: b"extension(\n" * 30_000 + b"a" * 100_000),
    "cpp-qualified-macro": ("include/q.h", lambda: b"void API_X " + b"a<b>::" * 30_000 + b"\n"),
    "kotlin-get-calls": ("src/G.kt", lambda: b"fun f() {\n  val a = 1\n" + b"  get(a)\n" * 30_000
                         + b"}\n"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_source_parses_within_bounds(case: str, tmp_path: Path) -> None:
    repo_path, make = CASES[case]
    source = tmp_path / "input" / Path(repo_path).name
    planted = plant_sentinels(source.parent)
    source.write_bytes(make())
    proc = run_cli("index", "parse", source, "--path", repo_path, "--json", timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["entry"]["path"] == repo_path
    lines = make().count(b"\n") + 1
    for chunk in result["chunks"]:
        assert len(chunk["text"]) <= MAX_TEXT
        assert 1 <= chunk["start_line"] <= chunk["end_line"] <= lines
    for definition in result["definitions"]:
        assert definition["start_line"] <= definition["header_line"] <= definition["end_line"]
    assert_sentinels(planted)


def test_extension_block_scan_is_linear_in_unclosed_comments() -> None:
    """The C# rewrite alone (the grammar is slow on unclosed comments by itself): 200,000
    unclosed comments in an extension block, in a child process with a timeout."""
    code = ("from codegold.index.languages.csharp import _prepare_csharp; "
            "_prepare_csharp(b'static class E {\\nextension(A a) {\\n' + b'/* x\\n' * 200_000)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
