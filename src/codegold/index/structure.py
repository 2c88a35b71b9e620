"""Structural regions of a parsed file: one per definition, container header or run of
module-level code, before size limits are applied.

What a language defines is data: its tags query (``queries/<lang>.tags.scm``, see
:mod:`codegold.index.grammars`) marks definitions with ``@definition.<kind>`` or
``@declaration.<kind>`` and their names with ``@name``. This module only decides
containers (qualified names such as ``Class.method``), attached comments, packing and
splitting, the same way for every language.

The walk is iterative (an explicit stack), visits only the top level, wrappers such as
``export`` or decorators, and container bodies (classes, impls, traits, namespaces), so
deeply nested code cannot exhaust Python's recursion limit. Definitions nested inside
function bodies stay inside their enclosing function's chunk.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from tree_sitter import Node

from codegold.index.grammars import (
    LANGUAGES,
    Deadline,
    Match,
    matches_within,
    tags_query,
    test_marker_pattern,
    test_name_pattern,
)

# Kinds that hold members which become their own chunks (when the body has any).
# An enum constant with a body of its own (Java ``PLUS { ... }``) holds members too.
_CONTAINER_KINDS = frozenset({"class", "interface", "module", "impl", "object", "trait",
                              "constant"})
# Member kinds that are symbols of their container's chunk, never chunks of their own
# (Go struct fields): a container holding only these stays one region.
_FIELD_KINDS = frozenset({"field"})
# Kinds that name module code without a chunk of their own (``@module.<kind>``).
_NAME_CAPTURES = ("module.variable", "module.constant")
# A scope statement's name split into names (PHP ``A\\B``, C++ ``a::b``, C# ``A.B``).
_SCOPE_SEPARATORS = re.compile(r"\\|::|\.")
_IDENTIFIER_TYPES = frozenset({"type_identifier", "identifier", "primitive_type",
                               "property_identifier", "field_identifier", "constant",
                               "scope_resolution", "namespace_identifier"})


@dataclass(frozen=True)
class Definition:
    """What a node defines, as found by the language's tags query."""

    kind: str                    # function | method | class | interface | type | module | ...
    name: str | None             # None for an impl block (qualifies members, defines nothing)
    span: Node                   # the node including wrappers (export, decorators)
    core: Node                   # the definition node itself
    body: Node | None            # the body node (members or statements)
    container: bool              # members become their own chunks
    declaration: bool            # a signature without a body
    header_row: int              # the declaration line (where the name is)
    qualifier: str | None = None  # name that qualifies members (impl's type)
    test: bool = False           # a test by the language's markers (``#[test]``)
    # More (name, header row, kind) one statement defines (Go's ``type ( A int; B ... )``).
    extra: tuple[tuple[str, int, str], ...] = ()
    # An object literal or a module-pattern function (``@literal``): a definition only
    # when it holds a callable.
    literal: bool = False


@dataclass(frozen=True)
class SymbolSpan:
    name: str
    qualified: str
    kind: str
    role: str
    start: int  # 0-based rows, inclusive; leading doc comments and attributes included
    end: int
    header: int = -1  # 0-based row of the declaration line; -1 when unknown

    @property
    def header_row(self) -> int:
        return self.header if self.header >= 0 else self.start


@dataclass(frozen=True)
class Region:
    """A candidate chunk: rows are 0-based and inclusive."""

    rid: int
    start: int
    end: int
    kind: str
    symbol: str | None
    symbols: tuple[str, ...]
    role: str                                   # definition | declaration | test | module
    headers: tuple[tuple[int, int], ...]        # enclosing containers' header rows
    parent: int | None                          # rid of the enclosing container's header
    signature: tuple[int, int] | None           # rows repeated when the region is split
    cuts: tuple[int, ...]                       # rows where a split may start a part
    defines: tuple[SymbolSpan, ...]


@dataclass(frozen=True)
class _Context:
    names: tuple[str, ...] = ()
    headers: tuple[tuple[int, int], ...] = ()
    parent: int | None = None
    in_class: bool = False
    container_kind: str | None = None
    container_symbol: str | None = None
    covered_until: int = -1
    test: bool = False
    # Symbols of a container without a chunk of its own, carried by its first member's.
    carry: tuple[SymbolSpan, ...] = ()


@dataclass
class _Collector:
    regions: list[Region] = field(default_factory=list)
    next_rid: int = 0

    def add(self, **kwargs: object) -> int:
        rid = self.next_rid
        self.next_rid += 1
        self.regions.append(Region(rid=rid, **kwargs))  # type: ignore[arg-type]
        return rid


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _type_name(node: Node | None) -> str | None:
    """The bare type name of a (possibly generic, pointer or scoped) type node."""
    current = node
    while current is not None:
        if current.type in _IDENTIFIER_TYPES:
            return _text(current)
        # `element`: a Rust array type (`[T; 0]` is named `T`, as ctags does).
        inner = (current.child_by_field_name("type") or current.child_by_field_name("name")
                 or current.child_by_field_name("element"))
        if inner is None:
            named = [c for c in current.named_children if c.type != "type_arguments"]
            inner = named[-1] if named else None
        current = inner
    return None


def _stub_body(body: Node | None) -> bool:
    """A body of only ``...`` (and a docstring): a signature, as in protocols and stubs."""
    if body is None:
        return False
    statements = [c for c in body.named_children if c.type != "comment"]
    if not statements:
        return False
    last = statements[-1]
    if last.type != "expression_statement" or _text(last).strip() != "...":
        return False
    return all(c.type == "expression_statement" and c.named_children
               and c.named_children[0].type == "string" for c in statements[:-1])


class _Definitions:
    """Every definition the tags query found in a file, keyed by the byte range of the
    node the walker meets (the definition with its wrappers)."""

    def __init__(self, language: str, matches: Iterable[Match]) -> None:
        wrappers = LANGUAGES[language].wrappers
        named_with_parameters = LANGUAGES[language].names_with_parameters
        found: dict[tuple[int, int], dict[tuple[int, int], tuple[int, dict[str | None, Definition]]]] = {}
        self._names: dict[tuple[int, int], dict[str, int]] = {}
        self._scopes: dict[tuple[int, int], tuple[str, ...]] = {}
        for pattern, captures in matches:
            if "scope" in captures and captures.get("name"):
                parts = _SCOPE_SEPARATORS.split(_text(captures["name"][0]).strip())
                self._scopes[_key(captures["scope"][0])] = tuple(p for p in parts if p)
                continue
            for capture in _NAME_CAPTURES:
                if capture in captures:
                    key = _key(_climb(captures[capture][0], wrappers))
                    names = self._names.setdefault(key, {})
                    for name_node in captures.get("name", ()):
                        name = _text(name_node)
                        if name:
                            names.setdefault(name, name_node.start_point.row)
            definition = _definition(captures, wrappers, named_with_parameters)
            if definition is None:
                continue
            cores = found.setdefault(_key(definition.span), {})
            # The first pattern to match a core wins; one pattern matching a core again
            # with another name node is one statement naming several things (`var a =
            # function () {}, b = function () {}`).
            core_key = _key(definition.core)
            held = cores.get(core_key)
            if held is None or held[0] > pattern:
                cores[core_key] = (pattern, {definition.name: definition})
            elif held[0] == pattern:
                held[1].setdefault(definition.name, definition)
        self._by_span: dict[tuple[int, int], Definition] = {}
        self._methods: dict[tuple[int, int], Definition] = {}
        for key, cores in found.items():
            ordered = [d for _, ds in sorted(cores.values(), key=lambda item: (
                next(iter(item[1].values())).core.start_byte, item[0])) for d in ds.values()]
            primary = ordered[0]
            # A second name of one statement; the same name again only on another line
            # (C's `typedef struct s {...} s;` defines the struct and the type `s`).
            extra = tuple(dict.fromkeys(
                (d.name, d.header_row, d.kind) for d in ordered[1:]
                if d.name and (d.name, d.header_row) != (primary.name, primary.header_row)))
            self._by_span[key] = replace(primary, extra=extra) if extra else primary
        # An object literal holding only data (`user: { name: "a" }`), or a module-pattern
        # function defining nothing, defines nothing: its statement stays module code
        # named by its @module capture.
        data = [key for key, d in self._by_span.items() if d.literal and not self._callable(d)]
        for key in data:
            del self._by_span[key]

    def _callable(self, literal: Definition) -> bool:
        """Whether a ``@literal`` definition holds a definition other than a literal, at
        any depth of nested literals."""
        todo = [literal.body]
        seen = 0
        opened: set[int] = set()
        while todo and seen < _MAX_NAMELESS_SCAN:
            body = todo.pop()
            if body is None or not _first_visit(opened, body):
                continue
            for member in body.named_children:
                seen += 1
                inner = self._by_span.get(_key(member))
                if inner is None:
                    continue
                if not inner.literal:
                    return True
                todo.append(inner.body)
        return False

    def lookup(self, node: Node, ctx: _Context) -> Definition | None:
        key = _key(node)
        found = self._by_span.get(key)
        if found is not None and ctx.in_class and found.kind == "function":
            # A class member is met twice (sizing its class, then walking it): one copy.
            method = self._methods.get(key)
            if method is None:
                method = self._methods[key] = replace(found, kind="method")
            return method
        return found

    def scope(self, node: Node) -> tuple[str, ...] | None:
        """Names a bodiless namespace statement (``namespace Acme\\Auth;``) puts in
        front of every later definition at its level."""
        return self._scopes.get(_key(node))

    def names(self, node: Node) -> dict[str, int]:
        """Names a module statement assigns, each with its declaration row."""
        return self._names.get(_key(node), {})


def _key(node: Node) -> tuple[int, int]:
    return node.start_byte, node.end_byte


def _climb(node: Node, wrappers: frozenset[str]) -> Node:
    current = node
    while current.parent is not None and current.parent.type in wrappers:
        current = current.parent
    return current


def _definition(captures: dict[str, list[Node]], wrappers: frozenset[str],
                names_with_parameters: frozenset[str] = frozenset()) -> Definition | None:
    label = next((c for c in captures if c.startswith(("definition.", "declaration."))), None)
    if label is None:
        return None
    core = captures[label][0]
    kind = label.split(".", 1)[1]
    name_nodes = captures.get("name", [])
    name = _text(name_nodes[0]).strip() if name_nodes else None
    for suffix in captures.get("name.suffix", ())[:1]:  # `operator` + `==`: `operator ==`
        name = f"{name} {_text(suffix).strip()}" if name else None
    if name and len(name) > 2 and name[0] == name[-1] == "`":
        name = name[1:-1]  # Kotlin's quoted names (`-DeprecatedOkio`) as users say them
    if (name and len(name) > 2 and name[0] == name[-1] and name[0] in "\"'"
            and name_nodes[0].type == "string"):
        name = name[1:-1]  # a quoted member name (`"~validate"() {}`) as ctags and users say it
    if name and name_nodes[0].type in names_with_parameters:
        # A name node that holds a parameter list too (C++ `operator bool() const`).
        name = " ".join(_before_parameters(name).split()) or None
    qualifier_nodes = captures.get("qualifier", [])
    qualifier = _written_scope(qualifier_nodes[0]) if qualifier_nodes else None
    if kind == "module" and name:
        # A namespace's own path (``namespace A\\B {``, ``namespace a::b {``) qualifies
        # like nested namespaces do.
        name = ".".join(p for p in _SCOPE_SEPARATORS.split(name) if p) or None
    if kind == "impl" and qualifier:
        # A Rust impl defines its type's implementation (named as the type, as ctags
        # does) and qualifies its members by that type.
        name = qualifier
    elif kind == "impl":
        name, kind = None, "class"
    elif name is None:
        if kind not in _CONTAINER_KINDS:
            return None
        qualifier = None
    elif qualifier:
        name, qualifier = f"{qualifier}.{name}", None
    bodies = captures.get("body", [])
    body = bodies[0] if bodies else None
    declaration = label.startswith("declaration.") or _stub_body(body)
    header_row = name_nodes[0].start_point.row if name_nodes else core.start_point.row
    return Definition(kind=kind, name=name or None, span=_climb(core, wrappers), core=core,
                      body=body, container=kind in _CONTAINER_KINDS and body is not None,
                      declaration=declaration, header_row=header_row, qualifier=qualifier,
                      test="test" in captures, literal="literal" in captures)


def _written_scope(node: Node) -> str | None:
    """The type name of a qualifier node, after the scopes written before it when it is
    one step of a C++ qualified name (``ns::detail::Foo<T>::bar`` qualifies ``bar`` by
    ``ns.detail.Foo``, not by ``Foo`` alone); a Swift type path whole."""
    if node.type == "user_type":  # Swift's nested type path (``AFError.Reason``)
        path = [_text(c) for c in node.named_children if c.type == "type_identifier"]
        return ".".join(path) if path else None
    name = _type_name(node)
    if not name:
        return None
    parts, step = [name], node.parent
    while (step is not None and step.type == "qualified_identifier"
           and step.parent is not None and step.parent.type == "qualified_identifier"
           and step.parent.child_by_field_name("name") == step):
        outer = step.parent.child_by_field_name("scope")
        written = _type_name(outer) if outer is not None else None
        if not written:
            break
        parts.insert(0, written)
        step = step.parent
    return ".".join(parts)


def _before_parameters(text: str) -> str:
    """``text`` up to its parameter list: the first ``(`` outside template arguments
    (``operator Action<R(Args...)>() const`` is ``operator Action<R(Args...)>``)."""
    depth = 0
    for index, char in enumerate(text):
        if char == "<":
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif char == "(" and not depth:
            return text[:index]
    return text


def flat_definitions(root: Node, language: str, deadline: Deadline | None = None
                     ) -> list[tuple[SymbolSpan, int]]:
    """Every named definition the tags query finds, unqualified by containers, with the
    column of its name: for packed (minified) code, whose chunks are line windows that
    still say which names they define. Object literals that hold only data are left out."""
    wrappers = LANGUAGES[language].wrappers
    found: dict[tuple[int, int], tuple[SymbolSpan, int]] = {}
    for _, captures in matches_within(tags_query(language), root, deadline):
        definition = _definition(captures, wrappers, LANGUAGES[language].names_with_parameters)
        if definition is None or definition.name is None or definition.literal:
            continue
        names = captures.get("name", [])
        at = names[0].start_point if names else definition.core.start_point
        role = "declaration" if definition.declaration else "definition"
        span = SymbolSpan(_short(definition.name), definition.name, definition.kind, role,
                          definition.span.start_point.row, _last_row(definition.span),
                          at.row)
        found.setdefault((at.row, at.column), (span, at.column))
    return [found[key] for key in sorted(found)]


@dataclass(frozen=True)
class _Walk:
    """What stays fixed during one file's walk."""

    definitions: _Definitions
    attached: frozenset[str]
    declaration_file: bool
    test_names: re.Pattern[str] | None  # only when the file is a test file
    test_markers: re.Pattern[str] | None
    collector: _Collector
    flatten: frozenset[str] = frozenset()
    member_lists: frozenset[str] = frozenset()
    # Bodies whose members the walk has put on its work list (see _first_visit).
    opened: set[int] = field(default_factory=set)

    def opens(self, found: Definition) -> bool:
        """Whether the walk may still open ``found``'s body: never a second time."""
        return found.body is None or found.body.id not in self.opened

    def marked(self, found: Definition, siblings: list[Node], index: int, lead: int
               ) -> Definition:
        """``found`` as a test when an attached node above it, or one inside it, is a test
        marker."""
        if self.test_markers is None or found.test:
            return found
        # An attribute that is part of the definition node (PHP's `#[Test]`) marks it too.
        for child in found.core.named_children:
            if child.type in self.attached and self.test_markers.match(_text(child).strip()):
                return replace(found, test=True)
        j = index - 1
        while j >= 0 and siblings[j].type in self.attached and siblings[j].start_point.row >= lead:
            if self.test_markers.match(_text(siblings[j]).strip()):
                return replace(found, test=True)
            j -= 1
        return found

    def role(self, found: Definition, ctx: _Context, short: str | None) -> str:
        if found.test or ctx.test:
            return "test"
        pattern = self.test_names
        if pattern is not None and short and pattern.search(short):
            return "test"
        return "declaration" if found.declaration or self.declaration_file else "definition"


def _members(body: Node, flatten: frozenset[str], member_lists: frozenset[str]) -> list[Node]:
    members: list[Node] = []
    for child in _unwrap_errors(body.named_children):
        if child.type in member_lists:
            members.extend(_unwrap_errors(child.named_children))
        elif child.type in flatten:
            members.extend(_branch_statements(child, flatten))
        else:
            members.append(child)
    return members


def _branch_statements(branch: Node, flatten: frozenset[str]) -> list[Node]:
    """The statements of a conditional's branch (a block, ``else:``, ``except E:``), in
    source order, without conditions or exception patterns (the children a field names).
    Iterative: braces nested thousands deep (``{{{...}}}``) cost no recursion."""
    statements: list[Node] = []
    todo: list[tuple[Node, bool]] = [(branch, True)]
    while todo:
        node, statement = todo.pop()
        if node.type in flatten:
            children = node.named_children
            todo.extend((children[i], node.field_name_for_named_child(i) is None)
                        for i in range(len(children) - 1, -1, -1))
        elif statement:
            statements.append(node)
    return statements


def _unwrap_errors(nodes: list[Node]) -> list[Node]:
    """``nodes`` with each syntax error node replaced by what it holds: tree-sitter wraps
    the rest of a scope in one error node when it cannot read a construct (an unknown
    macro), and the functions and classes inside it parsed fine."""
    if not any(n.type == "ERROR" for n in nodes):
        return nodes
    out: list[Node] = []
    todo = list(reversed(nodes))
    while todo:
        node = todo.pop()
        if node.type == "ERROR":
            todo.extend(reversed(node.named_children))
        else:
            out.append(node)
    return out


def _header_rows(core: Node, body: Node | None) -> tuple[int, int]:
    """Rows of a definition's header: from its start to where its body begins (the
    body's first row too when the body opens with a brace on the header line)."""
    start = core.start_point.row
    if body is None:
        return start, core.end_point.row
    body_row = body.start_point.row
    opens_with_brace = body.text is not None and body.text[:1] in (b"{", b"(")
    end = body_row if opens_with_brace or body_row == start else body_row - 1
    # Long decorator or parameter lists: keep the last lines, which name the thing.
    return max(start, end - 5), max(start, end)


def _statement_rows(body: Node | None) -> tuple[int, ...]:
    if body is None:
        return ()
    node = body
    # Go wraps statements in a statement_list; descend through single wrappers.
    while len(node.named_children) == 1 and node.named_children[0].type.endswith("_list"):
        node = node.named_children[0]
    return tuple(sorted({child.start_point.row for child in node.named_children}))


def structural_regions(root: Node, language: str, matches: Iterable[Match], *,
                       declaration_file: bool, test_file: bool = False) -> list[Region]:
    """Regions of a parsed file, in source order; ``matches`` are the tags query's
    matches in ``root`` (``grammars.structure_matches``).

    ``test_file``: the file is a test by its path, so definitions named by the
    language's test convention (``test_*``, ``Test*``) get role ``test``.
    """
    spec = LANGUAGES[language]
    walk = _Walk(_Definitions(language, matches), spec.attached, declaration_file,
                 test_name_pattern(language) if test_file else None,
                 test_marker_pattern(language), _Collector(), spec.flatten, spec.member_lists)
    stack: list[tuple[list[Node], _Context]] = [(_unwrap_errors(root.named_children),
                                                  _Context())]
    while stack:
        siblings, ctx = stack.pop()
        _walk_level(siblings, ctx, walk, stack)
    return sorted(walk.collector.regions, key=lambda r: (r.start, r.end, r.rid))


def _lead_start(siblings: list[Node], index: int, attached: frozenset[str]) -> int:
    """First row of the attached comments/attributes directly above ``siblings[index]``."""
    start = siblings[index].start_point.row
    j = index - 1
    while j >= 0 and siblings[j].type in attached and _last_row(siblings[j]) >= start - 1:
        start = siblings[j].start_point.row
        j -= 1
    return start


def _last_row(node: Node) -> int:
    """The last row holding text of ``node`` (Rust's line comments end at column 0 of
    the next row, since they include their newline)."""
    end = node.end_point
    return end.row - 1 if end.column == 0 and end.row > node.start_point.row else end.row


def _walk_level(siblings: list[Node], ctx: _Context, walk: _Walk,
                stack: list[tuple[list[Node], _Context]]) -> None:
    attached = walk.attached
    definitions = [None if n.type in attached else walk.definitions.lookup(n, ctx)
                   for n in siblings]
    definitions = [d if d is None or d.name is not None
                   or (walk.opens(d) and _holds_definitions(d, walk)) else None
                   for d in definitions]
    leads = [_lead_start(siblings, i, attached) if d is not None else -1
             for i, d in enumerate(definitions)]
    following = _next_solid(siblings, attached)
    pending: list[Node] = []
    level: list[Region | None] = []  # None: a container sits here; packing stops at it

    def flush() -> None:
        if not pending:
            return
        _module_regions(pending, ctx, walk.definitions, level, attached)
        pending.clear()

    covered = ctx.covered_until
    base_names = ctx.names
    for index, node in enumerate(siblings):
        found = definitions[index]
        scope = walk.definitions.scope(node) if found is None else None
        if scope is not None:  # a later namespace statement replaces an earlier one
            # Comments right before it (a license header) go with it: they name nothing.
            tail = len(pending)
            while tail > 0 and pending[tail - 1].type in attached:
                tail -= 1
            kept = pending[tail:]
            del pending[tail:]
            flush()
            pending.extend(kept)
            ctx = replace(ctx, names=(*base_names, *scope))
        if found is None:
            # An attached node belongs to the next definition when only attached nodes
            # without blank lines (``leads`` walked that chain up) separate them.
            solid = following[index]
            attached_to_next = (node.type in attached and solid < len(siblings)
                                and definitions[solid] is not None
                                and leads[solid] <= node.start_point.row)
            # A trailing comment on a definition's last line is part of that line.
            trailing = node.type in attached and node.start_point.row <= covered
            if not attached_to_next and not trailing and node.end_point.row > covered:
                pending.append(node)
            continue
        covered = max(covered, node.end_point.row)
        chunk_start = leads[index]
        tail = len(pending)
        # A comment on the row of the statement before it (``x = None  # type: ignore``)
        # is that statement's, never the start of the next definition's chunk.
        while tail > 0 and pending[tail - 1].type in attached and not (
                tail >= 2 and _last_row(pending[tail - 2]) >= pending[tail - 1].start_point.row):
            tail -= 1
        if tail < len(pending):
            # A comment or attribute block that attaches to nothing (a blank line after
            # it) is never a chunk of its own: it travels with the next definition, also
            # when module code comes before it.
            chunk_start = min(chunk_start, pending[tail].start_point.row)
            del pending[tail:]
        flush()
        found = walk.marked(found, siblings, index, leads[index])
        _definition_regions(found, leads[index], ctx, walk, stack, level, chunk_start)
    if pending and all(n.type in attached for n in pending) and level and level[-1] is not None:
        last = level[-1]
        level[-1] = replace(last, end=max(last.end, pending[-1].end_point.row))
        pending.clear()
    flush()
    packed = _pack(level)
    if ctx.carry and packed:
        first = packed[0]
        packed[0] = replace(first, symbols=(*(d.qualified for d in ctx.carry), *first.symbols),
                            defines=(*ctx.carry, *first.defines))
    for region in packed:
        # Each packed region is this level's own fresh object: numbered in place (a
        # dataclasses.replace per region was a tenth of the walk's time).
        numbered = copy.copy(region)
        object.__setattr__(numbered, "rid", walk.collector.next_rid)
        walk.collector.regions.append(numbered)
        walk.collector.next_rid += 1


def _holds_definitions(found: Definition, walk: _Walk) -> bool:
    """A nameless container (an ``#if`` block, a Ruby ``do`` block, an IIFE) is a
    container only when a named definition sits in it, at any depth of nameless ones;
    otherwise it is ordinary code."""
    todo = [found]
    seen = 0
    opened: set[int] = set()
    while todo and seen < _MAX_NAMELESS_SCAN:
        current = todo.pop()
        if current.body is None or not _first_visit(opened, current.body):
            continue
        for member in _members(current.body, walk.flatten, walk.member_lists):
            seen += 1
            inner = walk.definitions.lookup(member, _Context())
            if inner is None or member.type in walk.attached:
                continue
            if inner.name is not None:
                return True
            todo.append(inner)
    return False


_MAX_NAMELESS_SCAN = 10_000


def _first_visit(opened: set[int], body: Node) -> bool:
    """Whether ``body`` is opened for the first time (and mark it opened). Definitions are
    found by byte range, so in a recovered tree a node inside a body can share that body's
    range and lead back to the same definition (Ruby's ``class A\nif()y end``: the
    ``then`` holds only ``y``, so ``y`` is looked up as the ``then``): every walk opens a
    body once, or it would go round for ever."""
    if body.id in opened:
        return False
    opened.add(body.id)
    return True


def _next_solid(siblings: list[Node], attached: frozenset[str]) -> list[int]:
    """For each index, the first later index that is not an attached node (len if none):
    one backward pass, so long runs of comments cost linear time."""
    following = [len(siblings)] * len(siblings)
    nearest = len(siblings)
    for index in range(len(siblings) - 1, -1, -1):
        following[index] = nearest
        if siblings[index].type not in attached:
            nearest = index
    return following


def _qualify(ctx: _Context, name: str) -> str:
    return ".".join((*ctx.names, name))


def _short(qualified: str) -> str:
    return qualified.rsplit(".", 1)[-1]


def _small_container_members(found: Definition, qualified: str, ctx: _Context, walk: _Walk
                             ) -> list[SymbolSpan]:
    """Every member of a container kept whole, nested containers' members included."""
    spans: list[SymbolSpan] = []
    todo: list[tuple[Definition, str, _Context]] = [(found, qualified, ctx)]
    opened: set[int] = set()
    while todo:
        container, prefix, outer = todo.pop()
        if container.body is None or not _first_visit(opened, container.body):
            continue
        inner_ctx = _Context(in_class=True, test=outer.test or container.test)
        members = _members(container.body, walk.flatten, walk.member_lists)
        for index, member in enumerate(members):
            inner = walk.definitions.lookup(member, inner_ctx)
            if inner is None or member.type in walk.attached:
                continue
            lead = _lead_start(members, index, walk.attached)
            inner = walk.marked(inner, members, index, lead)
            names = [(inner.name, inner.header_row, inner.kind)] if inner.name else []
            for name, header, kind in [*names, *inner.extra]:
                member_q = f"{prefix}.{name}" if prefix else name
                spans.append(SymbolSpan(_short(member_q), member_q, kind,
                                        walk.role(inner, inner_ctx, _short(name)), lead,
                                        _last_row(inner.span), header))
            if inner.container:
                nested = inner.name or inner.qualifier
                todo.append((inner, ".".join(p for p in (prefix, nested) if p), inner_ctx))
    return spans


def _definition_regions(found: Definition, lead: int, ctx: _Context, walk: _Walk,
                        stack: list[tuple[list[Node], _Context]],
                        level: list[Region | None], chunk_start: int) -> None:
    """Regions of one definition; ``lead`` starts its symbol span (attached comments
    included), ``chunk_start`` its chunk (a detached comment block above may join it)."""
    if found.container and not walk.opens(found):
        found = replace(found, container=False)  # its members are on the work list already
    end_row = _last_row(found.span)
    qualified = _qualify(ctx, found.name) if found.name else None
    role = walk.role(found, ctx, _short(found.name) if found.name else None)
    # Lists, not tuples grown in a loop: a struct may hold tens of thousands of fields.
    name_list = [qualified] if qualified else []
    defines = []
    if qualified:
        defines.append(SymbolSpan(_short(qualified), qualified, found.kind, role, lead, end_row,
                                  found.header_row))
    listed = set(name_list)
    for extra, extra_header, extra_kind in found.extra:
        extra_q = _qualify(ctx, extra)
        if extra_q not in listed:  # a typedef's struct of the same name: once
            name_list.append(extra_q)
            listed.add(extra_q)
        defines.append(SymbolSpan(_short(extra_q), extra_q, extra_kind, role, lead, end_row,
                                  extra_header))
    header = _header_rows(found.core, found.body)
    members = _members(found.body, walk.flatten, walk.member_lists) if found.body is not None else []
    member_ctx = _Context(in_class=True)
    member_defs = [walk.definitions.lookup(m, member_ctx)
                   if m.type not in walk.attached else None for m in members]
    holds = found.container and any(d is not None for d in member_defs)
    container = holds and any(d is not None and d.kind not in _FIELD_KINDS for d in member_defs)
    # An anonymous object (``module.exports = {...}``) qualifies nothing but still holds
    # its members; an impl block without a name keeps one chunk per member.
    whole = (holds and (qualified is not None or found.kind == "object")
             and found.kind != "module")
    small = container and whole and end_row - lead + 1 <= SMALL_CONTAINER_LINES
    if small or (whole and not container):
        # A small class stays whole: one chunk that defines the class and its members.
        prefix = qualified or ".".join(ctx.names)
        for span in _small_container_members(found, prefix, replace(ctx, test=role == "test"),
                                             walk):
            name_list.append(span.qualified)
            defines.append(span)
    names = tuple(name_list)
    if not container or found.body is None or small:
        level.append(Region(
            rid=-1, start=chunk_start, end=end_row, kind=found.kind, symbol=qualified, symbols=names,
            role=role, headers=ctx.headers, parent=ctx.parent,
            signature=header if found.body is not None else None,
            cuts=_statement_rows(found.body) if not container else
            tuple(sorted({m.start_point.row for m in members})),
            defines=tuple(defines)))
        return
    level.append(None)
    # A nameless block (a conditional, an ``#ifdef``) is transparent: what it holds
    # belongs to the level holding it (a class's methods stay methods), and the code
    # before its first definition is code of that level, not a header.
    transparent = found.kind == "module" and qualified is None
    first = next((i for i, d in enumerate(member_defs) if d is not None), None)
    header_end = end_row
    if first is not None and not transparent:
        header_end = _lead_start(members, first, walk.attached) - 1
    header_end = max(header_end, header[1]) if not transparent else header[1]
    parent: int | None = None
    # An impl whose header is only its `impl X {` line (and attributes) gets no chunk of
    # its own: its symbol rides on its first member's chunk, which repeats that header.
    bare_impl = found.kind == "impl" and header_end - lead < 2
    meaningful = (qualified is not None and not bare_impl) or (
        header_end - lead >= 2 and not transparent)
    if meaningful:
        parent = walk.collector.add(
            start=chunk_start, end=header_end, kind=found.kind if found.kind != "module" else "class",
            symbol=qualified, symbols=names, role=role, headers=ctx.headers, parent=ctx.parent,
            signature=header, cuts=tuple(sorted({m.start_point.row for m in members})),
            defines=tuple(defines))
    qualifier = found.qualifier or found.name
    child_ctx = _Context(
        names=(*ctx.names, qualifier) if qualifier else ctx.names,
        headers=(*ctx.headers, header), parent=parent if parent is not None else ctx.parent,
        in_class=ctx.in_class if transparent else found.kind != "module",
        container_kind=ctx.container_kind if transparent else found.kind,
        container_symbol=ctx.container_symbol if transparent else qualified,
        covered_until=header_end, test=role == "test", carry=tuple(defines) if bare_impl else ())
    walk.opened.add(found.body.id)
    stack.append((members, child_ctx))


MODULE_MAX_LINES = 60


def _module_regions(nodes: list[Node], ctx: _Context, definitions: _Definitions,
                    level: list[Region | None], attached: frozenset[str]) -> None:
    """Runs of non-definition statements (module code at top level, class parts inside a
    container), cut at statement boundaries into runs of at most MODULE_MAX_LINES."""
    runs: list[list[Node]] = []
    for node in nodes:
        if runs and node.end_point.row - runs[-1][0].start_point.row < MODULE_MAX_LINES:
            runs[-1].append(node)
        else:
            runs.append([node])
    for index, run in enumerate(runs):
        if index + 1 < len(runs) and all(n.type in attached for n in run):
            runs[index + 1][:0] = run  # a comment block is never a chunk of its own
            continue
        _module_region(run, ctx, definitions, level, attached)


def _module_region(nodes: list[Node], ctx: _Context, definitions: _Definitions,
                   level: list[Region | None], attached: frozenset[str]) -> None:
    start = nodes[0].start_point.row
    end = _last_row(nodes[-1])
    names: list[str] = []
    spans: dict[str, SymbolSpan] = {}
    in_class = ctx.container_symbol is not None and ctx.in_class
    if not ctx.in_class or in_class:
        for node in nodes:
            for name, row in definitions.names(node).items():
                qualified = _qualify(ctx, name)
                names.append(qualified)
                spans.setdefault(qualified, SymbolSpan(
                    name, qualified, "variable", "test" if ctx.test else "definition",
                    node.start_point.row, _last_row(node), row))
    defines = tuple(spans.values())
    if in_class:
        # Class-level code after the class's head: it carries the names it assigns
        # (``Dataset.__slots__``), never the class itself, which only the chunk holding
        # its header carries, the rule span resolution applies to any other chunking.
        symbols: tuple[str, ...] = tuple(dict.fromkeys(names))
        symbol: str | None = symbols[0] if symbols else None
        kind, role = ctx.container_kind or "class", "test" if ctx.test else "definition"
    else:
        symbols = tuple(dict.fromkeys(names))
        symbol = symbols[0] if symbols else None
        kind, role = "module", "test" if ctx.test else "module"
    level.append(Region(
        rid=-1, start=start, end=end, kind=kind, symbol=symbol, symbols=symbols, role=role,
        headers=ctx.headers, parent=ctx.parent, signature=None,
        cuts=_statement_cuts(nodes, attached), defines=defines))


def _statement_cuts(nodes: list[Node], attached: frozenset[str]) -> tuple[int, ...]:
    """Rows where a split may start a part: a statement's row, or the first row of the
    comments right above it, so no part is only comments."""
    cuts: set[int] = set()
    lead: int | None = None
    for node in nodes:
        if node.type in attached:
            lead = node.start_point.row if lead is None else lead
        else:
            cuts.add(node.start_point.row if lead is None else lead)
            lead = None
    return tuple(sorted(cuts))


PACK_SMALL_LINES = 4
SMALL_CONTAINER_LINES = 30
PACK_MAX_LINES = 40
_SYMBOL_ROLES = ("definition", "declaration", "test")


def _pack(level: list[Region | None]) -> list[Region]:
    """Pack runs of small sibling definitions (getters, one-liners) into one chunk."""
    out: list[Region] = []
    run: list[Region] = []

    def close_run() -> None:
        if len(run) >= 2:
            first, last = run[0], run[-1]
            symbols = tuple(s for r in run for s in r.symbols)
            out.append(Region(
                rid=first.rid, start=first.start, end=last.end, kind="pack",
                symbol=first.symbol, symbols=symbols,
                role=run[0].role,
                headers=first.headers, parent=first.parent, signature=None,
                cuts=tuple(r.start for r in run),
                defines=tuple(d for r in run for d in r.defines)))
        else:
            out.extend(run)
        run.clear()

    for region in level:
        if region is None:
            close_run()
            continue
        small = (region.role in _SYMBOL_ROLES and region.kind != "pack"
                 and region.end - region.start + 1 <= PACK_SMALL_LINES and region.symbols)
        if small and run and (region.end - run[0].start + 1 > PACK_MAX_LINES
                              or region.role != run[0].role):
            close_run()
        if small:
            run.append(region)
        else:
            close_run()
            out.append(region)
    close_run()
    return out
