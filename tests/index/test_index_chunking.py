"""One fixture per language: symbols, roles and spans from chunk_file."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from codegold.index import chunk_file
from codegold.index.records import FileChunks

FIXTURES = Path(__file__).parent / "fixtures"


def parse(fixture: str, path: str) -> FileChunks:
    return chunk_file(path, (FIXTURES / fixture).read_bytes(), revision="r" * 40)


def defs(result: FileChunks) -> dict[str, tuple[str, str, int, int]]:
    return {d.qualified: (d.kind, d.role, d.start_line, d.end_line) for d in result.definitions}


def chunk_of(result: FileChunks, qualified: str) -> str:
    chunk_id = next(d.chunk_id for d in result.definitions if d.qualified == qualified)
    return next(c.id for c in result.chunks if c.id == chunk_id)


def test_typescript_methods_get_own_chunks_with_class_header() -> None:
    result = parse("session-service.ts", "src/auth/session-service.ts")
    assert result.entry.fate == "indexed"
    assert result.entry.chunker == "tree-sitter:typescript"
    found = defs(result)
    assert found["SessionService.createSession"] == ("method", "definition", 9, 16)
    assert found["SessionService"] == ("class", "definition", 3, 37)  # doc comment included
    assert found["validateRefreshToken"][:2] == ("function", "definition")
    assert found["Session"][0] == "interface"
    assert found["makeToken"][0] == "function"
    by_symbol = {c.symbol: c for c in result.chunks}
    method = by_symbol["SessionService.createSession"]
    assert (method.start_line, method.end_line, method.kind, method.role) == (9, 16, "method",
                                                                              "definition")
    assert method.text.startswith("export class SessionService {\n  async createSession(")
    header = by_symbol["SessionService"]
    assert method.parent_id == header.id
    assert header.start_line == 3  # the doc comment travels with the class
    calls = {(r.name, r.line) for r in result.references}
    assert ("validateRefreshToken", 10) in calls and ("makeToken", 13) in calls
    ref = next(r for r in result.references if r.name == "makeToken")
    assert ref.chunk_id == method.id


def test_python_small_class_stays_whole_and_module_code_is_call_site() -> None:
    result = parse("session_service.py", "src/auth/session_service.py")
    found = defs(result)
    assert found["SessionService.create_session"] == ("method", "definition", 19, 24)
    assert found["SessionService.make_token"] == ("method", "definition", 15, 17)
    assert found["DEFAULT_TTL"] == ("variable", "definition", 4, 4)
    assert found["is_expired"] == ("function", "definition", 27, 28)
    roles = {c.symbol: c.role for c in result.chunks}
    assert roles["SessionService"] == "definition"
    main_block = result.chunks[-1]
    assert (main_block.start_line, main_block.role) == (31, "call_site")
    whole = next(c for c in result.chunks if c.symbol == "SessionService")
    assert "SessionService.create_session" in whole.symbols


def test_module_code_defining_a_name_with_a_factory_is_a_definition() -> None:
    # Calls inside the statement that defines a name make that name (a factory-made
    # class); calls outside any definition are uses, and make module code a call site.
    factory = (b'import * as core from "./core";\n\n'
               b'export const ZodObject = core.$constructor("ZodObject", (inst, def) => {\n'
               b'  ZodType.init(inst, def);\n  inst.parse = (p) => check(p);\n'
               b'  inst.shape = () => read(def);\n});\n')
    made = next(c for c in chunk_file("src/schemas.ts", factory).chunks
                if c.symbol == "ZodObject")
    assert made.role == "definition"
    script = (b'import { serve } from "./http";\n\nconst config = load();\n'
              b'serve(config);\nlisten(config.port);\n')
    main = next(c for c in chunk_file("src/main.ts", script).chunks if c.symbol == "config")
    assert main.role == "call_site"


def test_tsx_component_and_class() -> None:
    result = parse("Login.tsx", "web/Login.tsx")
    found = defs(result)
    assert found["LoginForm"] == ("function", "definition", 3, 10)
    assert found["LoginPage.render"] == ("method", "definition", 13, 15)
    assert result.entry.chunker == "tree-sitter:tsx"


def test_javascript_class_function_and_constant() -> None:
    result = parse("cart.js", "lib/cart.js")
    found = defs(result)
    assert found["Cart.total"] == ("method", "definition", 13, 15)
    assert found["price"] == ("function", "definition", 18, 20)
    assert found["TAX"][0] == "variable"
    assert {r.name for r in result.references} >= {"price", "push", "reduce"}


def test_go_methods_are_qualified_by_receiver() -> None:
    result = parse("server.go", "server/server.go")
    found = defs(result)
    assert found["Server.Handle"] == ("method", "definition", 15, 21)  # doc comment included
    assert found["Server"][0] == "class"
    assert found["Store"][0] == "interface"
    assert found["NewToken"] == ("function", "definition", 23, 26)
    handle = next(c for c in result.chunks if c.symbol == "Server.Handle")
    assert handle.start_line == 15  # doc comment attached


def test_java_members_and_interface_declarations() -> None:
    result = parse("SessionService.java", "src/main/java/com/acme/auth/SessionService.java")
    found = defs(result)
    assert found["SessionService.createSession"] == ("method", "definition", 13, 17)
    assert found["SessionService.Store"][0] == "interface"


def test_rust_impl_methods_and_trait_declarations() -> None:
    result = parse("lib.rs", "src/lib.rs")
    found = defs(result)
    assert found["SessionStore.create_session"] == ("method", "definition", 17, 21)
    assert found["Store.save"] == ("method", "declaration", 9, 9)
    assert found["make_token"] == ("function", "definition", 24, 26)
    assert {r.name for r in result.references} >= {"make_token", "insert", "format"}


@pytest.mark.parametrize(("path", "role"), [
    ("tests/test_session.py", "test"),
    ("src/gen/api_pb2.py", "generated"),
    ("vendor/lib/session.py", "vendored"),
    ("app/migrations/0001_initial.py", "migration"),
    ("alembic/versions/abc_add.py", "migration"),
])
def test_file_category_decides_role(path: str, role: str) -> None:
    result = parse("session_service.py", path)
    assert {c.role for c in result.chunks} == {role}
    assert {d.role for d in result.definitions} <= {"definition", "declaration"}


def test_generated_marker_in_content_wins_over_test_path() -> None:
    data = b"# Code generated by protoc. DO NOT EDIT.\ndef f():\n    return 1\n"
    result = chunk_file("tests/test_gen.py", data)
    assert result.entry.category == "generated"
    assert result.chunks[0].role == "generated"


def test_declaration_files_yield_declarations() -> None:
    data = b"export declare function login(user: string): Promise<void>;\n"
    result = chunk_file("types/auth.d.ts", data)
    assert result.definitions[0].role == "declaration"
    assert result.chunks[0].role == "declaration"
    stub = chunk_file("pkg/auth.pyi", b"def login(user: str) -> None: ...\n")
    assert stub.definitions[0].role == "declaration"


def test_oversized_function_splits_with_signature_repeated() -> None:
    body = "".join(f"    value_{i} = compute({i})\n" for i in range(450))
    data = f"def huge(a, b):\n{body}    return a\n".encode()
    result = chunk_file("src/huge.py", data)
    parts = [c for c in result.chunks if c.symbol == "huge"]
    assert len(parts) >= 3
    assert all(c.text.startswith("def huge(a, b):") for c in parts)
    assert all(c.has_signature for c in parts)
    assert parts[0].start_line == 1 and parts[-1].end_line == 452
    assert all(c.parent_id == parts[0].id for c in parts[1:])
    # parts tile the function without gaps or overlap
    for before, after in itertools.pairwise(parts):
        assert after.start_line == before.end_line + 1


def test_markdown_sections_and_config_keys() -> None:
    md = b"# Title\nintro\n\n## Install\npip install x\n\n```\n# not a heading\n```\n## Use\nrun\n"
    result = chunk_file("README.md", md)
    assert [c.symbol for c in result.chunks] == ["Title", "Install", "Use"]
    assert {c.role for c in result.chunks} == {"docs"}
    config = chunk_file("deploy/app.yaml", b"server:\n  port: 8080\ndatabase:\n  url: x\n")
    assert config.chunks[0].symbols == ("server", "database")
    assert config.chunks[0].role == "config"


def test_hostile_content_becomes_inventory_reasons() -> None:
    binary = chunk_file("assets/blob.dat", b"abc\0def")
    assert (binary.entry.fate, binary.entry.category, binary.chunks) == ("skipped", "binary", ())
    latin = chunk_file("src/latin.py", "def cafe():\n    return 'é'\n".encode("latin-1"))
    assert latin.entry.reason is not None and "invalid UTF-8" in latin.entry.reason
    assert latin.definitions  # still parsed structurally
    one_line = chunk_file("src/min.js", b"var a=1;" * 262_144)  # one 2 MB line
    assert one_line.entry.fate == "fallback" and one_line.entry.chunker == "lines"
    assert max(len(c.text) for c in one_line.chunks) <= 8_000
    assert len(one_line.chunks) == 2 * 1024 * 1024 // 8_000 + 1
    broken = chunk_file("src/broken.py", b"def (((:\n  ][\n" * 40)
    assert broken.entry.fate == "fallback" and "syntax error" in (broken.entry.reason or "")
    nested = chunk_file("src/deep.py", ("x = " + "[" * 3000 + "]" * 3000 + "\n").encode())
    assert nested.entry.fate in ("indexed", "fallback") and nested.chunks
    empty = chunk_file("src/empty.py", b"")
    assert (empty.entry.fate, empty.entry.chunks) == ("indexed", 0)


def test_chunk_ids_are_deterministic_and_blob_sha_matches_git() -> None:
    data = (FIXTURES / "lib.rs").read_bytes()
    first, second = chunk_file("src/lib.rs", data), chunk_file("src/lib.rs", data)
    assert [c.id for c in first.chunks] == [c.id for c in second.chunks]
    assert len({c.id for c in first.chunks}) == len(first.chunks)
    moved = chunk_file("src/other.rs", data)
    assert not {c.id for c in moved.chunks} & {c.id for c in first.chunks}
    import hashlib
    expected = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    assert first.entry.blob_sha == expected


def test_spans_never_point_past_the_last_line() -> None:
    # A trailing line continuation makes tree-sitter end its error node one row after the
    # file's last line (pylint's functional tests hold such files); it once crashed the build.
    for data in (b'"""doc."""\n# +2: [syntax-error]\n""\\\n',
                 b'def f():\n    return 1\n""\\\n',
                 b'def f():\n    return 1\n""\\'):
        lines = data.decode().count("\n") + (not data.endswith(b"\n"))
        result = chunk_file("t.py", data)
        assert result.chunks, data
        assert all(1 <= c.start_line <= c.end_line <= lines for c in result.chunks), data
        assert all(d.end_line <= lines for d in result.definitions), data


@pytest.mark.parametrize(("path", "category"), [
    ("src/session.py", "source"),
    ("docs/conf.py", "docs"),
    ("doc/en/example/multipython.py", "docs"),
    ("examples/quickstart/main.go", "docs"),
    ("docs/guide.md", "docs"),
    ("docs/settings.yaml", "docs"),
    ("tests/docs/test_x.py", "test"),
    ("src/exampleservice/api.py", "source"),
])
def test_code_under_docs_and_examples_is_a_documentation_example(path: str, category: str) -> None:
    from codegold.index.categories import categorize
    from codegold.model.languages import language_of

    assert categorize(path, b"x = 1\n", language_of(path)) == category


# --- per-language definitions, header lines and roles (query files) -----------------------

def headers(result: FileChunks) -> dict[str, tuple[str, str, int]]:
    """qualified name -> (kind, role, header line)."""
    return {d.qualified: (d.kind, d.role, d.header_line) for d in result.definitions}


def assert_no_comment_only_chunk(result: FileChunks, comment_prefixes: tuple[str, ...]) -> None:
    for chunk in result.chunks:
        lines = [line.strip() for line in chunk.text.splitlines() if line.strip()]
        assert not all(line.startswith(comment_prefixes) for line in lines), chunk


def test_javascript_commonjs_definitions_are_found() -> None:
    result = parse("response.js", "lib/response.js")
    found = headers(result)
    assert found["res.send"] == ("method", "definition", 12)
    assert found["json"][0] == "function" and found["sendFile"][0] == "function"
    assert found["Router.route"] == ("method", "definition", 30)  # X.prototype.m -> X.m
    assert found["host"][2] == 34  # defineGetter(req, 'host', function host() {})
    assert found["format"][0] == found["parse"][0] == "function"
    # An import binds a name; it never defines it.
    assert "send" not in found and "mime" not in found
    send = next(d for d in result.definitions if d.name == "send")
    assert (send.qualified, send.start_line) == ("res.send", 9)  # its doc comment included
    assert {c.role for c in result.chunks if c.symbols} <= {"definition", "call_site"}
    assert any(c.symbol == "res.send" and c.role == "definition" for c in result.chunks)
    assert_no_comment_only_chunk(result, ("/*", "*", "//"))


def test_javascript_module_exports_object_members_are_symbols() -> None:
    result = parse("helpers.js", "lib/utils.js")
    assert set(headers(result)) == {"isAbsolute", "normalize", "flatten"}
    whole = result.chunks[0]
    assert (whole.start_line, whole.end_line, whole.role) == (1, 9, "definition")


def test_typescript_interface_signatures_and_object_literal_methods() -> None:
    result = parse("api.ts", "src/api.ts")
    found = headers(result)
    assert found["SessionApi"] == ("interface", "definition", 4)
    assert found["SessionApi.create"] == ("method", "declaration", 5)
    assert found["SessionApi.refresh"] == ("method", "declaration", 6)
    assert "SessionApi.ttl" not in found  # a property, not a function
    assert found["api.get"] == ("method", "definition", 11)
    assert found["api.post"][:2] == ("method", "definition")
    assert found["Store.save"][1] == "declaration"
    assert found["Token"][0] == "type"
    spans = defs(result)
    assert spans["SessionApi"][2:] == (3, 8)  # JSDoc included in the span


def test_java_header_lines_annotations_nested_members_and_enum_bodies() -> None:
    result = parse("Annotated.java", "src/main/java/com/acme/json/Annotated.java")
    found = headers(result)
    assert found["SerializedName"] == ("interface", "definition", 7)
    assert found["SerializedName.value"] == ("method", "declaration", 8)
    assert found["SerializedName.alternate"][1] == "declaration"
    assert found["Holder.Entry.key"] == ("method", "definition", 14)
    assert found["Op.PLUS"][0] == "constant" and found["Op.PLUS.apply"][2] == 20
    load = next(d for d in result.definitions if d.qualified == "Service.load")
    assert (load.start_line, load.header_line, load.end_line) == (26, 31, 33)
    assert_no_comment_only_chunk(result, ("/*", "*", "//", "@"))


def test_rust_tests_attributes_trait_items_and_macros() -> None:
    result = parse("store.rs", "src/store.rs")
    found = headers(result)
    assert found["TokenStore"] == ("class", "definition", 5)
    assert defs(result)["TokenStore"][2] == 3  # doc comment and #[derive] in the span
    assert found["Backend.Item"] == ("type", "declaration", 11)
    assert found["Backend.put"] == ("method", "declaration", 12)
    assert found["token"] == ("macro", "definition", 16)
    assert found["add"] == ("function", "definition", 23)
    assert found["add_works_at_top_level"] == ("function", "test", 28)
    assert found["tests"][1] == found["tests.helper"][1] == "test"
    assert found["tests.it_panics"] == ("function", "test", 42)
    by_symbol = {c.symbol: c for c in result.chunks}
    assert by_symbol["add"].role == "definition"
    assert by_symbol["add_works_at_top_level"].role == "test"
    assert by_symbol["tests.it_panics"].start_line == 40  # both attributes travel with it
    assert_no_comment_only_chunk(result, ("//", "#["))


def test_go_doc_comments_join_declarations_and_test_files_hold_tests() -> None:
    result = parse("handler_test.go", "server/handler_test.go")
    found = headers(result)
    assert found["TestHandle"] == ("function", "test", 9)
    assert defs(result)["TestHandle"][2] == 7  # both doc comment lines
    assert found["BenchmarkHandle"][1] == "test"
    assert found["fakeStore.Save"] == ("method", "definition", 23)
    assert found["A"][0] == "type" and found["B"][0] == "interface"
    assert_no_comment_only_chunk(result, ("//",))
    source = headers(parse("handler_test.go", "server/handler.go"))
    assert source["TestHandle"][1] == "definition"  # the convention holds in test files only


def test_python_module_callables_and_test_conventions() -> None:
    result = parse("handlers.py", "app/handlers.py")
    found = headers(result)
    assert found["handler"] == ("variable", "definition", 6)
    assert found["slugify"] == ("function", "definition", 7)
    assert found["load"] == ("function", "definition", 15)  # the def line, not @cache
    assert defs(result)["load"][2] == 14
    assert all(role == "definition" for _, role, _ in found.values())
    handler_chunk = next(c for c in result.chunks if "handler" in c.symbols)
    assert handler_chunk.role == "definition"
    tests = headers(parse("handlers.py", "tests/test_handlers.py"))
    assert tests["TestLoad"][1] == tests["TestLoad.test_load_returns_value"][1] == "test"
    assert tests["test_slugify"][1] == "test"
    assert tests["load"][1] == "definition"


def test_ruby_by_query_file() -> None:
    result = parse("session.rb", "app/auth/session.rb")
    assert result.entry.chunker == "tree-sitter:ruby"
    found = headers(result)
    assert found["Auth.SessionService"] == ("class", "definition", 5)
    assert found["Auth.SessionService.create_session"] == ("method", "definition", 13)
    assert found["Auth.SessionService.make_token"][0] == "method"
    assert found["Auth.SessionService.expired?"][0] == "method"
    assert defs(result)["Auth.SessionService.create_session"][2] == 12  # comment included
    assert found["TestSessionService.test_create_session"][1] == "definition"
    tests = headers(parse("session.rb", "test/session_test.rb"))
    assert tests["TestSessionService.test_create_session"][1] == "test"
    assert {r.name for r in result.references} >= {"save", "make_token"}


def test_csharp_by_query_file() -> None:
    result = parse("SessionService.cs", "src/Auth/SessionService.cs")
    assert result.entry.chunker == "tree-sitter:csharp"
    found = headers(result)
    assert found["Acme.Auth.IStore.Save"] == ("method", "declaration", 8)
    assert found["Acme.Auth.SessionService.CreateSession"] == ("method", "definition", 22)
    assert defs(result)["Acme.Auth.SessionService.CreateSession"][2] == 21  # [Obsolete]
    assert found["Acme.Auth.SessionService.MakeToken"][1] == "definition"
    assert found["Acme.Auth.Kind"][0] == "type"
    assert {r.name for r in result.references} >= {"MakeToken", "Save"}


def test_a_long_line_keeps_structure_unless_the_file_is_minified() -> None:
    blob = "x" * 9_000
    data = f'DATA = "{blob}"\n\n\ndef load():\n    return DATA\n'.encode()
    result = chunk_file("src/data.py", data)
    assert result.entry.fate == "indexed"
    assert headers(result)["load"] == ("function", "definition", 4)
    assert max(len(c.text) for c in result.chunks) <= 8_000  # the long line is cut
    minified = chunk_file("dist/app.js", b"var a=1;" * 1_000 + b"\n" + b"function f(){}\n")
    assert minified.entry.fate == "fallback" and "minified" in (minified.entry.reason or "")


def test_a_doc_comment_longer_than_a_chunk_ends_its_first_part_with_the_signature() -> None:
    # date-fns documents `format` with a 280-line JSDoc table: no part may be comment only.
    doc = "".join(f" * | token {i:3} | {'x' * 60} |\n" for i in range(300))
    data = (f"/**\n * Format the date.\n{doc} */\nexport function format(\n  date: Date,\n"
            f"): string {{\n  return String(date);\n}}\n").encode()
    result = chunk_file("src/format/index.ts", data)
    parts = [c for c in result.chunks if c.symbol == "format"]
    assert len(parts) >= 3
    assert all("export function format(" in c.text for c in parts)
    assert parts[0].text.startswith("/**\n * Format the date.")
    assert parts[0].text.rstrip().endswith("): string {")
    assert all(len(c.text) <= 8_000 + 2 * 600 for c in parts)


def test_a_long_string_full_of_semicolons_and_braces_is_data_not_packed_code() -> None:
    # rich's tests compare output with ANSI escapes (`\x1b[1;38;2;...m`), JSON or CSS on
    # one long line: punctuation inside a string literal or comment says nothing of code.
    ansi = "\\x1b[1;38;2;227;227;221;48;2;39;40;34m x \\x1b[0m" * 200
    data = (f"def render():\n    return 1\n\n\ndef test_render():\n    expected = '{ansi}'\n"
            f"    assert render() == expected\n\n\n"
            f"def test_more():\n    text = '''\n{ansi}\n'''  # {'{;}' * 2_000}\n"
            f"    assert text\n").encode()
    result = chunk_file("tests/test_render.py", data)
    assert result.entry.fate == "indexed"
    roles = {d.qualified: d.role for d in result.definitions}
    assert roles == {"render": "definition", "test_render": "test", "test_more": "test"}
    css = "{color:red;margin:0}" * 400
    styled = chunk_file("src/theme.ts", f'export const CSS = "{css}";\n\n'
                        f'export function theme() {{\n  return CSS;\n}}\n'.encode())
    assert styled.entry.fate == "indexed" and "theme" in defs(styled)


def test_parsers_are_per_thread() -> None:
    import threading

    from codegold.index.grammars import parser

    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(parser("python")))
    thread.start()
    thread.join()
    assert seen[0] is not parser("python")
    assert parser("python") is parser("python")


def test_fingerprint_covers_query_files(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import resources

    from codegold.index import fingerprint

    before = fingerprint.chunker_fingerprint()
    real = resources.files

    class Patched:
        def __init__(self, inner: object) -> None:
            self.inner = inner

        def joinpath(self, name: str) -> object:
            target = self.inner.joinpath(name)  # type: ignore[attr-defined]
            if name.endswith("python.tags.scm"):
                return _Bytes(target.read_bytes() + b"\n; changed\n")
            return target

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

    monkeypatch.setattr(fingerprint.resources, "files", lambda pkg: Patched(real(pkg)))
    assert fingerprint.chunker_fingerprint() != before



def test_fingerprint_leaves_out_the_build_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build moves rows around without changing them: none of ``index/build/`` (nor
    the executors it uses) may move the chunker version when it is edited."""
    from importlib import resources

    from codegold.index import fingerprint

    read: list[str] = []
    real = resources.files

    class Recording:
        def __init__(self, inner: object) -> None:
            self.inner = inner

        def joinpath(self, name: str) -> object:
            read.append(name)
            return self.inner.joinpath(name)  # type: ignore[attr-defined]

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

    monkeypatch.setattr(fingerprint.resources, "files", lambda pkg: Recording(real(pkg)))
    fingerprint.chunker_fingerprint()
    assert "chunker.py" in read
    assert not [name for name in read if name.startswith(("build", "pool"))]

class _Bytes:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read_bytes(self) -> bytes:
        return self.data


def test_javascript_iife_body_definitions_and_leading_comment() -> None:
    data = (b"// A browser script.\n// Second line.\n\n(function () {\n  'use strict';\n"
            b"  var state = {};\n  function render(rows) {\n    return rows.length;\n  }\n"
            + b"".join(b"  state.k%d = %d;\n" % (i, i) for i in range(70)) + b"})();\n")
    result = chunk_file("web/app.js", data)
    assert headers(result)["render"] == ("function", "definition", 7)
    assert_no_comment_only_chunk(result, ("//",))
    long_call = (b"// Configure the app.\n\nconfigure({\n"
                 + b"".join(b"  k%d: %d,\n" % (i, i) for i in range(70)) + b"});\n")
    assert_no_comment_only_chunk(chunk_file("web/setup.js", long_call), ("//",))


def test_a_toml_table_header_starts_the_chunk_of_its_keys() -> None:
    # Long enough to be cut; the pytest table's header must be in the chunk of its keys,
    # never the last line of the chunk before them.
    deps = "".join(f'  "package-{i}>=1",\n' for i in range(70))
    tools = "".join(f"[tool.other{i}]\nflag = true\n\n" for i in range(30))
    text = (f'[project]\nname = "x"\ndependencies = [\n{deps}]\n\n'
            f'[tool.pytest.ini_options]\ntestpaths = ["tests"]\nfilterwarnings = ["error"]\n\n'
            f"{tools}")
    result = chunk_file("pyproject.toml", text.encode())
    assert len(result.chunks) > 1
    holding = [c for c in result.chunks if "[tool.pytest.ini_options]" in c.text]
    assert len(holding) == 1
    chunk = holding[0]
    assert "filterwarnings" in chunk.text and "tool.pytest.ini_options" in chunk.symbols
    for part in result.chunks:
        assert not part.text.rstrip().splitlines()[-1].startswith("["), part.text
    # A table longer than a chunk repeats its header in every later window.
    long_table = "[tool.long]\n" + "".join(f"key_{i} = {i}\n" for i in range(200))
    parts = chunk_file("big.toml", long_table.encode()).chunks
    assert len(parts) >= 3 and all(p.text.startswith("[tool.long]") for p in parts)


def test_toml_arrays_of_arrays_are_neither_tables_nor_keys() -> None:
    # tox's `commands = [["mypy"], ["pyright", "--verifytypes", "click"]]` written over
    # lines: the inner arrays look like table headers, and `x = 1` inside a multi-line
    # string array is not a key of the table.
    tools = "".join(f"[tool.other{i}]\nflag = true\n\n" for i in range(90))
    text = ('[tool.tox.env.typing]\ncommands = [\n    ["mypy"],\n'
            '    ["pyright", "--verifytypes", "click"]\n]\nargs = [\n    "x = 1",\n]\n'
            'inline = { a = 1, b = [2, 3] }\nafter = true\n\n' + tools)
    result = chunk_file("pyproject.toml", text.encode())
    assert len(result.chunks) > 1
    symbols = [s for c in result.chunks for s in c.symbols]
    assert "tool.tox.env.typing" in symbols and "after" in symbols and "inline" in symbols
    assert not any("mypy" in s or "pyright" in s or s == "x" for s in symbols), symbols
    first = result.chunks[0]
    assert first.text.startswith("[tool.tox.env.typing]") and "after = true" in first.text
