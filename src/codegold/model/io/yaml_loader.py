"""The YAML loader: safe, line-recording, and bounded while composing.

PyYAML knows the line of every node, so the loader records the line of each mapping and
sequence it builds in a side table keyed by ``id()`` of the built object. Nesting deeper
than :data:`~codegold.model.io.limits.MAX_DEPTH`, aliases that together add more than
:data:`~codegold.model.io.limits.MAX_ALIAS_NODES` nodes (an "alias bomb" otherwise
expands a few kilobytes into gigabytes) and an alias inside its own anchor are refused
before anything is built.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from codegold.errors import SchemaError
from codegold.model.io.documents import kind_name
from codegold.model.io.limits import MAX_ALIAS_NODES, MAX_DEPTH


def _event_parser() -> type[Any]:
    """A safe loader base: libyaml's C scanner and parser when present (3-4x faster),
    feeding PyYAML's Python composer, so the bounds in ``_LineLoader.compose_node`` apply."""
    try:
        from yaml.cyaml import CParser  # type: ignore[attr-defined]
    except ImportError:  # PyYAML built without libyaml
        return yaml.SafeLoader

    class CEventLoader(CParser, Composer, SafeConstructor, Resolver):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

        # CParser composes in C; take the Python composer's methods instead.
        check_node = Composer.check_node
        get_node = Composer.get_node
        get_single_node = Composer.get_single_node
        compose_document = Composer.compose_document
        compose_node = Composer.compose_node

    return CEventLoader


class _LineLoader(_event_parser()):  # type: ignore[misc]
    """A safe loader that records the first line of each mapping and sequence.

    It also bounds the document: nesting deeper than :data:`MAX_DEPTH`, aliases that
    together add more than :data:`MAX_ALIAS_NODES` nodes, and an alias inside its own
    anchor (a cycle) are refused while composing, before anything is built.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.alias_nodes = 0
        self.sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes, height)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            target = self.anchors.get(event.anchor)  # type: ignore[attr-defined]
            line = event.start_mark.line + 1
            if target is not None:
                if id(target) not in self.sizes:
                    raise SchemaError(f"alias *{event.anchor} is used inside its own anchor "
                                      "(a cycle)", line=line)
                nodes, height = self.sizes[id(target)]
                self.alias_nodes += nodes
                if self.alias_nodes > MAX_ALIAS_NODES:
                    raise SchemaError(f"YAML aliases expand the document by more than "
                                      f"{MAX_ALIAS_NODES} nodes (an alias bomb?); write the "
                                      "repeated values out or use fewer aliases", line=line)
                if self.depth + height > MAX_DEPTH:
                    raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", line=line)
            alias: yaml.Node = super().compose_node(parent, index)  # type: ignore[assignment]
            return alias
        if self.check_event(yaml.ScalarEvent):  # depth counts lists and mappings only
            scalar: yaml.Node = super().compose_node(parent, index)  # type: ignore[assignment]
            self.sizes[id(scalar)] = (1, 0)
            return scalar
        self.depth += 1
        if self.depth > MAX_DEPTH:
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", line=mark.line + 1)
        try:
            node: yaml.Node = super().compose_node(parent, index)  # type: ignore[assignment]
        finally:
            self.depth -= 1
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [item for pair in node.value for item in pair]
        sizes = [self.sizes[id(child)] for child in children]
        self.sizes[id(node)] = (1 + sum(n for n, _ in sizes), 1 + max((h for _, h in sizes), default=0))
        return node


def make_loader(lines: dict[int, int]) -> type[_LineLoader]:
    class Loader(_LineLoader):
        pass

    def construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            try:
                seen = key in mapping
            except TypeError:
                raise SchemaError(f"a mapping key must be a plain value, found a "
                                  f"{kind_name(key)}", line=key_node.start_mark.line + 1) from None
            if seen:
                raise SchemaError(
                    f"duplicate key {key!r} in one mapping", line=key_node.start_mark.line + 1
                )
            mapping[key] = loader.construct_object(value_node, deep=True)
        lines[id(mapping)] = node.start_mark.line + 1
        return mapping

    def construct_sequence(loader: yaml.SafeLoader, node: yaml.SequenceNode) -> list[Any]:
        seq = [loader.construct_object(child, deep=True) for child in node.value]
        lines[id(seq)] = node.start_mark.line + 1
        return seq

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, construct_sequence)
    # Timestamps stay strings: revisions and dates are labels here, not datetimes.
    def construct_timestamp(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        return loader.construct_scalar(node)  # type: ignore[arg-type]

    Loader.add_constructor("tag:yaml.org,2002:timestamp", construct_timestamp)
    return Loader
