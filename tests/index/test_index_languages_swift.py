"""Swift by its query file: classes, structs, protocols, extensions as impls, roles."""

from __future__ import annotations

from codegold.index import chunk_file
from codegold.index.categories import categorize
from langkit import found, parse


def test_swift_types_members_extensions_and_calls() -> None:
    result = parse("SessionService.swift", "Sources/Auth/SessionService.swift")
    assert result.entry.chunker == "tree-sitter:swift"
    defs = found(result)
    assert defs["SessionService.createSession"] == ("method", "definition", 11, 12, 15)  # doc comment
    assert defs["Session"][:2] == ("class", "definition")
    assert defs["SessionStore"][0] == "interface"
    assert defs["SessionStore.find"][:2] == ("method", "declaration")
    assert defs["SessionService.endAllSessions"][:2] == ("method", "definition")  # in an extension
    assert defs["Token"][0] == "type" and defs["hashToken"][0] == "function"
    assert {r.name for r in result.references} >= {"find", "digest", "revokeAll", "Session"}


def test_swift_tests_by_file_and_name() -> None:
    path = "Tests/AuthTests/SessionServiceTests.swift"
    assert categorize(path, b"import XCTest\n", "swift") == "test"
    source = (b"import XCTest\n\nfinal class SessionServiceTests: XCTestCase {\n"
              b"    func testCreateSession() throws {\n        XCTAssertNotNil(make())\n    }\n"
              b"    func make() -> Int { 1 }\n}\n")
    tests = found(chunk_file(path, source))
    assert tests["SessionServiceTests.testCreateSession"][:2] == ("method", "test")
    assert tests["SessionServiceTests.make"][1] != "test"
