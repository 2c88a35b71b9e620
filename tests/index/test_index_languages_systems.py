"""Go, Rust, Python, Java, Kotlin and PHP as their users write them: one fixture file per
language pattern, checked for names, kinds, roles, header lines and spans."""

from __future__ import annotations

from codegold.index import chunk_file
from codegold.index.grammars import parse_source, parser
from codegold.index.records import FileChunks
from langkit import FIXTURES, parse


def table(result: FileChunks) -> dict[str, list[tuple[str, str, int, int, int]]]:
    """qualified name -> every (kind, role, start, header, end) it is defined with."""
    found: dict[str, list[tuple[str, str, int, int, int]]] = {}
    for d in result.definitions:
        found.setdefault(d.qualified, []).append(
            (d.kind, d.role, d.start_line, d.header_line, d.end_line))
    return found


def chunk_of(result: FileChunks, qualified: str) -> str:
    return next(d.chunk_id for d in result.definitions if d.qualified == qualified)


def test_go_struct_fields_are_symbols_of_their_struct_chunk() -> None:
    result = parse("shapes.go", "shapes/shapes.go")
    found = table(result)
    # Doc comment in the span, header on the declaration line; `X, Y int` names two.
    assert found["Point"] == [("class", "definition", 5, 6, 13)]
    assert found["Point.X"] == [("field", "definition", 8, 9, 9)]
    assert found["Point.Y"][0][:2] == ("field", "definition")
    assert found["Point.Label"] == [("field", "definition", 10, 10, 12)]
    # Fields never become chunks of their own: the struct stays one chunk.
    struct = chunk_of(result, "Point")
    assert chunk_of(result, "Point.X") == chunk_of(result, "Point.Label") == struct
    assert [c.symbol for c in result.chunks].count("Point") == 1
    # Interface methods are declarations; embedded types and locals are not symbols.
    assert found["Shape.Area"] == [("method", "declaration", 18, 18, 18)]
    assert "Point.Text" not in found and "Label.Text" not in found
    assert not any(name.endswith(("Reader", "Closer", "hidden", "local")) for name in found)
    # Names in a `const (...)` block have their own lines as header lines.
    assert found["Origin"][0][:2] == found["Unit"][0][:2] == ("variable", "definition")
    assert (found["Origin"][0][3], found["Unit"][0][3]) == (28, 29)


def test_go_fields_of_a_long_struct_point_at_the_part_holding_them() -> None:
    fields = "".join(f"\t// Field{i} is documented.\n\tField{i} string\n" for i in range(150))
    source = f"package big\n\ntype Config struct {{\n{fields}}}\n".encode()
    result = chunk_file("big/config.go", source)
    assert len(result.chunks) > 1
    by_id = {c.id: c for c in result.chunks}
    for d in result.definitions:
        chunk = by_id[d.chunk_id]
        assert chunk.start_line <= d.header_line <= chunk.end_line, d.qualified


def test_rust_impl_blocks_module_declarations_and_extern_blocks() -> None:
    result = parse("shapes.rs", "src/shapes.rs")
    found = table(result)
    assert found["geometry"] == [("module", "declaration", 1, 1, 1)]
    assert found["render"][0][:2] == ("module", "declaration")
    assert found["Point"] == [("class", "definition", 4, 6, 8),
                              ("impl", "definition", 10, 10, 14),
                              ("impl", "definition", 16, 16, 20)]
    # Members stay qualified by the impl's type, trait impls included.
    assert found["Point.new"] == [("method", "definition", 11, 11, 13)]
    assert found["Point.fmt"] == [("method", "definition", 17, 17, 19)]
    assert found["abs"] == [("function", "declaration", 23, 23, 23)]
    assert found["tests.makes_point"] == [("function", "test", 30, 31, 33)]
    kinds = {c.symbol: c.kind for c in result.chunks if c.symbol}
    assert kinds["Point"] in ("class", "impl")


def test_python_definitions_under_conditionals_belong_to_their_level() -> None:
    result = parse("conditional.py", "app/conditional.py")
    found = table(result)
    assert found["AppProxy"] == [("class", "definition", 5, 5, 6)]
    assert found["AppProxy.current"][0][:2] == ("method", "declaration")
    assert found["loads"] == [("function", "definition", 11, 11, 12)]
    # Methods under `if`/`else` in a class are the class's methods, both versions.
    assert sorted(found["Config.load"]) == [("method", "definition", 17, 17, 18),
                                            ("method", "definition", 20, 20, 21)]
    assert found["Config.save"][0][:2] == ("method", "definition")
    # Code in a conditional stays in a chunk, and a conditional holding no definition
    # is plain module code.
    covered = {line for c in result.chunks for line in range(c.start_line, c.end_line + 1)}
    assert 9 in covered  # `from ujson import loads` inside `try:`
    main = next(c for c in result.chunks if c.start_line == 27)
    assert (main.kind, main.role, main.end_line) == ("module", "call_site", 28)
    member = next(c for c in result.chunks if c.symbol == "AppProxy")
    assert member.text.startswith("if TYPE_CHECKING:\n")


def test_python_definitions_in_a_with_block_belong_to_its_level() -> None:
    source = (b'class Store:\n    with LOCK:\n        def save(self):\n            pass\n\n\n'
              b'if __name__ == "__main__":\n    with timer("render"):\n        table = 1\n\n'
              b'        def header(text):\n            print(text)\n\n        header("a")\n')
    found = table(chunk_file("pkg/table.py", source))
    assert found["Store.save"] == [("method", "definition", 3, 3, 4)]
    assert found["header"] == [("function", "definition", 11, 11, 12)]


def test_kotlin_platform_constructors_enum_bodies_and_object_properties() -> None:
    result = parse("ByteString.kt", "okio/src/jvmMain/kotlin/okio/ByteString.kt")
    assert result.entry.reason is None  # parsed without syntax errors
    found = table(result)
    assert found["ByteString.hex"] == [("method", "definition", 11, 11, 11)]
    assert found["ByteString.compareTo"][0][:2] == ("method", "definition")
    assert found["ByteString.sink"][0][0] == "object"
    assert found["ByteString.sink.write"][0][2:4] == (14, 14)
    assert found["Factory.Basic"] == [("constant", "definition", 22, 22, 24)]
    assert found["Factory.Basic.create"][0][:4] == ("method", "definition", 23, 23)
    assert found["Factory.create"][0][:2] == ("method", "declaration")
    # A quoted name is named as users say it.
    assert "-DeprecatedOkio.buffer" in found


def test_kotlin_source_fixes_keep_rows_and_offsets() -> None:
    source = (FIXTURES / "ByteString.kt").read_bytes()
    prepared = parse_source("kotlin", source)
    assert len(prepared) == len(source)
    assert prepared.count(b"\n") == source.count(b"\n")
    assert not parser("kotlin").parse(prepared).root_node.has_error
    assert parser("kotlin").parse(source).root_node.has_error  # what the fix is for


def test_java_junit_annotations_make_tests_whatever_the_method_name() -> None:
    for path in ("src/test/java/com/acme/ParserTest.java",
                 "src/main/java/com/acme/ParserChecks.java"):
        found = table(parse("ParserTest.java", path))
        assert found["ParserTest.parsesEmptyInput"] == [("method", "test", 4, 5, 5)]
        assert found["ParserTest.parsesValues"][0][:4] == ("method", "test", 7, 9)
        assert found["ParserTest.qualified"][0][1] == "test"  # @org.junit.jupiter.api.Test
        assert found["ParserTest.Inner.deep"][0][1] == "test"
    # Outside a test path only the annotation decides; inside one, a test class's members
    # are tests.
    assert found["ParserTest.helper"][0][1] == "definition"


def test_source_fixes_and_annotation_patterns_stay_linear_on_hostile_input() -> None:
    import time

    started = time.perf_counter()
    parse_source("kotlin", b"@" + b"a" * 500_000 + b"(")
    parse_source("kotlin", b"@a" + b" " * 500_000)
    parse_source("kotlin", b"internal " * 100_000 + b"expect constructor()\n")
    annotations = b"".join(b"  @Ann%d\n" % i for i in range(2_000))
    result = chunk_file("src/test/java/A.java",
                        b"class A {\n" + annotations + b"  @Test\n  void t() {}\n}\n")
    assert table(result)["A.t"][0][1] == "test"
    assert time.perf_counter() - started < 10


def test_no_chunk_is_only_comments_or_annotations() -> None:
    result = parse("ByteString.kt", "okio/src/commonMain/kotlin/okio/Util.kt")
    # An annotation with arguments on its own line joins the function below it.
    assert table(result)["leftRotate"] == [("function", "definition", 36, 38, 38)]
    for chunk in result.chunks:
        rows = [row.strip() for row in chunk.text.splitlines() if row.strip()]
        assert not all(row.startswith(("/*", "*", "//", "@")) for row in rows), chunk
    # A long module statement split into parts keeps its doc comment with its first lines.
    entries = "".join(f'    "entry{i}",\n' for i in range(2_000))
    source = ("/// The default list.\n/// Second line.\n"
              f"pub const DEFAULT: &[&str] = &[\n{entries}];\n").encode()
    parts = chunk_file("src/default_types.rs", source).chunks
    assert len(parts) > 1
    assert all(any(not row.strip().startswith("//") for row in part.text.splitlines())
               for part in parts)


def test_go_test_helpers_in_test_files_are_tests() -> None:
    source = (b"package routes\n\nimport \"testing\"\n\n"
              b"func testRouteOK(t *testing.T, method string) {\n\tt.Log(method)\n}\n\n"
              b"func TestRoutes(t *testing.T) {\n\ttestRouteOK(t, \"GET\")\n}\n\n"
              b"func newRouter() int {\n\treturn 1\n}\n")
    found = table(chunk_file("routes_test.go", source))
    assert found["testRouteOK"][0][1] == found["TestRoutes"][0][1] == "test"
    assert found["newRouter"][0][1] == "definition"
    assert table(chunk_file("routes.go", source))["testRouteOK"][0][1] == "definition"


def test_php_definitions_under_conditionals_belong_to_their_level() -> None:
    result = parse("functions.php", "src/functions.php")
    found = table(result)
    assert found["Acme.helper"] == [("function", "definition", 5, 6, 8)]  # docblock in span
    assert found["Acme.other"][0][:2] == found["Acme.third"][0][:2] == ("function", "definition")
    assert found["Acme.Modern.run"][0][:2] == ("method", "definition")
    echo = next(c for c in result.chunks if c.start_line == 21)
    assert (echo.kind, echo.end_line, echo.symbols) == ("module", 23, ())


def test_a_long_rust_impl_has_no_chunk_of_only_its_header() -> None:
    methods = "".join(f"    pub fn m{i}(&self) -> u32 {{\n        let x = {i};\n        x + 1\n    }}\n\n"
                      for i in range(12))
    source = f"pub struct Store;\n\n#[cfg(feature = \"x\")]\nimpl Store {{\n{methods}}}\n".encode()
    result = chunk_file("src/store.rs", source)
    assert all(c.end_line - c.start_line >= 2 for c in result.chunks if c.kind == "impl")
    impl = next(d for d in result.definitions if d.kind == "impl")
    assert (impl.qualified, impl.start_line, impl.header_line) == ("Store", 3, 4)
    carrier = next(c for c in result.chunks if c.id == impl.chunk_id)
    assert "Store" in carrier.symbols and "Store.m0" in carrier.symbols
    assert carrier.text.startswith("impl Store {")  # the header travels with the member


def test_rust_impls_for_types_without_a_name() -> None:
    # `impl Serialize for ()` / `for !` are named by the trait and `for [T; 0]` by the
    # element type, as ctags names them; before, their members had no container name.
    source = (b"impl<'de> Deserialize<'de> for () {\n    fn deserialize() {}\n}\n\n"
              b"impl Serialize for ! {\n    fn serialize() {}\n}\n\n"
              b"impl<T> Serialize for [T; 0] {\n    fn serialize() {}\n}\n")
    found = table(chunk_file("serde_core/src/ser/impls.rs", source))
    assert found["Deserialize"][0][:3] == ("impl", "definition", 1)
    assert "Deserialize.deserialize" in found and "Serialize.serialize" in found
    assert found["T"][0][:3] == ("impl", "definition", 9)
    assert "T.serialize" in found
