"""Which definitions a line span holds: the one rule span resolution judges a retriever's
windows by and ``cases from-log`` names a cited span's symbols with.

A definition is held when the span contains its header line. Beyond that a leaf
(function, method, assignment, key, heading) is held when its span covers at least
:data:`HEADER_OVERLAP` of the span's lines; a container (a definition holding recorded
definitions: class, module, namespace, TOML table) only when its head, the lines before
its first member, does. See docs/concepts.md, "Span resolution".
"""

from __future__ import annotations

from dataclasses import dataclass

from codegold.index.records import SymbolDef

HEADER_OVERLAP = 0.5
# A definition holding recorded definitions is a container (class, interface, module,
# namespace, impl, TOML table, a Go struct type), unless it is code that runs: a function
# holding a local definition is still a leaf, judged over its whole span.
LEAF_KINDS = frozenset({"function", "method", "macro"})
# Members that belong to their container's head (Go struct fields): a struct of fields
# only is all head, as its chunk is one region holding them.
HEAD_KINDS = frozenset({"field"})


@dataclass(frozen=True)
class Held:
    """How a definition may be held by a span: by its header line, or by covering at
    least :data:`HEADER_OVERLAP` of the span with ``start..end`` (the whole definition for
    a leaf, only its head for a container)."""

    definition: SymbolDef
    header: int
    start: int
    end: int

    def held_by(self, start: int, end: int) -> bool:
        if start <= self.header <= end:
            return True
        return overlap(start, end, self.start, self.end) >= HEADER_OVERLAP * (end - start + 1)


def holding_rules(definitions: tuple[SymbolDef, ...] | list[SymbolDef]) -> tuple[Held, ...]:
    """One :class:`Held` per definition of one file: a container's overlap counts only
    over its head, the lines from its start to the line before its first member."""
    ordered = sorted(definitions, key=lambda d: (d.start_line, -d.end_line, d.qualified))
    rules = []
    for index, d in enumerate(ordered):
        header = header_line(d)
        # By start line, the first definition nested in d after its header is its first member.
        first_member: int | None = None
        for m in ordered[index + 1:] if d.kind not in LEAF_KINDS else ():
            if m.start_line > d.end_line:
                break
            if m.end_line <= d.end_line and header_line(m) > header and m.kind not in HEAD_KINDS:
                first_member = m.start_line
                break
        if first_member is not None:
            rules.append(Held(d, header, d.start_line, max(header, first_member - 1)))
        else:  # a leaf, or a container without members: its whole span is its head
            rules.append(Held(d, header, d.start_line, d.end_line))
    return tuple(rules)


def held_definitions(rules: tuple[Held, ...], start: int, end: int) -> list[SymbolDef]:
    """The definitions the span ``start..end`` holds (see :class:`Held`)."""
    return [rule.definition for rule in rules if rule.held_by(start, end)]


def header_line(definition: SymbolDef) -> int:
    """The line that declares ``definition`` (its ``def``/``class``/``function`` line, not
    the decorator or doc comment its span starts with); the span's first line when the
    index did not record one."""
    return definition.header_line or definition.start_line


def overlap(start: int, end: int, other_start: int, other_end: int) -> int:
    """How many lines ``start..end`` and ``other_start..other_end`` share."""
    return max(0, min(end, other_end) - max(start, other_start) + 1)
