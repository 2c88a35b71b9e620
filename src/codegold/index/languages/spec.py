"""What codegold knows about one structurally chunked language: its :class:`LanguageSpec`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class LanguageSpec:
    """What codegold knows about one structurally chunked language.

    ``tags`` name query files under ``queries/`` (``<name>.tags.scm``) concatenated in
    order; their captures are documented in docs/index.md. ``wrappers`` are node types
    that wrap a definition without changing what it defines (``export``, decorators, an
    expression statement around an assignment): the walker sees the wrapper, the query
    matches the definition inside. ``attached`` are node types (doc comments, attributes)
    that belong to the definition right below them. ``test_names`` is the naming
    convention of tests: in a test file, a definition whose short name matches it has
    role ``test``. ``test_markers`` matches an attached node's text (an attribute) that
    makes the definition below it a test in any file, its members included.
    ``flatten`` are node types whose statements belong to the level holding them (the
    branches of a conditional the tags query marks as a nameless ``module``): the walker
    takes their statements as members and leaves out their conditions.
    ``prepare``: rewrites the bytes before parsing (see :func:`parse_source`), keeping
    every row and byte offset.
    """

    name: str  # the language name model.languages gives its files
    module: str  # the grammar wheel's module
    loader: str  # its function returning the grammar
    family: str
    tags: tuple[str, ...]
    wrappers: frozenset[str]
    attached: frozenset[str]
    test_names: str | None = None
    test_markers: str | None = None
    prepare: Callable[[bytes], bytes] | None = None
    flatten: frozenset[str] = frozenset()
    # Node types in a container's body whose children are its members (Java's
    # ``enum_body_declarations`` after the constants, Ruby's ``body_statement``).
    member_lists: frozenset[str] = frozenset()
    # Name nodes that hold the parameter list too (C++ ``operator bool() const``): the
    # name is what comes before the parameters.
    names_with_parameters: frozenset[str] = frozenset()
