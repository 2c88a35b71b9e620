"""C, C++, PHP and Kotlin by query file: qualified names, roles and spans."""

from __future__ import annotations

import pytest

from codegold.index import chunk_file
from codegold.index.categories import categorize
from codegold.index.grammars import parse_source
from codegold.model.languages import language_of
from langkit import FIXTURES, found, parse


def test_c_functions_types_macros_and_declarations() -> None:
    result = parse("session.c", "src/session.c")
    assert result.entry.chunker == "tree-sitter:c"
    defs = found(result)
    assert defs["make_token"] == ("function", "definition", 18, 19, 22)  # comment included
    assert defs["create_session"][:2] == ("function", "definition")  # pointer declarator
    assert defs["store_save"][:2] == ("function", "declaration")
    assert defs["session_t"][0] == defs["kind"][0] == "type"
    assert defs["MIN"] == ("macro", "definition", 5, 5, 5)  # not the next line
    assert defs["test_create_session"][1] == "definition"
    assert {r.name for r in result.references} >= {"make_token", "store_save", "calloc"}
    tests = found(parse("session.c", "tests/session_test.c"))
    assert tests["test_create_session"][1] == "test"


def test_c_definitions_inside_include_guards_and_ifdefs() -> None:
    source = (b"#ifndef SESSION_H\n#define SESSION_H\n\n#ifdef _WIN32\n"
              b"int win_open(void) { return 0; }\n#else\nint posix_open(void) { return 1; }\n"
              b"#endif\n\nstruct session { int ttl; };\n\n#endif\n")
    result = chunk_file("src/session.c", source)
    defs = found(result)
    assert defs["win_open"] == ("function", "definition", 5, 5, 5)
    assert defs["posix_open"][:2] == ("function", "definition")
    assert defs["session"][0] == "class"


def test_cpp_namespaces_classes_out_of_class_members_and_gtest() -> None:
    result = parse("session_service.cpp", "src/session_service.cpp")
    assert result.entry.chunker == "tree-sitter:cpp"
    defs = found(result)
    assert defs["acme.auth.Store"][:2] == ("class", "definition")
    assert defs["acme.auth.Store.save"][:2] == ("method", "declaration")
    assert defs["acme.auth.SessionService.createSession"] == (
        "method", "definition", 19, 19, 23)
    # The out-of-class definition (`int SessionService::ttl() const`) is the last one.
    assert defs["acme.auth.SessionService.ttl"] == ("method", "definition", 32, 32, 32)
    assert defs["acme.auth.SessionService.makeToken"][2:] == (34, 34, 36)
    assert defs["acme.auth.clamp"][:2] == ("function", "definition")  # under template<>
    assert defs["acme.auth.Kind"][0] == "type" and defs["acme.auth.Options"][0] == "class"
    # gtest macros are tests named Suite.Name, in any file.
    assert defs["SessionServiceTest.CreatesSession"][:2] == ("function", "test")
    assert defs["SessionFixture.RefreshesSession"][1] == "test"
    assert {r.name for r in result.references} >= {"makeToken", "save"}


def test_cpp_attribute_macros_before_declarations_keep_their_definitions() -> None:
    result = parse("session_service.cpp", "include/acme/session_service.h")
    assert result.entry.reason is None  # no syntax error left
    defs = found(result)
    assert defs["acme.widen"] == ("function", "definition", 63, 65, 67)  # ENABLE_IF in <>
    assert defs["acme.version"][:2] == ("function", "declaration")  # ACME_API std::string
    assert defs["acme.Buffer"][:4] == ("class", "definition", 71, 71)  # class ACME_API Buffer
    # A constructor with an initializer list, a destructor, static, two macros in a row.
    for member, header in (("Buffer", 73), ("~Buffer", 76), ("resize", 77), ("grow", 78),
                           ("size", 79)):
        assert defs[f"acme.Buffer.{member}"][:2] == ("method", "definition")
        assert defs[f"acme.Buffer.{member}"][3] == header
    lines = (FIXTURES / "session_service.cpp").read_text().splitlines()
    assert all(line in lines for c in result.chunks for line in c.text.splitlines())


def test_cpp_operators_defaulted_members_specializations_and_linkage() -> None:
    result = parse("session_service.cpp", "include/acme/value.h")
    assert result.entry.reason is None  # ACME_TRY {, unsigned(x), `int x ACME_BUILTIN)`
    defs = found(result)
    assert defs["acme.ignore_unused"][:4] == ("function", "definition", 93, 93)
    assert defs["acme.Value.operator bool"] == ("method", "definition", 100, 100, 100)
    assert defs["acme.Value.operator const char*"][:2] == ("method", "declaration")
    assert defs["acme.Value.operator int"][:4] == ("method", "definition", 112, 112)
    assert defs["acme.Value.~Value"][:4] == ("method", "declaration", 98, 98)  # = delete
    assert defs["acme.Value.get"][2:] == (102, 102, 106)
    assert defs["acme.num_bits"][:4] == ("function", "definition", 114, 114)
    assert defs["LLVMFuzzerTestOneInput"][:4] == ("function", "definition", 118, 118)
    assert defs["Visitor.operator()"][:4] == ("method", "definition", 123, 123)
    assert "MockStore" in defs and not any("MOCK" in name for name in defs)  # a macro call
    spans = [(d.qualified, d.header_line) for d in result.definitions]
    assert ("acme.Value.Value", 97) in spans and ("acme.Value.Value", 99) in spans


def test_cpp_macro_calls_in_define_bodies_and_after_parameter_lists() -> None:
    source = (b"#define ACTION_P9(name, ...) \\\n  GMOCK_INTERNAL_ACTION(name, P9, (__VA_ARGS__))\n\n"
              b"#define ACTION_P10(name, ...) \\\n  GMOCK_INTERNAL_ACTION(name, P10, (__VA_ARGS__))\n\n"
              b"bool Mock::IsNaggy(void* mock_obj)\n    GTEST_LOCK_EXCLUDED_(internal::mu) {\n"
              b"  return true;\n}\n\nvoid check(int x) {\n  if (x) LOG_ERROR(x);\n}\n")
    result = chunk_file("include/gmock/gmock.h", source)
    spans = {(d.qualified, d.header_line) for d in result.definitions}
    # A macro call continuing a #define stays: blanking it ended the macro early and
    # swallowed the next one.
    assert {("ACTION_P9", 1), ("ACTION_P10", 4), ("Mock.IsNaggy", 7), ("check", 12)} <= spans
    assert "LOG_ERROR" in {r.name for r in result.references}  # a call after `if (x)`


def test_definitions_inside_a_syntax_error_node_are_kept() -> None:
    # A preprocessor condition the grammar cannot read makes tree-sitter wrap the whole
    # include guard in one syntax error node; the functions inside it parsed fine and
    # stay definitions, and only the unparsed rows count as syntax errors.
    source = (b"#ifndef ACME_H_\n#if ACME_HAS_INCLUDE(<string_view>) && \\\n"
              b"    (ACME_CPLUSPLUS >= 201703L)\n#endif\n"
              b"  constexpr wide(uint64_t hi, uint64_t lo) : lo_(lo), hi_(hi) {}\n"
              b"void write2digits(char* out, size_t value) {\n}\n"
              b"#if ACME_USE_INT128\n    while ((v >> 64) != 0) {\n#endif\n"
              b"auto to_string(const T& value)\n    -> std::string {\n}\n"
              + b"".join(b"int f%d(int x) {\n    return x + %d;\n}\n" % (i, i) for i in range(20))
              + b"#endif  // ACME_H_\n")
    result = chunk_file("include/acme.h", source)
    assert result.entry.fate == "indexed"
    defs = found(result)
    assert defs["to_string"] == ("function", "definition", 11, 11, 13)
    assert defs["f19"] == ("function", "definition", 71, 71, 73)
    assert {f"f{i}" for i in range(20)} <= set(defs)


def test_php_file_namespace_qualifies_classes_and_phpunit_tests() -> None:
    result = parse("SessionService.php", "src/Auth/SessionService.php")
    assert result.entry.chunker == "tree-sitter:php"
    defs = found(result)
    assert defs["Acme.Auth.SessionService.createSession"] == (
        "method", "definition", 34, 34, 39)
    assert defs["Acme.Auth.SessionService"][2:4] == (23, 26)  # docblock included
    assert defs["Acme.Auth.TokenStore.save"][:2] == ("method", "declaration")
    assert defs["Acme.Auth.TokenStore"][0] == "interface"
    assert defs["Acme.Auth.Expires.ttl"][1] == "definition"
    assert defs["Acme.Auth.create_default_session"][0] == "function"
    assert {r.name for r in result.references} >= {"makeToken", "save", "SessionService"}
    tests = found(parse("SessionServiceTest.php", "src/SessionServiceTest.php"))
    prefix = "Acme.Auth.Tests.SessionServiceTest"
    assert tests[f"{prefix}.testCreateSession"][1] == "test"
    assert tests[f"{prefix}.it_refreshes_a_session"][1] == "test"  # /** @test */


def test_php_braced_namespaces_qualify_their_own_members_only() -> None:
    source = (b"<?php\nnamespace A\\B {\n    class C {\n        function f() {}\n    }\n}\n"
              b"namespace {\n    function g() {}\n}\n")
    defs = found(chunk_file("src/a.php", source))
    assert defs["A.B.C.f"][:2] == ("method", "definition")
    assert defs["g"][:2] == ("function", "definition")


def test_php_test_attribute_inside_the_method_node_makes_a_test() -> None:
    # PHPUnit 10+ `#[Test]` is a child of the method node (not a sibling as a docblock
    # is), alone, in a list or among several groups, in any file.
    source = (b"<?php\nnamespace A;\n\nfinal class UserSpec extends TestCase\n{\n"
              b"    #[Test]\n    public function creates_a_user(): void {}\n\n"
              b"    #[DataProvider('names')]\n    #[Test, Group('slow')]\n"
              b"    public function renames_a_user(string $name): void {}\n\n"
              b"    #[\\PHPUnit\\Framework\\Attributes\\Test]\n    public function deletes(): void {}\n\n"
              b"    #[Group('Test'), TestWith([1])]\n    public function names(): array {}\n}\n")
    defs = found(chunk_file("src/UserSpec.php", source))
    assert defs["A.UserSpec.creates_a_user"] == ("method", "test", 6, 7, 7)
    assert defs["A.UserSpec.renames_a_user"][:2] == ("method", "test")
    assert defs["A.UserSpec.deletes"][:2] == ("method", "test")
    assert defs["A.UserSpec.names"][:2] == ("method", "definition")


def test_php_enum_methods_are_members() -> None:
    source = (b"<?php\nnamespace A;\n\nenum Suit: string\n{\n    case Hearts = 'H';\n\n"
              b"    const Wild = self::Hearts;\n\n    public function color(): string\n    {\n"
              b"        return 'Red';\n    }\n\n    public static function fromChar(string $c): self\n"
              b"    {\n        return self::from($c);\n    }\n}\n")
    defs = found(chunk_file("src/Suit.php", source))
    assert defs["A.Suit"][:4] == ("class", "definition", 4, 4)
    assert defs["A.Suit.color"] == ("method", "definition", 10, 10, 13)
    assert defs["A.Suit.fromChar"][:2] == ("method", "definition")


def test_php_anonymous_classes_in_module_code_hold_their_methods() -> None:
    source = (b"<?php\n\nuse Illuminate\\Database\\Migrations\\Migration;\n\n"
              b"return new class extends Migration\n{\n    public function up(): void\n    {\n"
              b"        Schema::create('users', function ($table) {\n            $table->id();\n"
              b"        });\n    }\n\n    public function down(): void\n    {\n    }\n};\n")
    result = chunk_file("database/migrations/2014_create_users_table.php", source)
    defs = found(result)
    assert defs["up"] == ("method", "definition", 7, 7, 12)
    assert defs["down"][:4] == ("method", "definition", 14, 14)
    # A small one stays one chunk, the `return new class` line included.
    assert [(c.start_line, c.end_line, c.symbols) for c in result.chunks][-1] == (
        5, 17, ("up", "down"))
    source = (b"<?php\n$handler = new class {\n    public function handle() {}\n};\n"
              b"(new class() extends Command {\n    public function signals(): array\n    {\n"
              b"        return [];\n    }\n})\n    ->setCode(fn () => 0)\n    ->run();\n"
              b"function make() {\n    return new class {\n        public function inner() {}\n"
              b"    };\n}\n")
    defs = found(chunk_file("src/app.php", source))
    assert defs["handle"][:4] == ("method", "definition", 3, 3)
    assert defs["signals"][:4] == ("method", "definition", 6, 6)
    assert "inner" not in defs and defs["make"][0] == "function"  # inside a function body


def test_kotlin_classes_objects_and_test_annotations() -> None:
    result = parse("SessionService.kt", "src/main/kotlin/acme/auth/SessionService.kt")
    assert result.entry.chunker == "tree-sitter:kotlin"
    defs = found(result)
    assert defs["TokenStore"][0] == "interface"
    assert defs["TokenStore.save"][:2] == ("method", "declaration")
    assert defs["SessionService.createSession"] == ("method", "definition", 13, 13, 17)
    assert defs["SessionService.default"][0] == "method"  # companion members: class's own
    assert defs["Sessions"][0] == "object" and defs["Sessions.ttl"][0] == "method"
    assert defs["Tokens"][0] == "type" and defs["toToken"][0] == "function"
    # @Test makes a test in any file; an unannotated helper stays a definition.
    assert defs["SessionServiceTest.createsSession"] == ("method", "test", 40, 41, 43)
    assert defs["SessionServiceTest.helper"][1] == "definition"
    assert {r.name for r in result.references} >= {"makeToken", "save", "SessionService"}


@pytest.mark.parametrize(("path", "language"), [
    ("src/a.c", "c"), ("include/a.h", "cpp"), ("src/a.cc", "cpp"), ("src/a.hpp", "cpp"),
    ("src/a.cxx", "cpp"), ("src/A.php", "php"), ("src/A.kt", "kotlin"),
    ("build.gradle.kts", "kotlin"),
])
def test_extensions(path: str, language: str) -> None:
    assert language_of(path) == language


@pytest.mark.parametrize("path", [
    "src/session_test.cc", "src/session_unittest.cpp", "src/test_session.c",
    "src/SessionServiceTest.php", "src/main/SessionServiceTest.kt",
])
def test_test_files_by_convention(path: str) -> None:
    assert categorize(path, b"int x;\n", language_of(path)) == "test"


@pytest.mark.parametrize(("name", "source"), [
    ("a.c", b"int f(void) {" * 3_000),
    ("a.cpp", b"namespace a {" * 3_000),
    ("a.php", b"<?php\nnamespace A;\nnamespace B;\n" + b"function f() {" * 3_000),
    ("a.kt", b"class A {" * 3_000),
    ("a.c", b"#ifdef X\n" * 3_000),
])
def test_broken_and_deep_sources_still_index(name: str, source: bytes) -> None:
    result = chunk_file(f"src/{name}", source)
    assert result.entry.fate in {"indexed", "fallback"}
    assert result.chunks


def test_c_typedefs_name_the_struct_they_wrap_and_function_pointer_types() -> None:
    source = (b"typedef void (callback_fn)(int *, void *);\ntypedef void (*conn_fn)(int);\n"
              b"typedef struct reply {\n    int type;\n} reply_t;\ntypedef int *intp;\n")
    for path in ("src/types.c", "include/types.h"):
        defs = found(chunk_file(path, source))
        assert defs["callback_fn"][0] == defs["conn_fn"][0] == defs["intp"][0] == "type"
        assert defs["reply"] == ("class", "definition", 3, 3, 5)
        assert defs["reply_t"] == ("type", "definition", 3, 5, 5)  # header: its own line


def test_c_typedef_of_the_same_name_and_cpp_friend_functions() -> None:
    source = (b"typedef struct dictEntry {\n    void *key;\n    struct dictEntry *next;\n"
              b"} dictEntry;\n\nclass Adapter : public QObject {\n    friend\n"
              b"    void addRead(void *adapter) {\n        a->addRead();\n    }\n};\n")
    result = chunk_file("adapters/qt.h", source)
    spans = sorted((d.qualified, d.kind, d.header_line) for d in result.definitions)
    # The struct and the type `dictEntry` (its own line, where ctags and readers look).
    assert ("dictEntry", "class", 1) in spans and ("dictEntry", "type", 4) in spans
    assert ("Adapter.addRead", "method", 8) in spans
    ssize = found(chunk_file("include/compat.h", b"#ifdef _MSC_VER\ntypedef intptr_t ssize_t;\n#endif\n"))
    assert ssize["ssize_t"][:4] == ("type", "definition", 2, 2)
    assert all(c.symbols.count("dictEntry") <= 1 for c in result.chunks)


def test_c_header_guard_without_final_newline_keeps_structure() -> None:
    source = b"#ifndef A_H\n#define A_H\nstatic int open_it(void) {\n    return 0;\n}\n#endif"
    result = chunk_file("include/a.h", source)
    assert result.entry.fate == "indexed"
    assert found(result)["open_it"] == ("function", "definition", 3, 3, 5)
    assert all(c.end_line <= 6 for c in result.chunks)  # the added newline is no line


def test_cpp_lone_macro_lines_do_not_swallow_the_namespace() -> None:
    source = (b"#include <string>\n\nFMT_BEGIN_NAMESPACE\nnamespace detail {\n"
              b"int helper(int x) {\n    return x;\n}\n}  // namespace detail\n"
              b"FMT_END_NAMESPACE\n")
    result = chunk_file("include/fmt/args.h", source)
    assert found(result)["detail.helper"] == ("function", "definition", 5, 5, 7)
    lines = source.decode().splitlines()
    assert all(line in lines for c in result.chunks for line in c.text.splitlines())


def test_kotlin_test_annotation_first_or_last_among_several() -> None:
    source = (b'class T {\n    @DisplayName("x")\n    @Test\n    fun a() {}\n\n'
              b'    @Test @Timeout(5)\n    fun b() {}\n}\n')
    defs = found(chunk_file("src/main/kotlin/T.kt", source))
    assert defs["T.a"][1] == defs["T.b"][1] == "test"


def test_php_a_second_namespace_statement_replaces_the_first() -> None:
    source = b"<?php\nnamespace A;\nclass X {}\nnamespace B\\C;\nclass Y {}\n" * 3
    defs = found(chunk_file("src/x.php", source))
    assert set(defs) == {"A.X", "B.C.Y"}


def test_c_return_type_macros_calling_conventions_and_cplusplus_linkage() -> None:
    # `CJSON_PUBLIC(cJSON*) f(...)` wraps the return type (kept: C has no function without
    # one); `int CJSON_CDECL main(void)` puts a calling convention before the name; a C++
    # `extern "C" {` under `#ifdef __cplusplus` is no C and must not swallow the file.
    source = (b"#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
              b"CJSON_PUBLIC(cJSON*) cJSON_CreateArray(void)\n{\n    return NULL;\n}\n\n"
              b"CJSON_PUBLIC(void) cJSON_Delete(cJSON *item)\n{\n}\n\n"
              b"int CJSON_CDECL main(void)\n{\n    return 0;\n}\n\n"
              b"DWORD WINAPI worker(void* arg)\n{\n    return 0;\n}\n\n"
              b"#define CLANG_PUSH _Pragma(\"clang diagnostic push\")\n\n"
              b"#ifdef __cplusplus\n}\n#endif\n")
    defs = found(chunk_file("src/cJSON.c", source))
    assert defs["cJSON_CreateArray"] == ("function", "definition", 5, 5, 8)
    assert defs["cJSON_Delete"] == ("function", "definition", 10, 10, 12)
    assert defs["main"] == ("function", "definition", 14, 14, 17)
    assert defs["worker"] == ("function", "definition", 19, 19, 22)
    assert defs["CLANG_PUSH"][:2] == ("macro", "definition")


def test_c_conditional_branches_that_each_open_a_block() -> None:
    # `#if X` `for (;x;) {` `#else` `for (;;) {` `#endif`: the first branch is read, so
    # the function and the ones after it keep their structure.
    source = (b"void uv__async_io(int events) {\n#if USE_KQUEUE\n  for (;!ready;) {\n#else\n"
              b"  for (;;) {\n#endif\n    events++;\n  }\n}\n\n"
              b"int after(void) {\n  return 1;\n}\n")
    defs = found(chunk_file("src/unix/async.c", source))
    assert defs["uv__async_io"] == ("function", "definition", 1, 1, 9)
    assert defs["after"] == ("function", "definition", 11, 11, 13)


def test_cpp_macro_access_specifiers_try_blocks_and_macro_statements() -> None:
    # `JSON_PRIVATE_UNLESS_TESTED:` is an access specifier; `JSON_TRY` opens a block on the
    # next line; `GMOCK_DEFINE_X_(void, );` at the top level is a macro call, not a
    # prototype. None of them may end the class or swallow what follows.
    source = (b"GMOCK_DEFINE_DEFAULT_ACTION_(void, );  // NOLINT\nGTEST_DECLARE_bool_(flag);\n\n"
              b"class basic_json {\n  JSON_PRIVATE_UNLESS_TESTED:\n    int m_value;\n\n  public:\n"
              b"    int at(int idx) const\n    {\n        JSON_TRY\n        {\n            return idx;\n"
              b"        }\n        JSON_CATCH (std::out_of_range&)\n        {\n            return 0;\n"
              b"        }\n    }\n\n    int size() const { return 0; }\n};\n\n"
              b"int helper(int x) {\n    return x;\n}\n")
    defs = found(chunk_file("include/nlohmann/json.hpp", source))
    assert defs["basic_json"] == ("class", "definition", 4, 4, 22)
    assert defs["basic_json.at"][3:] == (9, 19)
    assert defs["basic_json.size"][3:] == (21, 21)
    assert defs["helper"] == ("function", "definition", 24, 24, 26)


def test_cpp_continued_macro_statement_and_attribute_after_class_macro() -> None:
    # A top-level macro call continued over a backslash line, and `class GTEST_API_
    # [[nodiscard]] Test`: neither may hide the class.
    source = (b"GTEST_DISABLE_MSC_WARNINGS_PUSH_(4251 \\\n/* class A needs dll-interface */)\n\n"
              b"class GTEST_API_ [[nodiscard]] Test {\n public:\n  virtual ~Test();\n"
              b"  static void SetUpTestSuite() {}\n};\n")
    defs = found(chunk_file("include/gtest/gtest.h", source))
    assert defs["Test"] == ("class", "definition", 4, 4, 8)
    assert defs["Test.SetUpTestSuite"][3:] == (7, 7)


def test_c_unity_and_criterion_test_macros_are_tests() -> None:
    source = (b"TEST_GROUP(ProductionCode);\n\nTEST(ProductionCode, FindsIt)\n{\n"
              b"  TEST_ASSERT_EQUAL(0, f(78));\n}\n\nIGNORE_TEST(ProductionCode, Later) {\n}\n\n"
              b"Test(strings, concat) {\n  cr_assert(1);\n}\n\nint helper(int x)\n{\n  return x;\n}\n")
    result = chunk_file("test/test_production.c", source)
    defs = found(result)
    assert defs["ProductionCode.FindsIt"] == ("function", "test", 3, 3, 6)
    assert defs["ProductionCode.Later"][:2] == ("function", "test")
    assert defs["strings.concat"] == ("function", "test", 11, 11, 13)
    assert defs["helper"] == ("function", "definition", 15, 15, 18)
    assert any(c.text.startswith("TEST(ProductionCode, FindsIt)") for c in result.chunks)


def test_cpp_member_structs_and_operators_returning_references() -> None:
    # A class's `struct data {...};` member is a class of its own, and
    # `data& operator=(data&&) = delete;` (a reference return) is a declared operator.
    source = (b"class basic_json {\n  struct data {\n    data() = default;\n"
              b"    data& operator=(data&&) noexcept = delete;\n"
              b"    json_value& operator*(int) const;\n"
              b"    data& operator+=(const data& d) { return *this; }\n  };\n"
              b"  void clear() {}\n};\n")
    spans = {(d.qualified, d.role, d.header_line)
             for d in chunk_file("include/json.hpp", source).definitions}
    assert {("basic_json.data", "definition", 2), ("basic_json.data.operator=", "declaration", 4),
            ("basic_json.data.operator*", "declaration", 5),
            ("basic_json.data.operator+=", "definition", 6),
            ("basic_json.clear", "definition", 8)} <= spans


def test_c_structs_defined_with_a_member_or_a_variable() -> None:
    source = (b"struct outer {\n  struct inner {\n    int x;\n  } in;\n  int z;\n};\n\n"
              b"static struct spawn_fncs_s {\n  int (*addchdir)(void *);\n} spawn_fncs;\n")
    defs = found(chunk_file("src/unix/process.c", source))
    assert defs["outer.inner"] == ("class", "definition", 2, 2, 4)
    assert defs["spawn_fncs_s"] == ("class", "definition", 8, 8, 10)


def test_cpp_top_level_macro_statement_with_an_escaped_character() -> None:
    source = (b"namespace internal {\nGMOCK_DEFINE_DEFAULT_(char, '\\0');\n"
              b"GMOCK_DEFINE_DEFAULT_(void, );  // NOLINT\n\n"
              b"template <typename P>\nstruct negation : std::integral_constant<bool, !P::value> {};\n"
              b"}  // namespace internal\n")
    defs = found(chunk_file("include/gmock/gmock-actions.h", source))
    assert defs["internal.negation"] == ("class", "definition", 5, 6, 6)


def test_cpp_conversion_operator_to_a_function_type_keeps_its_template_arguments() -> None:
    source = (b"struct A {\n  template <typename R>\n  operator Action<R(Args...)>() const {\n"
              b"    return x;\n  }\n  operator bool() const { return true; }\n};\n")
    defs = found(chunk_file("include/a.h", source))
    assert defs["A.operator Action<R(Args...)>"][3:] == (3, 5)
    assert defs["A.operator bool"][3:] == (6, 6)


def test_cpp_test_after_a_comment_ending_in_parentheses_is_no_attribute_macro() -> None:
    # `// Tests Factorial()` ends in `)`; the TEST_F below it is a test, not an attribute
    # macro after a parameter list (`bool f(int x)\n    GTEST_LOCK_EXCLUDED_(mu) {`).
    source = (b"// Tests Factorial()\nTEST_F(IntegerFunctionTest, Factorial) {\n"
              b"  EXPECT_EQ(1, Factorial(-5));\n}\n")
    defs = found(chunk_file("samples/sample5_unittest.cc", source))
    assert defs["IntegerFunctionTest.Factorial"] == ("function", "test", 1, 2, 4)


def test_unions_hold_members_as_structs_do() -> None:
    cpp = (b"union json_value {\n  object_t* object;\n  json_value() = default;\n"
           b"  json_value(bool v) noexcept : boolean(v) {}\n  void destroy(value_t t);\n};\n")
    defs = found(chunk_file("include/json.hpp", cpp))
    assert defs["json_value"][0] == "class"
    assert defs["json_value.json_value"][3:] == (4, 4)
    assert defs["json_value.destroy"][:2] == ("method", "declaration")
    c = b"union addr {\n  int sa;\n  struct path {\n    char pad[4];\n  } p;\n};\n"
    assert found(chunk_file("src/unix/pipe.c", c))["addr.path"] == ("class", "definition", 3, 3, 5)


def test_kotlin_annotation_classes_and_annotations_before_a_class_on_its_line() -> None:
    # The grammar read each of these top-level classes as an annotated expression.
    source = (b"package a\n\n@Retention(RUNTIME) @Target(FUNCTION) public annotation class FromJson\n"
              b"@JsonQualifier\nannotation class Upper\n"
              b"@A @B(x) class Plain\n\n"
              b"@Module\n@InstallIn(X::class)\nclass DatabaseModule {\n  @Qualifier\n"
              b"  annotation class Enabled\n\n  @Provides fun provide(): Boolean = true\n}\n")
    defs = found(chunk_file("src/main/kotlin/a/A.kt", source))
    assert defs["FromJson"][:4] == ("class", "definition", 3, 3)
    assert defs["Upper"][:4] == ("class", "definition", 4, 5)
    assert defs["Plain"][:4] == ("class", "definition", 6, 6)
    assert defs["DatabaseModule.Enabled"][3] == 12
    assert defs["DatabaseModule.provide"][:4] == ("method", "definition", 14, 14)


def test_kotlin_nested_class_with_its_constructor_on_the_next_line() -> None:
    # `class Options\n  private constructor(` inside a class lost the whole file.
    source = (b"class JsonReader {\n  public class Options\n  private constructor(\n"
              b"    internal val strings: Array<out String>,\n  ) {\n"
              b"    fun strings(): List<String> = strings.toList()\n  }\n\n"
              b"  fun peek(): Int = 0\n}\n")
    defs = found(chunk_file("src/main/kotlin/JsonReader.kt", source))
    assert defs["JsonReader.Options"][:4] == ("class", "definition", 2, 2)
    assert defs["JsonReader.Options.strings"][3] == 6
    assert defs["JsonReader.peek"][3] == 9
    # A comment ending in "class Name" keeps the secondary constructor after it.
    source = b"class R {\n  // builds the class Foo\n  constructor(x: Int) : this()\n}\n"
    assert parse_source("kotlin", source) == source


def test_kotlin_class_body_after_a_delegation_and_objects_as_call_receivers() -> None:
    source = (b"class Listener(val c: Int) : Callbacks by noOpDelegate() {\n"
              b"  override fun onPaused() {}\n}\n"
              b"object Registry : Map<String, Int> by mapOf() {\n  fun size2() = 2\n}\n"
              b"val FLOAT_ADAPTER: Adapter<Float> =\n  object : Adapter<Float?>() {\n"
              b"    override fun fromJson(r: Reader): Float = 1f\n  }\n  .nonNull()\n")
    defs = found(chunk_file("src/main/kotlin/L.kt", source))
    assert defs["Listener.onPaused"][:4] == ("method", "definition", 2, 2)
    assert defs["Registry.size2"][3] == 5
    assert defs["FLOAT_ADAPTER"][0] == "object"
    assert defs["FLOAT_ADAPTER.fromJson"][:4] == ("method", "definition", 9, 9)


def test_kotlin_keywords_as_names_and_multi_dollar_strings_keep_the_class() -> None:
    # A call to `open(...)` opening a lambda, a lambda parameter named `override`, a local
    # named `set` and a `$$"..."` string each broke the rest of the class.
    source = (b"class Tabs {\n  fun goTo(p: Int): Tabs = map(a = { open(p) }) { it }\n"
              b"  fun apply(s: Status) = save { override, solved -> put(override, solved) }\n"
              b"  fun fill() {\n    val set = HashSet<Int>()\n    set += 1\n  }\n"
              b'  fun json() {\n    val j = $$"{\\"$foo\\": 1}"\n  }\n'
              b"  fun last() {}\n}\n")
    result = chunk_file("src/main/kotlin/Tabs.kt", source)
    defs = found(result)
    assert defs["Tabs.last"][:4] == ("method", "definition", 11, 11)
    assert {"Tabs.goTo", "Tabs.apply", "Tabs.fill", "Tabs.json"} <= set(defs)
    assert "syntax error" not in (result.entry.reason or "")


def test_cpp_members_defined_under_their_full_scope_behind_macros() -> None:
    source = b"""#include "store/cache.h"

template <typename Lock>
INLINE_API store::detail::cache<Lock>::cache() : size_{0} {}

template <typename Lock>
void INLINE_API store::detail::cache<Lock>::evict(const key &k) {
    drop(k);
}

template <typename Lock>
void INLINE_API
store::detail::cache<Lock>::resize(int n) {
    size_ = n;
}

INLINE_API store::pool &store::pool::operator=(pool other) NO_EXCEPT {
    swap(other);
    return *this;
}

namespace store {
static const char *names[] STORE_NAMES;

INLINE_API void pool::clear() { items_.clear(); }
}  // namespace store
"""
    result = chunk_file("include/store/cache-inl.h", source, revision="r" * 40)
    assert result.entry.reason is None  # no syntax error left
    defs = found(result)
    for name in ("cache", "evict", "resize"):
        assert defs[f"store.detail.cache.{name}"][:2] == ("method", "definition")
    assert defs["store.pool.operator="][:2] == ("method", "definition")
    # inside the namespace block the written scope is the class alone: the same name
    assert defs["store.pool.clear"][:2] == ("method", "definition")


def test_bundled_copies_and_top_level_dependency_folders_are_vendored() -> None:
    for path in ("include/spd/fmt/bundled/format.h", "deps/lua/src/lapi.c",
                 "Pods/Alamofire/Source/Session.swift", "lib/3rdparty/zlib/inflate.c"):
        assert categorize(path, b"int x;\n", language_of(path)) == "vendored", path
    # a folder named deps below the top is a project's own
    assert categorize("src/deps/graph.py", b"x = 1\n", "python") == "source"


def test_c_file_level_tables_are_definitions_and_a_root_test_c_is_a_test() -> None:
    source = b"""#include "net.h"

static netFuncs defaultFuncs = {
    .close = netClose,
    .read = netRead,
};

const char *levelNames[] = {"debug", "info"};

int counter = 0;

static int netRead(int fd) { return 0; }
"""
    defs = found(chunk_file("net.c", source, revision="r" * 40))
    assert defs["defaultFuncs"][:2] == ("variable", "definition")
    assert defs["levelNames"][:2] == ("variable", "definition")
    assert "counter" not in defs  # a plain scalar is no table
    assert categorize("test.c", source, "c") == "test"
    assert categorize("src/tests.cpp", source, "cpp") == "test"
    assert categorize("latest.c", source, "c") == "source"


def test_kotlin_call_of_get_with_arguments_after_a_val_is_no_getter() -> None:
    source = b"""package okay

class Wrapper(val data: ByteArray) {
  fun ByteBuffer.toWrapper(): Wrapper {
    val copy = ByteArray(remaining())
    get(copy)
    return Wrapper(copy)
  }

  fun size(): Int = data.size
}
"""
    result = chunk_file("src/main/kotlin/okay/Wrapper.kt", source, revision="r" * 40)
    assert result.entry.reason is None
    assert {"okay.Wrapper.size", "okay.Wrapper.toWrapper"} <= set(found(result)) or \
        {"Wrapper.size", "Wrapper.toWrapper"} <= set(found(result))


def test_a_c_header_the_cpp_grammar_cannot_read_is_read_as_c() -> None:
    source = b"""#ifndef QUEUE_H
#define QUEUE_H

typedef struct node { struct node *new; int class; } node;

static inline int push(node *restrict this, int template) {
    this->class = template;
    return 0;
}

int pop(node *queue);

#endif
"""
    result = chunk_file("include/queue.h", source, revision="r" * 40)
    assert result.entry.language == "c" and result.entry.reason is None
    assert {"push", "pop", "node"} <= set(found(result))
    cpp = b"namespace q {\nclass Queue { public: int size() const; };\n}\n"
    assert chunk_file("include/q.h", cpp, revision="r" * 40).entry.language == "cpp"


def test_c_upper_case_return_types_are_kept_before_a_function_name() -> None:
    # flex's generated scanners and Unity write a typedef or a type macro in capitals as
    # the return type; read as an attribute macro, it left a function without a type.
    source = (b"typedef struct yy_buffer_state *YY_BUFFER_STATE;\n\n"
              b"YY_BUFFER_STATE yy_scan_buffer  (char * base, int size)\n{\n    return 0;\n}\n\n"
              b"YY_BUFFER_STATE yy_scan_bytes ( const char *bytes, int len );\n\n"
              b"static UNITY_INTERNAL_PTR UnityNumToPtr(const int num)\n{\n    return 0;\n}\n\n"
              b"FMT_API int plain(void) { return 1; }\n\n"
              b"static int WINAPI worker(void *arg) { return 0; }\n")
    defs = found(chunk_file("src/lexer.c", source))
    assert defs["yy_scan_buffer"] == ("function", "definition", 3, 3, 6)
    assert defs["yy_scan_bytes"] == ("function", "declaration", 8, 8, 8)
    assert defs["UnityNumToPtr"] == ("function", "definition", 10, 10, 13)
    # an attribute macro before a type, and a calling convention after one, still go
    assert defs["plain"][:2] == defs["worker"][:2] == ("function", "definition")


def test_cpp_prototypes_returning_a_reference_or_a_pointer_to_a_pointer() -> None:
    # CLI11's string helpers and App::ensure_utf8, as Universal Ctags tags them.
    source = (b"namespace CLI {\nstd::string &ltrim(std::string &str);\n"
              b"std::ostream &format_aliases(std::ostream &out,\n    int wrap);\n"
              b"char **ensure_utf8(char **argv);\n"
              b"class App {\n    char **ensure_utf8(char **argv);\n};\n"
              b"char **App::ensure_utf8(char **argv) {\n    return argv;\n}\n}\n")
    defs = found(chunk_file("include/CLI/StringTools.hpp", source))
    assert defs["CLI.ltrim"] == ("function", "declaration", 2, 2, 2)
    assert defs["CLI.format_aliases"] == ("function", "declaration", 3, 3, 4)
    assert defs["CLI.App.ensure_utf8"] == ("method", "definition", 9, 9, 11)
    assert ("CLI.ensure_utf8", 5) in {(d.qualified, d.header_line)
                                      for d in chunk_file("a.hpp", source).definitions}
    assert ("CLI.App.ensure_utf8", 7) in {(d.qualified, d.header_line)
                                          for d in chunk_file("a.hpp", source).definitions}
    c_source = b"char **split_lines(const char *text);\n"
    assert found(chunk_file("src/lines.c", c_source))["split_lines"][:2] == (
        "function", "declaration")


def test_c_upper_case_types_of_variables_keep_the_functions_after_them() -> None:
    # Unity's own tests: `UNITY_INT8 p0[] = {...};` read without its type broke the
    # function's body, which then swallowed the tests after it.
    source = (b"#define EXPECT_ABORT_BEGIN \\\n    startPutcharSpy();     \\\n"
              b"    if (TEST_PROTECT())    \\\n    {\n\n"
              b"#define VERIFY_FAILS_END \\\n    }                   \\\n    endPutcharSpy();\n\n"
              b"void testNotEqualInts(void)\n{\n    UNITY_INT8 p0[] = {1, 8};\n"
              b"    EXPECT_ABORT_BEGIN\n    TEST_ASSERT_EQUAL_INT(3, 4);\n"
              b"    VERIFY_FAILS_END\n}\n\n"
              b"void testEqualInt8Arrays(void)\n{\n    UNITY_INT8 p0[] = {1, 8, 117, -2};\n"
              b"    TEST_ASSERT_EQUAL_INT8_ARRAY(p0, p0, 1);\n}\n\n"
              b"void testNotEqualInt8Arrays(void)\n{\n    EXPECT_ABORT_BEGIN\n"
              b"    TEST_ASSERT_EQUAL_INT8_ARRAY(p0, p0, 1);\n    VERIFY_FAILS_END\n}\n")
    defs = found(chunk_file("test/tests/testunity.c", source))
    assert defs["testNotEqualInts"] == ("function", "test", 10, 10, 16)
    assert defs["testEqualInt8Arrays"] == ("function", "test", 18, 18, 22)
    assert defs["testNotEqualInt8Arrays"] == ("function", "test", 24, 24, 29)
    assert defs["EXPECT_ABORT_BEGIN"][0] == defs["VERIFY_FAILS_END"][0] == "macro"


def test_c_conditionals_without_else_that_close_each_others_blocks() -> None:
    # jq's printer: one `#ifdef` opens an `else` block, a later one closes it; read as
    # two complete statements they broke the function, which swallowed the file's rest.
    source = (b"static void dump_term(jv x, int flags) {\n  switch (jv_get_kind(x)) {\n"
              b"  case JV_KIND_NUMBER: {\n    if (jvp_number_is_nan(x)) {\n"
              b"      dump_term(jv_null(), flags);\n    } else {\n#ifdef USE_DECNUM\n"
              b"      const char * literal_data = jv_number_get_literal(x);\n"
              b"      if (literal_data) {\n        put_str(literal_data);\n      } else {\n"
              b"#endif\n        double d = jv_number_value(x);\n        put_str(jvp_dtoa_fmt(d));\n"
              b"      }\n#ifdef USE_DECNUM\n    }\n#endif\n    break;\n  }\n  }\n}\n\n"
              b"void jv_dumpf(jv x, int flags) {\n  dump_term(x, flags);\n}\n\n"
              b"#ifdef __cplusplus\nextern \"C\" {\n#endif\nint after(void) { return 0; }\n")
    for path in ("src/jv_print.c", "src/jv_print.cpp"):
        defs = found(chunk_file(path, source))
        assert defs["dump_term"][2:] == (1, 1, 22), path
        assert defs["jv_dumpf"] == ("function", "definition", 24, 24, 26), path
        assert defs["after"][:2] == ("function", "definition"), path
