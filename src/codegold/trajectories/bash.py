"""A shell command as bash reads it: pipelines of simple commands, their words unquoted,
where each one's output goes, the here-documents fed to them, in the order they run.

The parse is tree-sitter's bash grammar, bounded: a command longer than
``MAX_COMMAND_CHARS`` is not parsed, and a parse that takes more than ``PARSE_BUDGET``
progress checks (each about a hundred parser steps; a plain command takes none) is given
up, so a hostile command costs a bounded, machine-independent amount of work.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

MAX_COMMAND_CHARS = 1_000_000
"""Longest command parsed (here-documents included)."""
PARSE_BUDGET = 300
"""Most progress checks one parse may take (a 20 kB command of plain words takes ~200)."""
MAX_DEPTH = 64
"""Deepest nesting of subshells, groups and lists read."""

_CHUNK = 1 << 16
_STATEMENT_LISTS = {"program", "list", "compound_statement", "subshell", "do_group",
                    "else_clause", "elif_clause", "case_item"}
_COMPOUND = {"for_statement", "c_style_for_statement", "while_statement", "if_statement",
             "case_statement"}
_SILENT = {"variable_assignment", "variable_assignments", "declaration_command",
           "unset_command", "test_command", "comment", "function_definition"}
_LAST_STAGE_BODIES = {"command", "pipeline", "list", "negated_command", "redirected_statement"}
_ESCAPED = re.compile(r"\\(.)", re.S)
_ESCAPED_IN_QUOTES = re.compile(r"\\([\"\\$`\n])")


class Unreadable(Exception):
    """The command cannot be read; the message says why."""


@dataclass
class Stage:
    """One simple command of a pipeline: its words, where its stdout goes, what it reads
    on stdin (a here-document or here-string); ``compound`` names a loop or condition,
    whose output cannot be told apart (``inner`` holds its commands, for their changes)."""

    argv: list[str]
    literal: bool = True            # no word holds an expansion or substitution
    stdout_to: str | None = None
    appends: bool = False
    stdin: str | None = None
    compound: str | None = None
    inner: list[Stage] = field(default_factory=list)


@dataclass
class Segment:
    """A pipeline; ``scope`` opens (``+1``) or closes (``-1``) a subshell instead."""

    stages: list[Stage] = field(default_factory=list)
    scope: Literal[-1, 0, 1] = 0


Token = Stage | Literal["|", ";", "(", ")"]

_local = threading.local()


def _parser() -> Parser:
    """This thread's bash parser (a Parser must not be shared by threads)."""
    found: Parser | None = getattr(_local, "parser", None)
    if found is None:
        found = _local.parser = Parser(Language(tree_sitter_bash.language()))
    return found


def _tree_root(data: bytes) -> Node:
    checks = 0

    def progress(*_: object) -> bool:
        nonlocal checks
        checks += 1
        return checks > PARSE_BUDGET

    parser = _parser()
    try:
        tree = parser.parse(lambda offset, _point: data[offset:offset + _CHUNK],
                            progress_callback=progress)
    except ValueError:  # the budget ran out (0.26 raises; earlier versions return None)
        tree = None
    if tree is None:
        parser.reset()
        raise Unreadable("shell command too long or intricate to parse")
    return tree.root_node


def _text(node: Node) -> str:
    data = node.text or b""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # a lone surrogate, which the grammar may cut through
        return data.decode("utf-8", "replace")


def _word(node: Node) -> tuple[str, bool]:
    """A word's value as the command receives it, and whether it is literal (no
    expansion or substitution: those keep their source text)."""
    kind = node.type
    if kind == "word":
        return _ESCAPED.sub(r"\1", _text(node)), True
    if kind in ("number", "command_name"):
        if kind == "command_name" and node.named_child_count == 1:
            return _word(node.named_children[0])
        return _text(node), kind == "number"
    if kind == "raw_string":
        return _text(node)[1:-1], True
    if kind == "ansi_c_string":
        text = _text(node)[2:-1]
        return text, "\\" not in text
    if kind in ("string", "translated_string"):
        parts: list[str] = []
        literal = True
        for child in node.children:
            if child.type == "string_content":
                parts.append(_ESCAPED_IN_QUOTES.sub(
                    lambda m: "" if m.group(1) == "\n" else m.group(1), _text(child)))
            elif child.is_named:
                parts.append(_text(child))
                literal = False
        return "".join(parts), literal
    if kind == "concatenation":
        values = [_word(child) if child.is_named else (_text(child), True)
                  for child in node.children]
        return "".join(v for v, _ in values), all(lit for _, lit in values)
    return _text(node), False


def _redirect(node: Node, stage: Stage) -> None:
    """Apply a ``> f`` / ``2>&1`` / here-string redirection to ``stage``."""
    if node.type == "herestring_redirect":
        word = next((c for c in node.named_children), None)
        stage.stdin = _word(word)[0] + "\n" if word is not None else None
        return
    if node.type != "file_redirect":
        return
    descriptor = node.child_by_field_name("descriptor")
    target = node.child_by_field_name("destination")
    operator = next((c.type for c in node.children if not c.is_named), "")
    fd = _text(descriptor) if descriptor is not None else None
    if target is None:
        return
    value, _ = _word(target)
    to_file = (operator in (">", ">>", ">|") and fd in (None, "1")) \
        or operator in ("&>", "&>>") \
        or (operator == ">&" and fd is None and target.type != "number" and value != "-")
    if to_file:
        stage.stdout_to, stage.appends = value, operator.endswith(">>")


class _Reader:
    def __init__(self) -> None:
        self.compound = 0  # inside a loop or condition: only its commands' changes count

    def command(self, node: Node) -> Stage:
        stage = Stage(argv=[])
        redirects: list[Node] = []
        for index, child in enumerate(node.children):
            name = node.field_name_for_child(index)
            if name in ("name", "argument"):
                value, literal = _word(child)
                stage.argv.append(value)
                stage.literal = stage.literal and literal
            elif child.type.endswith("_redirect"):
                redirects.append(child)
        for redirect in redirects:
            _redirect(redirect, stage)
        return stage

    def walk(self, node: Node, out: list[Token], depth: int) -> None:
        if depth > MAX_DEPTH:
            raise Unreadable("shell command nested too deeply")
        kind = node.type
        if kind == "command":
            out.append(self.command(node))
        elif kind in _STATEMENT_LISTS:
            if kind == "subshell":
                out.append("(")
            first = True
            for child in node.named_children:
                if child.type == "comment":
                    continue
                if not first:
                    out.append(";")
                first = False
                self.walk(child, out, depth + 1)
            if kind == "subshell":
                out.append(")")
        elif kind == "pipeline":
            for position, child in enumerate(node.named_children):
                if position:
                    out.append("|")
                self.walk(child, out, depth + 1)
        elif kind == "redirected_statement":
            self.redirected(node, out, depth)
        elif kind == "negated_command":
            for child in node.named_children:
                self.walk(child, out, depth + 1)
        elif kind in _COMPOUND:
            inner: list[Token] = []
            self.compound += 1
            for child in node.named_children:
                self.walk(child, inner, depth + 1)
            self.compound -= 1
            # a loop in a loop: its commands' changes count too, so they are flattened
            flat = [part for token in inner if isinstance(token, Stage)
                    for part in (token, *token.inner)]
            out.append(Stage(argv=[], compound=kind.removesuffix("_statement"), inner=flat))
        elif kind in _SILENT or not node.is_named:
            return
        elif kind in ("word", "string", "raw_string", "concatenation", "simple_expansion",
                      "expansion", "command_substitution", "number"):
            # a statement that is only a word: bash runs it as a command
            value, literal = _word(node)
            out.append(Stage(argv=[value], literal=literal))
        elif not self.compound:  # a loop's variables, words and conditions are passed over
            raise Unreadable(f"shell construct codegold does not read ({kind})")

    def redirected(self, node: Node, out: list[Token], depth: int) -> None:
        body = node.child_by_field_name("body")
        inner: list[Token] = []
        if body is not None:
            self.walk(body, inner, depth + 1)
        stages = [t for t in inner if isinstance(t, Stage)]
        if not stages:
            stages = [Stage(argv=[])]
            inner.append(stages[0])
        # bash binds a redirection to the command before it; the grammar hangs one after
        # `a && b` or `a | b` on the whole list, so it goes to the last command of it
        targets = stages[-1:] if body is None or body.type in _LAST_STAGE_BODIES else stages
        after: list[Token] = []
        for child in node.children_by_field_name("redirect"):
            for stage in targets:
                _redirect(child, stage)
            if child.type == "heredoc_redirect":
                self.heredoc(child, targets, after, depth)
        out.extend(inner)
        out.extend(after)

    def heredoc(self, node: Node, targets: list[Stage], after: list[Token], depth: int) -> None:
        """A here-document's body, the redirections written on its line and what the line
        goes on with (``<<EOF | python``, ``<<EOF && cat f``)."""
        for index, child in enumerate(node.children):
            name = node.field_name_for_child(index)
            if child.type == "heredoc_body":
                for stage in targets:
                    stage.stdin = _text(child)
            elif child.type.endswith("_redirect"):
                for stage in targets:
                    _redirect(child, stage)
            elif child.type == "pipeline":
                for part in child.named_children:
                    after.append("|")
                    self.walk(part, after, depth + 1)
            elif name == "right":
                after.append(";")
                self.walk(child, after, depth + 1)


def _tokens(command: str) -> list[Token]:
    if len(command) > MAX_COMMAND_CHARS:
        raise Unreadable(f"shell command longer than {MAX_COMMAND_CHARS:,} characters")
    root = _tree_root(command.encode("utf-8", "surrogatepass"))
    if root.has_error:
        raise Unreadable("shell command codegold cannot parse (unbalanced quotes or brackets)")
    tokens: list[Token] = []
    _Reader().walk(root, tokens, 0)
    return tokens


def _segments(tokens: list[Token]) -> Iterator[Segment]:
    current = Segment()
    for token in tokens:
        if isinstance(token, Stage):
            current.stages.append(token)
        elif token == "|":
            continue
        else:
            if current.stages:
                yield current
            current = Segment()
            if token in ("(", ")"):
                yield Segment(scope=1 if token == "(" else -1)
    if current.stages:
        yield current


def parse_command(command: str) -> list[Segment]:
    """The pipelines of ``command`` in the order they run (``a && b; c | d``: three), with
    subshell scopes marked; raises :class:`Unreadable` with the reason it cannot."""
    segments = list(_segments(_tokens(command)))
    for segment in segments:
        segment.stages = [s for s in segment.stages if s.argv or s.stdout_to or s.compound]
    return [s for s in segments if s.stages or s.scope]


__all__ = ["MAX_COMMAND_CHARS", "PARSE_BUDGET", "Segment", "Stage", "Unreadable",
           "parse_command"]
