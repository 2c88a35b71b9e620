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
