"""Structural regions of a parsed file: one per definition, container header or run of
module-level code, before size limits are applied.

The walk is iterative (an explicit stack), visits only the top level, wrappers such as
``export`` or decorators, and container bodies (classes, impls, traits, namespaces), so
its cost grows with the number of definitions, not with the number of syntax nodes, and
deeply nested code cannot exhaust Python's recursion limit. Definitions nested inside
function bodies stay inside their enclosing function's chunk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from tree_sitter import Node

# Node types that attach to the definition right below them (doc comments, decorators,
# attributes) when no blank line separates them.
_ATTACH = frozenset({"comment", "line_comment", "block_comment", "decorator", "attribute_item",
                     "html_comment"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function",
                              "generator_function"})


@dataclass(frozen=True)
class Definition:
    """What a node defines, as seen by the walker."""

    kind: str                    # function | method | class | interface | type | module
    name: str | None             # None for an impl block (qualifies members, defines nothing)
    span: Node                   # the node including wrappers (export, decorators)
    core: Node                   # the definition node itself
    body: Node | None            # the body node (members or statements)
    container: bool              # members become their own chunks
    declaration: bool            # a signature without a body
    qualifier: str | None = None  # name that qualifies members (impl's type, Go receiver)
    extra_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class SymbolSpan:
    name: str
    qualified: str
    kind: str
    role: str
    start: int  # 0-based rows, inclusive
    end: int


@dataclass(frozen=True)
class Region:
    """A candidate chunk: rows are 0-based and inclusive."""

    rid: int
    start: int
    end: int
    kind: str
    symbol: str | None
    symbols: tuple[str, ...]
    role: str                                   # definition | declaration | module
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


def _name(node: Node, field_name: str = "name") -> str | None:
    child = node.child_by_field_name(field_name)
    text = _text(child).strip()
    return text or None


def _type_name(node: Node | None) -> str | None:
    """The bare type name of a (possibly generic, pointer or scoped) type node."""
    current = node
    while current is not None:
        if current.type in ("type_identifier", "identifier", "primitive_type"):
            return _text(current)
        inner = current.child_by_field_name("type") or current.child_by_field_name("name")
        if inner is None:
            named = [c for c in current.named_children if c.type != "type_arguments"]
            inner = named[-1] if named else None
        current = inner
    return None


# --- per-family classification ---------------------------------------------------------

def _python(node: Node, ctx: _Context) -> Definition | None:
    kind = node.type
    if kind == "decorated_definition":
        inner = node.child_by_field_name("definition")
        found = _python(inner, ctx) if inner is not None else None
        if found is None:
            return None
        return Definition(found.kind, found.name, node, found.core, found.body, found.container,
                          found.declaration)
    if kind == "function_definition":
        body = node.child_by_field_name("body")
        return Definition("method" if ctx.in_class else "function", _name(node), node, node,
                          body, False, _python_stub(body))
    if kind == "class_definition":
        return Definition("class", _name(node), node, node, node.child_by_field_name("body"),
                          True, False)
    return None


def _python_stub(body: Node | None) -> bool:
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


def _python_variables(node: Node) -> list[str]:
    if node.type != "expression_statement":
        return []
    names = []
    for child in node.named_children:
        if child.type == "assignment":
            left = child.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                names.append(_text(left))
    return names


def _javascript(node: Node, ctx: _Context) -> Definition | None:
    kind = node.type
    if kind == "export_statement":
        inner = node.child_by_field_name("declaration") or node.child_by_field_name("value")
        found = _javascript(inner, ctx) if inner is not None else None
        if found is None:
            return None
        return Definition(found.kind, found.name, node, found.core, found.body, found.container,
                          found.declaration)
    if kind == "ambient_declaration":
        for child in node.named_children:
            found = _javascript(child, ctx)
            if found is not None:
                return Definition(found.kind, found.name, node, found.core, found.body,
                                  found.container, True)
        return None
    if kind in ("function_declaration", "generator_function_declaration"):
        return Definition("function", _name(node), node, node, node.child_by_field_name("body"),
                          False, False)
    if kind == "function_signature":
        return Definition("function", _name(node), node, node, None, False, True)
    if kind in ("class_declaration", "abstract_class_declaration"):
        return Definition("class", _name(node), node, node, node.child_by_field_name("body"),
                          True, False)
    if kind == "interface_declaration":
        return Definition("interface", _name(node), node, node, node.child_by_field_name("body"),
                          False, False)
    if kind in ("type_alias_declaration", "enum_declaration"):
        return Definition("type", _name(node), node, node, node.child_by_field_name("body"),
                          False, False)
    if kind in ("internal_module", "module"):
        body = node.child_by_field_name("body")
        if body is None:
            return None
        return Definition("module", _name(node), node, node, body, True, False)
    if kind in ("lexical_declaration", "variable_declaration"):
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        if len(declarators) != 1:
            return None
        value = declarators[0].child_by_field_name("value")
        if value is not None and value.type in _FUNCTION_VALUES:
            return Definition("function", _name(declarators[0]), node, node,
                              value.child_by_field_name("body"), False, False)
        return None
    if ctx.in_class:
        if kind == "method_definition":
            return Definition("method", _name(node), node, node, node.child_by_field_name("body"),
                              False, False)
        if kind in ("method_signature", "abstract_method_signature"):
            return Definition("method", _name(node), node, node, None, False, True)
        if kind in ("public_field_definition", "field_definition"):
            value = node.child_by_field_name("value")
            if value is not None and value.type in _FUNCTION_VALUES:
                name = _name(node) or _name(node, "property")
                return Definition("method", name, node, node, value.child_by_field_name("body"),
                                  False, False)
    return None


def _javascript_variables(node: Node) -> list[str]:
    if node.type == "export_statement":
        inner = node.child_by_field_name("declaration")
        return _javascript_variables(inner) if inner is not None else []
    if node.type not in ("lexical_declaration", "variable_declaration"):
        return []
    names = []
    for declarator in node.named_children:
        if declarator.type == "variable_declarator":
            name = declarator.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                names.append(_text(name))
    return names


def _go(node: Node, ctx: _Context) -> Definition | None:
    kind = node.type
    if kind == "function_declaration":
        return Definition("function", _name(node), node, node, node.child_by_field_name("body"),
                          False, node.child_by_field_name("body") is None)
    if kind == "method_declaration":
        receiver_type = None
        receiver = node.child_by_field_name("receiver")
        if receiver is not None:
            for parameter in receiver.named_children:
                receiver_type = _type_name(parameter.child_by_field_name("type"))
                break
        name = _name(node)
        qualified = f"{receiver_type}.{name}" if receiver_type and name else name
        return Definition("method", qualified, node, node, node.child_by_field_name("body"),
                          False, node.child_by_field_name("body") is None)
    if kind == "type_declaration":
        specs = [c for c in node.named_children if c.type in ("type_spec", "type_alias")]
        if not specs:
            return None
        names = tuple(n for n in (_name(s) for s in specs) if n)
        first_type = specs[0].child_by_field_name("type")
        type_kind = {"struct_type": "class", "interface_type": "interface"}.get(
            first_type.type if first_type is not None else "", "type")
        return Definition(type_kind, names[0] if names else None, node, node, first_type, False,
                          False, extra_names=names[1:])
    return None


def _go_variables(node: Node) -> list[str]:
    if node.type not in ("const_declaration", "var_declaration"):
        return []
    names = []
    for spec in node.named_children:
        if spec.type in ("const_spec", "var_spec"):
            for child in spec.children_by_field_name("name"):
                names.append(_text(child))
    return names


_JAVA_CONTAINERS = {"class_declaration": "class", "enum_declaration": "class",
                    "record_declaration": "class", "interface_declaration": "interface",
                    "annotation_type_declaration": "interface"}


def _java(node: Node, ctx: _Context) -> Definition | None:
    kind = node.type
    if kind in _JAVA_CONTAINERS:
        return Definition(_JAVA_CONTAINERS[kind], _name(node), node, node,
                          node.child_by_field_name("body"), True, False)
    if kind in ("method_declaration", "constructor_declaration",
                "compact_constructor_declaration"):
        body = node.child_by_field_name("body")
        return Definition("method", _name(node), node, node, body, False, body is None)
    return None


def _rust(node: Node, ctx: _Context) -> Definition | None:
    kind = node.type
    function_kind = "method" if ctx.in_class else "function"
    if kind == "function_item":
        return Definition(function_kind, _name(node), node, node, node.child_by_field_name("body"),
                          False, False)
    if kind == "function_signature_item":
        return Definition(function_kind, _name(node), node, node, None, False, True)
    if kind == "struct_item":
        return Definition("class", _name(node), node, node, node.child_by_field_name("body"),
                          False, False)
    if kind in ("enum_item", "union_item", "type_item"):
        return Definition("type", _name(node), node, node, node.child_by_field_name("body"),
                          False, False)
    if kind == "macro_definition":
        return Definition("function", _name(node), node, node, None, False, False)
    if kind == "trait_item":
        return Definition("interface", _name(node), node, node, node.child_by_field_name("body"),
                          True, False)
    if kind == "impl_item":
        body = node.child_by_field_name("body")
        if body is None:
            return None
        return Definition("class", None, node, node, body, True, False,
                          qualifier=_type_name(node.child_by_field_name("type")))
    if kind == "mod_item":
        body = node.child_by_field_name("body")
        if body is None:
            return None
        return Definition("module", _name(node), node, node, body, True, False)
    return None


def _rust_variables(node: Node) -> list[str]:
    if node.type in ("const_item", "static_item"):
        name = _name(node)
        return [name] if name else []
    return []


def _no_variables(node: Node) -> list[str]:
    return []


_Classifier = Callable[[Node, _Context], Definition | None]
_FAMILIES: dict[str, tuple[_Classifier, Callable[[Node], list[str]]]] = {
    "python": (_python, _python_variables),
    "javascript": (_javascript, _javascript_variables),
    "go": (_go, _go_variables),
    "java": (_java, _no_variables),
    "rust": (_rust, _rust_variables),
}


def _members(body: Node) -> list[Node]:
    members: list[Node] = []
    for child in body.named_children:
        if child.type == "enum_body_declarations":
            members.extend(child.named_children)
        else:
            members.append(child)
    return members


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


def structural_regions(root: Node, family: str, *, declaration_file: bool) -> list[Region]:
    """Regions of a parsed file, in source order."""
    classify, variables = _FAMILIES[family]
    collector = _Collector()
    stack: list[tuple[list[Node], _Context]] = [(list(root.named_children), _Context())]
    while stack:
        siblings, ctx = stack.pop()
        _walk_level(siblings, ctx, classify, variables, collector, stack, declaration_file)
    return sorted(collector.regions, key=lambda r: (r.start, r.end, r.rid))


def _lead_start(siblings: list[Node], index: int) -> int:
    """First row of the attached comments/decorators directly above ``siblings[index]``."""
    start = siblings[index].start_point.row
    j = index - 1
    while j >= 0 and siblings[j].type in _ATTACH and siblings[j].end_point.row >= start - 1:
        start = siblings[j].start_point.row
        j -= 1
    return start


def _walk_level(siblings: list[Node], ctx: _Context, classify: _Classifier,
                variables: Callable[[Node], list[str]], collector: _Collector,
                stack: list[tuple[list[Node], _Context]], declaration_file: bool) -> None:
    definitions = [None if n.type in _ATTACH else classify(n, ctx) for n in siblings]
    leads = [_lead_start(siblings, i) if d is not None else -1 for i, d in enumerate(definitions)]
    pending: list[Node] = []
    level: list[Region | None] = []  # None: a container sits here; packing stops at it

    def flush() -> None:
        if not pending:
            return
        _module_regions(pending, ctx, variables, collector, level)
        pending.clear()

    for index, node in enumerate(siblings):
        found = definitions[index]
        if found is None:
            attached_to_next = (node.type in _ATTACH and index + 1 < len(siblings)
                                and definitions[index + 1] is not None
                                and leads[index + 1] <= node.start_point.row)
            if not attached_to_next and node.end_point.row > ctx.covered_until:
                pending.append(node)
            continue
        flush()
        _definition_regions(found, leads[index], ctx, classify, collector, stack, level,
                            declaration_file)
    flush()
    for region in _pack(level):
        collector.regions.append(replace(region, rid=collector.next_rid))
        collector.next_rid += 1


def _qualify(ctx: _Context, name: str) -> str:
    return ".".join((*ctx.names, name))


def _definition_regions(found: Definition, lead: int, ctx: _Context, classify: _Classifier,
                        collector: _Collector, stack: list[tuple[list[Node], _Context]],
                        level: list[Region | None], declaration_file: bool) -> None:
    start_row = found.span.start_point.row
    end_row = found.span.end_point.row
    role = "declaration" if found.declaration or declaration_file else "definition"
    qualified = _qualify(ctx, found.name) if found.name else None
    names: tuple[str, ...] = (qualified,) if qualified else ()
    defines = []
    if qualified and found.name:
        defines.append(SymbolSpan(qualified.rsplit(".", 1)[-1], qualified, found.kind, role,
                                  start_row, end_row))
    for extra in found.extra_names:
        extra_q = _qualify(ctx, extra)
        names += (extra_q,)
        defines.append(SymbolSpan(extra, extra_q, found.kind, role, start_row, end_row))
    header = _header_rows(found.core, found.body)
    members = _members(found.body) if found.body is not None else []
    member_ctx = _Context(in_class=True)
    small = (found.container and qualified is not None and found.kind != "module"
             and end_row - lead + 1 <= SMALL_CONTAINER_LINES)
    if small and qualified is not None:
        # A small class stays whole: one chunk that defines the class and its members.
        for member in members:
            inner = classify(member, member_ctx)
            if inner is None or not inner.name:
                continue
            member_q = f"{qualified}.{inner.name}"
            names += (member_q,)
            defines.append(SymbolSpan(
                inner.name, member_q, inner.kind,
                "declaration" if inner.declaration or declaration_file else "definition",
                inner.span.start_point.row, inner.span.end_point.row))
    if not found.container or found.body is None or small:
        level.append(Region(
            rid=-1, start=lead, end=end_row, kind=found.kind, symbol=qualified, symbols=names,
            role=role, headers=ctx.headers, parent=ctx.parent,
            signature=header if found.body is not None else None,
            cuts=_statement_rows(found.body), defines=tuple(defines)))
        return
    level.append(None)
    first_member = next((m for m in members if classify(m, member_ctx) is not None), None)
    header_end = end_row
    if first_member is not None:
        member_index = members.index(first_member)
        header_end = _lead_start(members, member_index) - 1
    header_end = max(header_end, header[1])
    parent: int | None = None
    meaningful = qualified is not None or header_end - lead >= 2
    if meaningful:
        parent = collector.add(
            start=lead, end=header_end, kind=found.kind if found.kind != "module" else "class",
            symbol=qualified, symbols=names, role=role, headers=ctx.headers, parent=ctx.parent,
            signature=header, cuts=tuple(sorted({m.start_point.row for m in members})),
            defines=tuple(defines))
    qualifier = found.qualifier or found.name
    child_ctx = _Context(
        names=(*ctx.names, qualifier) if qualifier else ctx.names,
        headers=(*ctx.headers, header), parent=parent if parent is not None else ctx.parent,
        in_class=found.kind != "module", container_kind=found.kind,
        container_symbol=qualified, covered_until=header_end)
    stack.append((members, child_ctx))


MODULE_MAX_LINES = 60


def _module_regions(nodes: list[Node], ctx: _Context, variables: Callable[[Node], list[str]],
                    collector: _Collector, level: list[Region | None]) -> None:
    """Runs of non-definition statements (module code at top level, class parts inside a
    container), cut at statement boundaries into runs of at most MODULE_MAX_LINES."""
    runs: list[list[Node]] = []
    for node in nodes:
        if runs and node.end_point.row - runs[-1][0].start_point.row < MODULE_MAX_LINES:
            runs[-1].append(node)
        else:
            runs.append([node])
    for run in runs:
        _module_region(run, ctx, variables, level)


def _module_region(nodes: list[Node], ctx: _Context, variables: Callable[[Node], list[str]],
                   level: list[Region | None]) -> None:
    start = nodes[0].start_point.row
    end = nodes[-1].end_point.row
    names: list[str] = []
    spans: dict[str, SymbolSpan] = {}
    if not ctx.in_class:
        for node in nodes:
            for name in variables(node):
                qualified = _qualify(ctx, name)
                names.append(qualified)
                spans.setdefault(qualified, SymbolSpan(
                    name, qualified, "variable", "definition", node.start_point.row,
                    node.end_point.row))
    in_class = ctx.container_symbol is not None and ctx.in_class
    defines = tuple(spans.values())
    if in_class:
        symbol: str | None = ctx.container_symbol
        symbols: tuple[str, ...] = (ctx.container_symbol,) if ctx.container_symbol else ()
        kind, role = ctx.container_kind or "class", "definition"
    else:
        symbols = tuple(dict.fromkeys(names))
        symbol = symbols[0] if symbols else None
        kind, role = "module", "module"
    level.append(Region(
        rid=-1, start=start, end=end, kind=kind, symbol=symbol, symbols=symbols, role=role,
        headers=ctx.headers, parent=ctx.parent, signature=None,
        cuts=tuple(sorted({n.start_point.row for n in nodes})), defines=defines))


PACK_SMALL_LINES = 4
SMALL_CONTAINER_LINES = 30
PACK_MAX_LINES = 40


def _pack(level: list[Region | None]) -> list[Region]:
    """Pack runs of small sibling definitions (getters, one-liners) into one chunk."""
    out: list[Region] = []
    run: list[Region] = []

    def close_run() -> None:
        if len(run) >= 2:
            first, last = run[0], run[-1]
            symbols = tuple(s for r in run for s in r.symbols)
            roles = {r.role for r in run}
            out.append(Region(
                rid=first.rid, start=first.start, end=last.end, kind="pack",
                symbol=first.symbol, symbols=symbols,
                role="declaration" if roles == {"declaration"} else "definition",
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
        small = (region.role in ("definition", "declaration") and region.kind != "pack"
                 and region.end - region.start + 1 <= PACK_SMALL_LINES and region.symbols)
        if small and run and region.end - run[0].start + 1 > PACK_MAX_LINES:
            close_run()
        if small:
            run.append(region)
        else:
            close_run()
            out.append(region)
    close_run()
    return out
