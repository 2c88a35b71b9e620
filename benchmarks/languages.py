"""Definition recall and precision of codegold's structural chunker against Universal Ctags.

Walks the files of a local directory (a checkout; nothing is fetched), chunks each file
of a structural language with ``chunk_file``, runs ``ctags`` on the same file, and
compares definitions as (file, short name, line): a ctags tag at line L is found when
codegold records a definition with that short name whose header line is L (``--span``:
or whose span contains L). Prints per-language tag counts, recall and precision, and the
most common misses by ctags kind, so a language's defects show up as numbers.

Three more figures per language: ``tests`` is the share of test-looking definitions
(a ``test*`` function or method in a test path, or one under a test marker such as
``@Test``, ``#[test]``, ``[Fact]``, ``/** @test */`` or gtest's ``TEST(``) that codegold
gives role ``test``; ``comment-only`` is the share of chunks whose every line is a comment
or an attribute (a chunk that defines nothing); ``time`` is the seconds spent in
``chunk_file`` (parse, query, chunk), without ctags.

    python benchmarks/languages.py PATH                 # every structural language
    python benchmarks/languages.py PATH --language javascript --misses 20

Needs ``ctags`` (Universal Ctags, ``apt-get install universal-ctags``) on PATH.
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
import time
from pathlib import Path

from codegold.index import chunk_file
from codegold.index.grammars import STRUCTURAL_LANGUAGES
from codegold.model.languages import language_of

# ctags kinds that are definitions codegold promises to find (variables, fields, local
# symbols, imports and parameters are left out on both sides).
DEFINITION_KINDS = frozenset({
    "function", "method", "class", "interface", "struct", "enum", "trait", "macro",
    "typedef", "type", "alias", "module", "namespace", "singletonMethod", "annotation",
    "generator", "implementation", "record", "func", "methodSpec", "interfaceMethod",
    "constructor", "member",
})
# Python's `namespace` tags are import aliases (`import typing as t`), not definitions.
# C/C++ `member`s are struct fields; PHP `alias`es are `use` imports and its `namespace`s
# are statements that qualify what follows (no definition of their own); Kotlin's
# `<lambda>` tags are anonymous.
SKIP = frozenset({("Python", "namespace"), ("C", "member"), ("C++", "member"),
                  ("PHP", "alias"), ("PHP", "namespace")})
SKIP_NAMES = frozenset({"<lambda>"})
# Names ctags makes up for anonymous functions, classes and structs.
_ANONYMOUS = re.compile(r"^(Anonymous(Function|Class|Object)[0-9a-f]+|__anon[0-9a-f]+)$")
# File-scope tags (``"file": true``) count only where they are real definitions (C's
# `static` functions); elsewhere they are locals (a class inside a function).
FILE_SCOPE_LANGUAGES = frozenset({"c", "cpp"})
CODEGOLD_KINDS = frozenset({"function", "method", "class", "interface", "type", "module",
                            "macro", "object", "trait", "impl", "field"})
SKIP_DIRS = frozenset({".git", "node_modules", "vendor", "dist", "build", "__pycache__"})


# Independent of codegold's own rules: what a reader would call a test.
_TEST_PATH = re.compile(r"(^|/)(tests?|spec|__tests__)/|(^|/)test_|_test\.|Tests?\.|\.(test|spec)\.")
_TEST_NAME = re.compile(r"^(test|Test)")
_TEST_MARKER = re.compile(
    r"@(Test|ParameterizedTest|RepeatedTest)\b|#\[(\w+::)*test\]|\[(Test|Fact|Theory|TestMethod)"
    r"\b|@test\b|^\s*(TYPED_)?TEST(_F|_P)?\(")
# Line prefixes of comments and attributes; a chunk made only of these defines nothing.
_COMMENT_PREFIXES: dict[str, tuple[str, ...]] = {
    "python": ("#",), "ruby": ("#", "=begin", "=end"),
    "rust": ("//", "/*", "*", "#[", "#!["), "php": ("//", "/*", "*", "#"),
    "java": ("//", "/*", "*", "@"), "kotlin": ("//", "/*", "*", "@"),
    "csharp": ("//", "/*", "*", "["),
}
_C_LIKE = ("//", "/*", "*")


def _test_looking(lines: list[str], rel: str, name: str, header: int, start: int) -> bool:
    if _TEST_PATH.search(rel) and _TEST_NAME.match(name):
        return True
    return any(_TEST_MARKER.search(lines[i]) for i in range(max(start - 1, header - 4),
                                                              min(header, len(lines))))


def _comment_only(text: str, language: str) -> bool:
    prefixes = _COMMENT_PREFIXES.get(language, _C_LIKE)
    rows = [line.strip() for line in text.splitlines() if line.strip()]
    return bool(rows) and all(row.startswith(prefixes) for row in rows)


def _files(root: Path, language: str | None) -> list[Path]:
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            lang = language_of(name)
            if lang in STRUCTURAL_LANGUAGES and (language is None or lang == language):
                found.append(Path(folder) / name)
    return found


def _ctags(path: Path, language: str) -> list[tuple[str, int, str]]:
    proc = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+nKl", "-f", "-", str(path)],
        capture_output=True, text=True, check=False, timeout=60)
    tags = []
    for line in proc.stdout.splitlines():
        try:
            tag = json.loads(line)
        except json.JSONDecodeError:
            continue
        if (tag.get("_type") == "tag" and tag.get("kind") in DEFINITION_KINDS
                and (tag.get("language"), tag.get("kind")) not in SKIP
                and (not tag.get("file") or language in FILE_SCOPE_LANGUAGES)
                and tag.get("name") not in SKIP_NAMES and not _ANONYMOUS.match(str(tag["name"]))):
            tags.append((str(tag["name"]), int(tag.get("line", 0)), str(tag["kind"])))
    return tags


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
    for path in _files(args.path, args.language):
        rel = path.relative_to(args.path).as_posix()
        language = language_of(rel) or "?"
        data = path.read_bytes()
        started = time.perf_counter()
        result = chunk_file(rel, data)
        elapsed = time.perf_counter() - started
        lines = data.decode("utf-8", "replace").splitlines()
        ours = [d for d in result.definitions if d.kind in CODEGOLD_KINDS]
        by_name: dict[str, list[tuple[int, int, int]]] = collections.defaultdict(list)
        for d in ours:
            by_name[d.name].append((d.header_line, d.start_line, d.end_line))
        tags = _ctags(path, language)
        tag_lines = {(name, line) for name, line, _ in tags}
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
            hit = any(h == line or (args.span and s <= line <= e) for h, s, e in by_name[name])
            counts["found"] += hit
            if not hit:
                counts[f"miss:{kind}"] += 1
                misses[language].append(f"{rel}:{line} {kind} {name}")
        for d in ours:
            counts["confirmed"] += (d.name, d.header_line) in tag_lines or (
                args.span and any(n == d.name and d.start_line <= ln <= d.end_line
                                  for n, ln in tag_lines))
    for language, counts in sorted(stats.items()):
        recall = counts["found"] / counts["ctags"] if counts["ctags"] else 1.0
        precision = counts["confirmed"] / counts["codegold"] if counts["codegold"] else 1.0
        print(f"{language:11} files {counts['files']:5}  ctags {counts['ctags']:6}  "
              f"codegold {counts['codegold']:6}  recall {recall:6.1%}  "
              f"precision {precision:6.1%}")
        tests = counts["test_role"] / counts["test_looking"] if counts["test_looking"] else 1.0
        comments = counts["comment_only"] / counts["chunks"] if counts["chunks"] else 0.0
        print(f"{'':11} lines {counts['lines']:7}  tests {tests:6.1%} of "
              f"{counts['test_looking']}  comment-only {comments:6.1%} of {counts['chunks']}  "
              f"time {counts['microseconds'] / 1e6:6.2f}s")
        kinds = sorted(((k[5:], v) for k, v in counts.items() if k.startswith("miss:")),
                       key=lambda item: -item[1])
        if kinds:
            print("    misses by kind: " + ", ".join(f"{k} {v}" for k, v in kinds[:6]))
        for line in misses[language][:args.misses]:
            print(f"    {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
