"""The second reading (a definition's own lines alone, in its containers' opening and
closing lines) and the rewritten reading (syntax ctags 5.9 cannot read, rewritten on the
same rows), and overload sets confirmed as a whole."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from tree_sitter import Node

from codegold.index import SymbolDef
from codegold.model.languages import language_of
from ctags_measure.rules import (
    BACKTICK,
    CONTAINER_KINDS,
    ECMASCRIPT,
    GTEST_MACROS,
    LINE_TOLERANCE,
    WHITESPACE,
    compared,
    plain_identifier,
)
from ctags_measure.tags import blanked, tag_name


def syntax_containers(language: str, root: Node) -> list[tuple[int, int, int]]:
    """JavaScript/TypeScript only: the object literals and class bodies of the syntax tree
    as 1-based (statement line, opening-brace line, closing line): containers a
    definition may sit in without codegold naming them (``module.exports = {...}``)."""
    if language not in ECMASCRIPT:
        return []
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("object", "class_body"):
            outer = node.parent if node.parent is not None else node
            found.append((outer.start_point.row + 1, node.start_point.row + 1,
                          node.end_point.row + 1))
        stack.extend(node.named_children)
    return found


# TypeScript syntax a JavaScript reader cannot read, erased for ctags's JavaScript parser.
_TYPESCRIPT_TYPES = frozenset({"type_annotation", "type_parameters", "type_arguments"})


def javascript_view(language: str, data: bytes, root: Node
                     ) -> tuple[list[tuple[int, int]], list[str]]:
    """TypeScript only (ctags's TypeScript parser reads no object literal's members): the
    1-based line ranges of the syntax tree's object literals, and the file's lines with
    its type annotations, type parameters and type arguments blanked (types erased, as a
    compiler to JavaScript does; every row and column kept)."""
    if language != "typescript":
        return [], []
    found = []
    erased = bytearray(data)
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "object":
            found.append((node.start_point.row + 1, node.end_point.row + 1))
        if node.type in _TYPESCRIPT_TYPES:
            erased[node.start_byte:node.end_byte] = blanked(data[node.start_byte:node.end_byte])
            continue
        stack.extend(node.named_children)
    return found, bytes(erased).decode("utf-8", "replace").splitlines()


def without_type_parameters(language: str, data: bytes, lines: list[str], root: Node
                             ) -> list[str]:
    """Go only: the lines with each type declaration's type parameter list blanked
    (``type Entry[K comparable, V any] struct {`` reads ``type Entry ... struct {``):
    ctags 5.9 predates Go's type parameters and tags such a type as a plain ``type``,
    without its fields or its interface's methods."""
    if language != "go":
        return lines
    plain = bytearray(data)
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("type_spec", "type_alias"):
            params = node.child_by_field_name("type_parameters")
            if params is not None:
                plain[params.start_byte:params.end_byte] = blanked(
                    data[params.start_byte:params.end_byte])
            continue
        stack.extend(node.named_children)
    return bytes(plain).decode("utf-8", "replace").splitlines()


def read_alone(path: Path, lines: list[str], definition: SymbolDef, ours: list[SymbolDef],
               scratch: Path, containers: Sequence[tuple[int, int, int]] = (),
               wanted: str | None = None, parser: str | None = None,
               rewrite: bool = False) -> bool:
    """Whether ctags, reading only the definition's own lines inside its containers'
    opening and closing lines (every other line blank, so lines keep their numbers), tags
    its name within LINE_TOLERANCE lines of its header line. The containers are
    codegold's own, and in JavaScript/TypeScript also the syntax tree's object literals
    and class bodies (``module.exports = {...}`` names nothing, yet holds methods).
    ``rewrite``: C# headers and Kotlin backtick-quoted names are rewritten as the module
    docstring says (the rewritten reading)."""
    language = language_of(path.name)
    keep = set(range(definition.start_line, definition.end_line + 1))
    # PHP: ctags reads nothing before the `<?php` opening tag, so its line stays.
    opening_tag = next((n for n, line in enumerate(lines, 1) if "<?php" in line), None)
    if language == "php" and opening_tag is not None:
        keep.add(opening_tag)
    headers: list[tuple[int, int]] = []  # C# containers' opening lines
    for first, brace, last in containers:
        if first <= definition.start_line and definition.end_line <= last and (
                first, last) != (definition.start_line, definition.end_line):
            keep.update(range(first, brace + 1))
            keep.add(last)
    for outer in ours:
        if (outer is not definition and outer.kind in CONTAINER_KINDS
                and outer.start_line <= definition.start_line
                and definition.end_line <= outer.end_line
                and (outer.start_line, outer.end_line) != (definition.start_line,
                                                          definition.end_line)):
            opening = outer.header_line  # up to its `{`, if one comes before a blank line
            for n in range(outer.header_line, definition.start_line):
                if not lines[n - 1].strip():
                    break
                if "{" in lines[n - 1]:
                    opening = n
                    break
            keep.update(range(outer.start_line, opening + 1))
            keep.add(outer.end_line)
            if rewrite and language == "csharp":
                headers.append((outer.start_line, opening))
    kept = [line if n in keep else "" for n, line in enumerate(lines, 1)]
    if rewrite and language == "csharp":  # its own header: up to its `{` or `=>`
        last = definition.header_line
        while last < definition.end_line and not re.search(r"[{;]|=>", lines[last - 1]):
            last += 1
        headers.append((definition.start_line, last))
    for first, last in headers:
        kept[first - 1:last] = csharp_header("\n".join(kept[first - 1:last])).split("\n")
    wanted = compared(wanted or definition.name)
    if rewrite and language == "kotlin":
        # ctags 5.9 drops or misnames a backtick-quoted name (fun `a test`()): read alone,
        # it is spelled as a plain identifier (a_test), in the definition's lines only.
        for n in range(definition.start_line, definition.end_line + 1):
            kept[n - 1] = BACKTICK.sub(lambda m: plain_identifier(m.group(1)), kept[n - 1])
        if not definition.name.isidentifier():
            wanted = compared(plain_identifier(definition.name))
    alone = scratch / f"alone{path.suffix}"
    alone.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    force = [f"--language-force={parser}"] if parser else []
    proc = subprocess.run(["ctags", "--output-format=json", "--fields=+nl", *force, "-f", "-",
                           str(alone)], capture_output=True, text=True, check=False, timeout=60)
    for text in proc.stdout.splitlines():
        try:
            tag = json.loads(text)
        except json.JSONDecodeError:
            continue
        name = re.split(r"\.|::|\\", tag_name(tag, kept))[-1]
        # A gtest macro's tag (`TEST`) names a test (`Suite.Name`) here as in the first reading.
        named = compared(name) == wanted or (
            definition.role == "test" and name in GTEST_MACROS)
        if (tag.get("_type") == "tag" and named
                and abs(int(tag.get("line", 0)) - definition.header_line) <= LINE_TOLERANCE):
            return True
    return False


# Property and method names Universal Ctags 5.9's JavaScript parser reads as keywords
# (ES5 allows every one of them as a property name): `a.get = function`, `{ set: function }`
# and `class A { static get default () {} }` give no tag, or a "null tag" warning.
_CTAGS_JS_KEYWORDS = frozenset({
    "get", "set", "static", "default", "new", "async", "class", "function", "return", "var",
    "let", "const", "export", "extends", "this", "catch", "finally", "try", "do", "if", "else",
    "for", "while", "switch", "prototype"})
_NAMING_NODES = frozenset({"assignment_expression", "pair", "method_definition",
                           "variable_declarator", "field_definition", "function_declaration",
                           "generator_function_declaration", "class_declaration"})


def _naming(node: Node) -> tuple[Node | None, Node | None]:
    """The node that names a definition statement (``b`` of ``a.b = ...``, a key, a
    method's name) and the value it is given, or (None, None)."""
    if node.type == "assignment_expression":
        left = node.child_by_field_name("left")
        if left is not None and left.type == "member_expression":
            owner = left.child_by_field_name("object")
            left = left.child_by_field_name("property")
            if left is not None and left.text == b"prototype" and owner is not None:
                # `X.prototype = {...}` defines X's members: named X, as ctags does
                left = owner.child_by_field_name("property") or owner
        return left, node.child_by_field_name("right")
    if node.type == "pair":
        return node.child_by_field_name("key"), node.child_by_field_name("value")
    if node.type == "variable_declarator":
        return node.child_by_field_name("name"), node.child_by_field_name("value")
    if node.type == "field_definition":
        return node.child_by_field_name("property"), node.child_by_field_name("value")
    return node.child_by_field_name("name"), None


def plain_javascript(root: Node, data: bytes, definition: SymbolDef
                      ) -> tuple[list[str], str] | None:
    """The file rewritten where ctags 5.9's JavaScript parser cannot read a definition it
    should tag, and the name to look for; None when nothing there needs rewriting.

    Each rewrite keeps every line on its row and changes only syntax, never the name's
    place or what is assigned: an arrow function becomes a ``function`` expression (its
    expression body in braces); a function expression's own name is dropped (ctags tags
    ``{ req: function asReqValue () {} }`` nowhere); the outer links of a chained
    assignment (``req.get = req.header = function``) become blanks; a name ctags reads as
    a keyword, the definition's own or a member's, gets a trailing ``_`` (``get`` is looked
    for as ``get_``)."""
    short = definition.name.rsplit(".", 1)[-1]
    row = definition.header_line - 1
    stack = [root]
    target: tuple[Node, Node, Node | None] | None = None
    while stack:  # the innermost naming node (a chain's last link) wins
        node = stack.pop()
        if node.end_point.row < row or node.start_point.row > row:
            continue
        if node.type in _NAMING_NODES:
            name, value = _naming(node)
            if (name is not None and name.start_point.row == row
                    and data[name.start_byte:name.end_byte].decode("utf-8", "replace").strip(
                        "'\"") == short):
                target = node, name, value
        stack.extend(reversed(node.named_children))
    if target is None:
        return None
    node, name, value = target
    edits: list[tuple[int, int, bytes]] = []
    wanted = short + "_" if short in _CTAGS_JS_KEYWORDS else short
    # Keyword names: the definition's own, and its members' (`{ set: function }` in an
    # object makes ctags drop the whole object).
    inner = [node]
    while inner:
        current = inner.pop()
        inner.extend(current.named_children)
        if current.type in _NAMING_NODES:
            named = _naming(current)[0]
            if named is not None and (named.text or b"").decode(
                    "utf-8", "replace").strip("'\"") in _CTAGS_JS_KEYWORDS:
                edits.append((named.end_byte, named.end_byte, b"_"))
    if value is not None and value.type == "function_expression":
        own = value.child_by_field_name("name")
        if own is not None:
            edits.append((own.start_byte, own.end_byte, b""))
    if value is not None and value.type == "arrow_function":
        body = value.child_by_field_name("body")
        params = value.child_by_field_name("parameters") or value.child_by_field_name("parameter")
        if body is not None and params is not None:
            text = data[params.start_byte:params.end_byte]
            if params.type != "formal_parameters":
                text = b"(" + text + b")"
            prefix = b"async " if data[value.start_byte:params.start_byte].strip() else b""
            edits.append((value.start_byte, body.start_byte, prefix + b"function " + text + b" "))
            if body.type != "statement_block":
                edits.append((body.start_byte, body.start_byte, b"{ "))
                edits.append((body.end_byte, body.end_byte, b" }"))
    # Chains around the definition and around the containers holding it
    # (`jQuery.fn = jQuery.prototype = { toArray: function }`).
    link: Node | None = node
    while link is not None:
        outer = link
        while (outer.type == "assignment_expression" and outer.parent is not None
               and outer.parent.type == "assignment_expression"):
            outer = outer.parent
        if outer is not link:
            edits.append((outer.start_byte, link.start_byte,
                          blanked(data[outer.start_byte:link.start_byte])))
        link = outer.parent
    if not edits:
        return None
    out = data
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return out.decode("utf-8", "replace").splitlines(), wanted


_CSHARP_TYPE_HEADER = re.compile(r"\b(?:record\s+)?(class|struct|record)\s+@?\w+\s*(<[^>{]*>)?\s*(\()?")


# Languages whose unconfirmed definitions get the rewritten reading.
REWRITTEN_LANGUAGES = frozenset({"csharp", "kotlin"})
_CSHARP_NULLABLE = re.compile(r"(?<=[\w>\]])\?(?=[\s,)\[>])")
_CSHARP_WHERE = re.compile(r"\bwhere\s+\w+\s*:[^{;=]*")


def csharp_header(text: str) -> str:
    """A C# declaration's opening lines (up to its ``{`` or ``=>``) as ctags 5.9 reads
    them: it knows neither a primary constructor (``class PathMap(TypeMap map) :
    MemberMap(map)``, C# 12) nor ``record`` (C# 9), and reads such a type as a method or
    a property whose body it skips; it drops a method with a nullable parameter
    (``object? value``, C# 8) or a ``where`` constraint. The parameter list, the nullable
    marks and the constraints go (blanked, lines keep their numbers) and a record reads
    as the class or struct it is."""
    code = re.sub(r'"(?:[^"\\\n]|\\.)*"', lambda m: "_" * len(m.group(0)), text)
    cut = min((i for i in (code.find("{"), code.find("=>")) if i >= 0), default=len(text))
    head, rest = text[:cut], text[cut:]
    head = _CSHARP_NULLABLE.sub(" ", head)
    head = _CSHARP_WHERE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), head)
    return _csharp_type_header(head + rest)


def _csharp_type_header(text: str) -> str:
    out = []
    at = 0
    for match in _CSHARP_TYPE_HEADER.finditer(text):
        if match.start() < at:
            continue
        keyword = "struct" if match.group(1) == "struct" else "class"
        head = match.group(0)
        head = re.sub(r"^(record\s+)?(class|struct|record)", keyword, head)
        out.append(text[at:match.start()] + head)
        at = match.end()
        if match.group(3):
            depth, j = 1, at
            while j < len(text) and depth:
                depth += (text[j] == "(") - (text[j] == ")")
                j += 1
            out[-1] = out[-1][:-1] + " "
            out.append(re.sub(r"[^\n]", " ", text[at:j]))
            at = j
    out.append(text[at:])
    return "".join(out)


def _overload_sets(ours: list[SymbolDef]) -> list[list[int]]:
    """Indexes of overload sets: runs of definitions of one qualified name, each starting
    within LINE_TOLERANCE lines after the previous one ends (TypeScript's overload
    signatures and their implementation). ctags tags such a run once."""
    order = sorted(range(len(ours)), key=lambda i: (ours[i].start_line, ours[i].end_line))
    groups: list[list[int]] = []
    for i in order:
        last = groups[-1][-1] if groups else None
        if (last is not None and ours[last].qualified == ours[i].qualified
                and ours[i].start_line - ours[last].end_line <= LINE_TOLERANCE):
            groups[-1].append(i)
        else:
            groups.append([i])
    return [g for g in groups if len(g) > 1]


def owner_name(definition: SymbolDef) -> str:
    """The name just before a definition's own name (``res`` in ``res.get``), or ""."""
    parts = definition.qualified.rsplit(".", 2)
    return WHITESPACE.sub("", parts[-2]) if len(parts) > 1 else ""


def spread_overloads(ours: list[SymbolDef], confirmed: list[bool]) -> None:
    """An overload set is confirmed as a whole when one of it is."""
    for group in _overload_sets(ours):
        if any(confirmed[i] for i in group):
            for i in group:
                confirmed[i] = True

