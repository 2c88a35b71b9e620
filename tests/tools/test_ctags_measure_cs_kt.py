"""ctags_measure's C# and Kotlin readings: ctags 5.9's garbled names of
backtick-quoted Kotlin definitions, the rewritten reading of C# headers and Kotlin quoted
names (rows kept, names never moved), and annotated code lines that are not comment-only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codegold.index import SymbolDef
from ctags_measure import main
from ctags_measure.readings import csharp_header, read_alone
from ctags_measure.rules import comment_only, plain_identifier
from ctags_measure.tags import tag_name


def test_an_annotation_line_with_code_after_it_is_not_comment_only() -> None:
    assert not comment_only("/** Doc. */\n@Throws(IOException::class) fun f()", "kotlin")
    assert not comment_only('[Fact] public void F() { }', "csharp")
    assert not comment_only('@A("x)") class B', "java")
    assert comment_only("/** Doc. */\n@Throws(IOException::class)", "kotlin")
    assert comment_only('[Fact]\n[Trait("a", "b]")] // note', "csharp")
    assert comment_only("// a comment\n#[derive(Debug)]", "rust")


def test_csharp_headers_lose_only_the_syntax_ctags_cannot_read() -> None:
    header = ("public sealed class PathMap(LambdaExpression d,\n    MemberPath m)"
              " : MemberMap(m)\n{")
    rewritten = csharp_header(header)
    assert rewritten.count("\n") == header.count("\n")
    assert rewritten.startswith("public sealed class PathMap ") and ": MemberMap(m)" in rewritten
    assert csharp_header("public record struct P(int X) {").startswith(
        "public struct P ")
    method = "public static T Against<T>(\n    T? value,\n    string? name = null)\n    where T : class\n{"
    rewritten = csharp_header(method)
    assert "?" not in rewritten and "where" not in rewritten
    assert rewritten.splitlines()[0] == "public static T Against<T>("
    # Braces inside an attribute's string do not end the header.
    assert "class A " in csharp_header('[D("{X}")]\npublic class A(int x)\n{')


def test_a_garbled_kotlin_tag_takes_the_quoted_name_of_its_line() -> None:
    lines = ["class T {", "  @Test fun `a b c`() {", "  fun plain() {}"]
    tag = {"name": "src/T.kt", "line": 2, "language": "Kotlin"}
    assert tag_name(tag, lines) == "a b c"
    assert tag_name({"name": "plain", "line": 3, "language": "Kotlin"}, lines) == "plain"
    assert tag_name({"name": "x", "line": 2, "language": "Java"}, lines) == "x"
    assert plain_identifier("1 b-c") == "_1_b_c"


@pytest.mark.skipif(shutil.which("ctags") is None, reason="the benchmark needs Universal Ctags")
def test_the_rewritten_reading_confirms_real_definitions_not_invented_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "PathMap.cs").write_text(
        "namespace A;\npublic class PathMap(int x) : Base(x)\n{\n"
        "    public object? Get(object? key) { return key; }\n"
        "    public static T Against<T>(T value) where T : class { return value; }\n}\n")
    (tmp_path / "src" / "T.kt").write_text(
        "class T {\n  @Test fun `quoted name`() {\n  }\n}\n")
    assert main([str(tmp_path), "--misses", "20"]) == 0
    out = capsys.readouterr().out
    assert "unconfirmed" not in out and "rewritten 2" in out
    # Something codegold does not define is not confirmed by the rewritten reading.
    lines = (tmp_path / "src" / "PathMap.cs").read_text().splitlines()
    invented = SymbolDef(name="key", qualified="A.PathMap.key", kind="method",
                         role="definition", file="src/PathMap.cs", start_line=4, end_line=4,
                         header_line=4, chunk_id="c")
    assert not read_alone(tmp_path / "src" / "PathMap.cs", lines, invented, [invented],
                          tmp_path, rewrite=True)
