"""Running Universal Ctags on a file and keeping the tags that count (and those that
confirm a definition), with the syntax tree's help where ctags records no end line."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tree_sitter import Node

from ctags_measure.rules import (
    ANONYMOUS,
    BACKTICKED,
    CALLABLE_KINDS,
    DEFINITION_KINDS,
    ECMASCRIPT,
    FILE_SCOPE_LANGUAGES,
    FUNCTION_NODES,
    GTEST_MACROS,
    LANGUAGE_CALLABLE_KINDS,
    MACRO_NAME,
    RESERVED,
    SKIP,
    SKIP_NAMES,
    WHITESPACE,
)


def blanked(text: bytes) -> bytes:
    """``text`` as spaces, its newlines kept (a rewrite never moves a row)."""
    return re.sub(rb"[^\n]", b" ", text)


def _holds_function(node: Node) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in FUNCTION_NODES:
            return True
        stack.extend(current.named_children)
    return False


def _function_rows(language: str, root: Node
                   ) -> tuple[list[tuple[int, int]], list[tuple[int, int]], set[int],
                                      set[tuple[str, int]]]:
    """JavaScript/TypeScript only (ctags records no end line there): the 1-based line
    ranges of function bodies, those of import and re-export statements, and the lines
    that open an object literal holding no function or assign an existing name (data
    and aliases ctags tags as classes or methods). C/C++: the blocks after macro calls."""
    if language in ("c", "cpp"):
        return _macro_bodies(root), [], set(), set()
    if language not in ECMASCRIPT:
        return [], [], set(), set()
    bodies: list[tuple[int, int]] = []
    imports: list[tuple[int, int]] = []
    data_rows: set[int] = set()
    alias_rows: set[tuple[str, int]] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        left = node.child_by_field_name("left") if node.type == "assignment_expression" else None
        if left is not None and (node.child_by_field_name("right") or node).type in (
                "identifier", "member_expression"):
            # an alias, `init.prototype = jQuery.fn`: the names ctags may give it
            for part in re.split(r"\W+", (left.text or b"").decode("utf-8", "replace")):
                alias_rows.add((part, node.start_point.row + 1))
        call = node.named_children[0] if (node.type == "expression_statement"
                                          and node.named_children) else None
        if call is not None and call.type == "call_expression":
            # a call statement, `test('x', t => {...})`, `test.after(...)`: ctags may read
            # it as a class named after the function called
            callee = call.child_by_field_name("function")
            for part in re.split(r"\W+", ((callee.text if callee else None) or b"").decode("utf-8", "replace")):
                alias_rows.add((f"class {part}", node.start_point.row + 1))
        if node.type == "object" and not _holds_function(node):
            data_rows.add(node.start_point.row + 1)
            if node.parent is not None:
                data_rows.add(node.parent.start_point.row + 1)
        if node.type == "import_statement" or (node.type == "export_statement" and (
                node.child_by_field_name("source") is not None
                or any(c.type == "export_clause" for c in node.named_children))):
            imports.append((node.start_point.row + 1, node.end_point.row + 1))
            continue
        if node.type in FUNCTION_NODES:
            body = node.child_by_field_name("body")
            if body is not None:
                bodies.append((body.start_point.row + 1, body.end_point.row + 1))
        stack.extend(node.named_children)
    return bodies, imports, data_rows, alias_rows


def _macro_bodies(root: Node) -> list[tuple[int, int]]:
    """C/C++: the 1-based line ranges of blocks that follow a macro call at file or
    namespace level (doctest's and Catch2's ``TEST_CASE("name") {...}``, a ``SECTION``
    inside): function bodies whose header is a macro, which ctags does not read as a
    function, so it tags the calls inside as prototypes (``CHECK(x == 1);``,
    ``v.push_back(1);``). A block can stand there only as such a body."""
    bodies: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            before = child.prev_named_sibling
            if (child.type == "compound_statement" and before is not None
                    and before.type == "expression_statement"
                    and any(c.type == "call_expression" for c in before.named_children)):
                bodies.append((child.start_point.row + 1, child.end_point.row + 1))
            elif child.type in ("declaration_list", "namespace_definition",
                                "linkage_specification", "preproc_ifdef", "preproc_if",
                                "preproc_else", "preproc_elif"):
                stack.append(child)
    return bodies


def tag_name(tag: dict[str, object], lines: list[str]) -> str:
    """A tag's name; ctags 5.9's Kotlin parser names a backtick-quoted definition
    (fun `a test`()) with unrelated bytes (often the file's path), on the right line: a
    name its own line does not hold, on a line holding a backtick-quoted name, is that name."""
    name = str(tag.get("name", ""))
    line = int(str(tag.get("line", 0)))
    if tag.get("language") == "Kotlin" and 0 < line <= len(lines):
        source = lines[line - 1]
        quoted = BACKTICKED.search(source)
        if quoted and name not in source:
            return quoted.group(1)
    return name


def ctags_extensions() -> frozenset[str]:
    """File extensions (``.ts``) that some ctags parser reads."""
    proc = subprocess.run(["ctags", "--list-maps"], capture_output=True, text=True,
                          check=False, timeout=60)
    return frozenset(m.group(1).lower() for m in re.finditer(r"\*(\.[\w+]+)", proc.stdout))


def _callable(tag: dict[str, object], field: str) -> bool:
    """Whether the tag's ``field`` (its ``kind`` or its ``scopeKind``) is a function's."""
    kind = tag.get(field)
    return kind in CALLABLE_KINDS or (tag.get("language"), kind) in LANGUAGE_CALLABLE_KINDS


def in_ranges(line: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start < line <= end for start, end in ranges)


def definition_tags(path: Path, language: str, data: bytes, root: Node
           ) -> tuple[list[tuple[str, int, str]], set[tuple[str, int]]]:
    """The counted definition tags (name, line, kind) of one file, and every tag
    (name, line) that confirms a definition (any kind, nested ones too)."""
    proc = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+nKlzsZeE", "--kinds-C=+p",
         "--kinds-C++=+p", "-f", "-", str(path)],
        capture_output=True, text=True, check=False, timeout=60)
    raw = []
    for text in proc.stdout.splitlines():
        try:
            tag = json.loads(text)
        except json.JSONDecodeError:
            continue
        if tag.get("_type") == "tag":
            raw.append(tag)
    lines = data.decode("utf-8", "replace").splitlines()
    for tag in raw:
        tag["name"] = tag_name(tag, lines)
    bodies, imports, data_rows, alias_rows = _function_rows(language, root)
    callables = {(f"{t['scope']}.{t['name']}" if t.get("scope") else str(t["name"]))
                 for t in raw if _callable(t, "kind")}
    ranges = [(int(t["line"]), int(t["end"])) for t in raw
              if _callable(t, "kind") and "end" in t]
    counted: dict[tuple[str, int], str] = {}
    confirming: set[tuple[str, int]] = set()
    for tag in raw:
        # A namespace's tag names its whole path (`Newtonsoft.Json`): compare the last part.
        name = re.split(r"\.|::|\\", str(tag["name"]))[-1] or str(tag["name"])
        name = WHITESPACE.sub("", name)  # `operator ==` is `operator==`
        line, kind = int(tag.get("line", 0)), str(tag.get("kind"))
        if (name in SKIP_NAMES or ANONYMOUS.match(name) or "anonymous" in tag.get("extras", "")
                or name in RESERVED or any(s <= line <= e for s, e in imports)
                or (kind in ("prototype", "function") and MACRO_NAME.match(name)
                    and name not in GTEST_MACROS)):
            continue
        confirming.add((name, line))
        scope = str(tag.get("scope", ""))
        scopes = re.split(r"\.|::", scope) if scope else []
        nested = (_callable(tag, "scopeKind")
                  or any(".".join(scopes[:i]) in callables for i in range(1, len(scopes) + 1))
                  or in_ranges(line, ranges) or in_ranges(line, bodies))
        if (kind in DEFINITION_KINDS and not nested
                and not (kind == "class" and line in data_rows)
                and (name, line) not in alias_rows and (f"{kind} {name}", line) not in alias_rows
                and not (language in ECMASCRIPT and name == "exports" and scope == "module")
                and (tag.get("language"), kind) not in SKIP
                and (not tag.get("file") or language in FILE_SCOPE_LANGUAGES)):
            counted.setdefault((name, line), kind)
    return [(name, line, kind) for (name, line), kind in counted.items()], confirming

