"""Hostile sources for what Go, Rust, Python, Java, Kotlin and PHP define (struct fields,
impl blocks, conditionals whose branches are flattened, source fixes before parsing,
test annotations): `codegold index parse` finishes in bounded time and memory with
bounded chunks, consistent spans and no traceback; the files beside the input survive."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from hostilekit import assert_no_traceback, assert_sentinels, plant_sentinels, run_cli

MAX_TEXT = 8_000 + 2 * 600 + 16  # chunk limit plus repeated headers (drafts.py)


def _lines(template: bytes, count: int) -> bytes:
    return b"".join(template.replace(b"#", b"%d" % i) for i in range(count))


CASES: dict[str, tuple[str, Callable[[], bytes]]] = {
    "go-field-flood": ("pkg/big.go", lambda: b"package big\n\ntype S struct {\n"
                       + _lines(b"\tF# int `json:\"f#\"`\n", 30_000) + b"}\n"),
    "go-field-names-one-line": ("pkg/names.go", lambda: b"package n\n\ntype S struct {\n\t"
                                + b", ".join(b"f%d" % i for i in range(30_000)) + b" int\n}\n"),
    "go-nested-anonymous-structs": ("pkg/nest.go", lambda: b"package n\n\ntype S "
                                    + b"struct { A " * 3_000 + b"int" + b" }" * 3_000 + b"\n"),
    "rust-impl-flood": ("src/impls.rs", lambda: _lines(b"impl T# { fn f(&self) {} }\n", 10_000)),
    "rust-mod-declarations": ("src/lib.rs", lambda: _lines(b"pub mod m#;\n", 30_000)),
    "python-if-flood": ("pkg/ifs.py", lambda: _lines(b"if X#:\n    def f#(): pass\n", 3_000)),
    "python-if-nest": ("pkg/nest.py", lambda: b"".join(b" " * i + b"if X:\n" for i in range(400))
                       + b" " * 400 + b"def f(): pass\n"),
    "python-try-chain": ("pkg/try.py", lambda: b"try:\n    import a\n"
                         + _lines(b"except E#:\n    def f#(): pass\n", 5_000)),
    "php-brace-nest": ("src/f.php", lambda: b"<?php\nif (1)\n" + b"{\n" * 5_000
                       + b"function f() {}\n" + b"}\n" * 5_000),
    "php-elseif-chain": ("src/g.php", lambda: b"<?php\nif (0) {}\n"
                         + _lines(b"elseif ($x == #) { function f#() {} }\n", 5_000)),
    "kotlin-actual-flood": ("src/A.kt", lambda: b"class A\n" + b"internal " * 20_000
                            + b"actual constructor(val x: Int)\n"),
    "kotlin-accessor-annotations": ("src/B.kt", lambda: b"class B {\n  val size\n"
                                    + b"    @JvmName(\"s\")\n" * 20_000 + b"    get() = 1\n}\n"),
    "kotlin-long-annotation-name": ("src/C.kt", lambda: b"@" + b"a" * 1_000_000 + b"\n"),
    "java-test-annotation-flood": ("src/test/java/T.java", lambda: b"class T {\n"
                                   + b"  @Test\n" * 20_000 + b"  void t() {}\n}\n"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_language_source_parses_within_bounds(case: str, tmp_path: Path) -> None:
    repo_path, make = CASES[case]
    source = tmp_path / "input" / Path(repo_path).name
    planted = plant_sentinels(source.parent)
    data = make()
    source.write_bytes(data)
    proc = run_cli("index", "parse", source, "--path", repo_path, "--json", timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["entry"]["path"] == repo_path
    lines = data.count(b"\n") + 1
    ids = {chunk["id"] for chunk in result["chunks"]}
    for chunk in result["chunks"]:
        assert len(chunk["text"]) <= MAX_TEXT
        assert 1 <= chunk["start_line"] <= chunk["end_line"] <= lines
    for definition in result["definitions"]:
        assert definition["start_line"] <= definition["header_line"] <= definition["end_line"]
        assert definition["chunk_id"] in ids
    assert_sentinels(planted)
