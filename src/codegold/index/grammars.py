"""Parsing by language: grammars, parsers and the compiled queries of every language in
:data:`codegold.index.languages.LANGUAGES` (what each language is lives there, one module
per language, with its query files).

Grammars and queries are loaded lazily and cached per process (both are immutable and
safe to share); parsers are not thread-safe, so there is one per thread.
"""

from __future__ import annotations

import importlib
import re
import threading
import time
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from codegold.index.languages import LANGUAGES, STRUCTURAL_LANGUAGES, LanguageSpec

__all__ = ["LANGUAGES", "MAX_QUERY_START_DEPTH", "STRUCTURAL_LANGUAGES", "Deadline",
           "LanguageSpec", "Match", "OverBudget", "QueryTooSlow", "calls_query",
           "compile_queries", "family", "matches_within", "parse_budget", "parse_source",
           "parse_tree", "parser", "query_cursor", "query_scan_steps", "structure_matches",
           "tags_query", "test_marker_pattern", "test_name_pattern", "ts_language"]


def family(language: str) -> str:
    """The family whose call-site query a language uses (TS/TSX use JavaScript's)."""
    return LANGUAGES[language].family


@cache
def test_name_pattern(language: str) -> re.Pattern[str] | None:
    pattern = LANGUAGES[language].test_names
    return re.compile(pattern) if pattern else None


@cache
def test_marker_pattern(language: str) -> re.Pattern[str] | None:
    pattern = LANGUAGES[language].test_markers
    return re.compile(pattern, re.DOTALL) if pattern else None


@cache
def ts_language(language: str) -> Language:
    spec = LANGUAGES[language]
    module: Any = importlib.import_module(spec.module)
    return Language(getattr(module, spec.loader)())


_local = threading.local()


def parser(language: str) -> Parser:
    """This thread's parser for ``language`` (a Parser must not be shared by threads)."""
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    found = parsers.get(language)
    if found is None:
        found = parsers[language] = Parser(ts_language(language))
    return found


# tree-sitter's error recovery is quadratic on some inputs (an unclosed ``/* x`` per line:
# 100 kB of JavaScript took 95 s, of Go 73 s), and so are some queries on some trees (PHP's
# ``"{$"`` repeated in a string), so a file's parse and queries run against a deadline
# that grows with its size and is bounded: PARSE_SECONDS, plus PARSE_SECONDS_PER_MB per
# megabyte, at most PARSE_SECONDS_MAX. Real files parse in a small part of it (a megabyte
# of C in about a second on a loaded machine); past it the file gets line chunks and the
# inventory says why. A parse that finished in time is done once more, reusing its tree,
# so it costs at most about twice its budget.
PARSE_SECONDS = 5.0
PARSE_SECONDS_PER_MB = 10.0
PARSE_SECONDS_MAX = 15.0


def parse_budget(size: int) -> float:
    """Seconds a file of ``size`` bytes may spend in tree-sitter (parse and queries)."""
    return min(PARSE_SECONDS_MAX, PARSE_SECONDS + PARSE_SECONDS_PER_MB * size / 1_000_000)


class OverBudget(Exception):
    """Parsing or querying a file ran past its :class:`Deadline` (never leaves the chunker);
    ``stage`` says which."""

    def __init__(self, stage: str) -> None:
        super().__init__(stage)
        self.stage = stage


class Deadline:
    """When one file's tree-sitter work must stop: polled by the parser's progress
    callback (about every ten milliseconds of its work) and after each query."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds
        self.passed = False

    def check(self) -> bool:
        if not self.passed and time.monotonic() >= self._end:
            self.passed = True
        return self.passed

    def on_parse(self, _offset: int, _has_error: bool) -> bool:
        return self.check()  # True cancels the parse

    def raise_if_passed(self, stage: str = "querying") -> None:
        if self.passed:
            raise OverBudget(stage)


_READ_BYTES = 1 << 16


def parse_tree(language: str, source: bytes, deadline: Deadline | None = None) -> Node:
    """The root of ``source`` parsed by this thread's parser for ``language`` (``source``
    as :func:`parse_source` gives it); :class:`OverBudget` when ``deadline`` passes first."""
    found = parser(language)
    if deadline is None:
        return found.parse(source).root_node
    try:
        # bytes, not a memoryview: py-tree-sitter 0.26 reads a node's text through the
        # callback and crashes on anything but bytes
        tree = found.parse(lambda offset, _point: source[offset:offset + _READ_BYTES],
                           progress_callback=deadline.on_parse)
    except ValueError:
        # A cancelled parse is kept for resuming: the next parse of any text would go on
        # with this one's state.
        found.reset()
        if deadline.passed:
            raise OverBudget("parsing") from None
        raise
    # Parsed again from ``source`` itself reusing the whole tree (no edits: little work),
    # so node texts are read from bytes, not through the callback (eight times slower).
    return found.parse(source, old_tree=tree).root_node


def parse_source(language: str, data: bytes) -> bytes:
    """The bytes tree-sitter parses for ``data``: ``data`` itself, or what the language's
    ``prepare`` makes of it (rows and byte offsets stay those of ``data``)."""
    prepare = LANGUAGES[language].prepare
    return data if prepare is None else prepare(data)


def _query_text(name: str) -> str:
    return resources.files("codegold.index.languages").joinpath(f"queries/{name}").read_text(
        encoding="utf-8")


@cache
def calls_query(language: str) -> Query:
    return Query(ts_language(language), _query_text(f"{family(language)}.scm"))


# Definitions, calls and syntax errors sit within a few dozen levels of the root in real
# code; a query cursor that may start matching at any depth spends super-linear time on
# pathological trees (a 400 KB one-line expression took minutes). Matches never start
# deeper than this.
MAX_QUERY_START_DEPTH = 128


def query_cursor(query: Query) -> QueryCursor:
    """A cursor for ``query`` that starts matches at most :data:`MAX_QUERY_START_DEPTH` deep."""
    cursor = QueryCursor(query)
    cursor.set_max_start_depth(MAX_QUERY_START_DEPTH)
    return cursor


@cache
def tags_query(language: str) -> Query:
    """Definitions: ``@definition.<kind>`` / ``@declaration.<kind>`` with ``@name``."""
    return Query(ts_language(language), _tags_source(language))


def _tags_source(language: str) -> str:
    return "\n".join(_query_text(f"{name}.tags.scm") for name in LANGUAGES[language].tags)


# A match of a query: its pattern's number and its captures by name.
Match = tuple[int, dict[str, list[Node]]]


@cache
def _structure_query(language: str) -> tuple[Query, int]:
    """The tags query and the calls query as one (tags first, so their pattern numbers
    are the tags query's own), and how many patterns are the tags' (those that start
    in the tags' part of the source)."""
    tags = _tags_source(language).encode("utf-8")
    query = Query(ts_language(language),
                  tags.decode("utf-8") + "\n" + _query_text(f"{family(language)}.scm"))
    tag_patterns = sum(1 for number in range(query.pattern_count)
                       if query.start_byte_for_pattern(number) < len(tags))
    return query, tag_patterns


# tree-sitter's query cursor is quadratic in a run of anonymous tokens (punctuation)
# that error recovery lumps under one ERROR node, for some runs (PHP's ``"{$"`` repeated
# in a string, ``(`` or ``{`` repeated in most grammars, an unclosed Rust string of
# ``{``: 64 kB of PHP took 5 s, 1 MB would take over an hour), whatever the query,
# inside one call that nothing can interrupt (see matches_within). Real code has runs of
# a few tokens. So the runs are counted before a query, and a tree whose runs would
# cost more than QUERY_SCAN_STEPS_MAX steps (half a run's length squared: one run of about
# 14,000 tokens, 0.4 s of querying on a loaded machine) is not queried. The count walks
# only subtrees with a syntax error and more than QUERY_RUN_FREE nodes (shorter runs
# cost at most that many steps a token): nothing for a file without syntax errors.
QUERY_SCAN_STEPS_MAX = 100_000_000
QUERY_RUN_FREE = 64
# How often, in nodes, the count looks at the clock.
_CLOCK_NODES = 4_096


class QueryTooSlow(OverBudget):
    """A tree holds runs of tokens that would make a query over it quadratic (see
    QUERY_SCAN_STEPS_MAX); ``reason`` says what was found."""

    def __init__(self, reason: str) -> None:
        super().__init__("querying")
        self.reason = reason


def query_scan_steps(root: Node, deadline: Deadline | None = None) -> tuple[int, int]:
    """About how many steps a query over ``root`` may spend on runs of anonymous tokens
    longer than QUERY_RUN_FREE under ERROR nodes, and the longest such run."""
    steps = longest = visited = 0
    todo = [root] if root.has_error else []
    while todo:
        node = todo.pop()
        visited += 1
        if deadline is not None and not visited % _CLOCK_NODES:
            deadline.check()
            deadline.raise_if_passed()
        children = node.children
        if node.is_error and node.child_count - node.named_child_count > QUERY_RUN_FREE:
            run = 0
            for child in [*children, None]:
                if child is None or child.is_named:
                    steps += run * run // 2
                    longest = max(longest, run)
                    run = 0
                else:
                    run += 1
        todo.extend(child for child in children
                    if child.has_error and child.descendant_count > QUERY_RUN_FREE)
    return steps, longest


def matches_within(query: Query, root: Node, deadline: Deadline | None) -> list[Match]:
    """``query``'s matches in ``root`` (see :func:`query_cursor`). With a ``deadline``:
    :class:`QueryTooSlow` for a tree whose runs of tokens would make the query quadratic,
    :class:`OverBudget` when the deadline has passed by the time the matches are found.
    A query cannot be stopped mid-way: py-tree-sitter 0.26's query progress callback
    crashes the process (the cursor keeps a pointer to options that are gone when it
    reads them), and a query in byte ranges restarts at the root for every range and
    walks past its end for patterns that start at the root."""
    if deadline is not None:
        steps, longest = query_scan_steps(root, deadline)
        if steps > QUERY_SCAN_STEPS_MAX:
            raise QueryTooSlow(f"a run of {longest} tokens in one syntax error, which "
                               "tree-sitter's queries read in quadratic time")
    found = query_cursor(query).matches(root)
    if deadline is not None:
        deadline.check()
        deadline.raise_if_passed()
    return found


def structure_matches(root: Node, language: str, deadline: Deadline | None = None
                      ) -> tuple[list[Match], list[Node]]:
    """The tags query's matches in ``root`` and the calls query's ``@name`` nodes, found
    in one pass over the tree (a third less time than running the two queries): what
    :meth:`tags_query`'s ``matches`` and :meth:`calls_query`'s ``captures`` give."""
    query, tag_patterns = _structure_query(language)
    tags: list[Match] = []
    calls: list[Node] = []
    for pattern, captures in matches_within(query, root, deadline):
        if pattern < tag_patterns:
            tags.append((pattern, captures))
        else:
            calls.extend(captures.get("name", ()))
    return tags, calls


def compile_queries(languages: Iterable[str | None]) -> None:
    """Compile the query :func:`structure_matches` runs for each structural language of
    ``languages`` now: a build does this before it forks its workers, which then inherit
    them instead of each compiling its own (a TypeScript, C++ or Swift query takes
    0.2-0.3 s)."""
    for language in sorted({name for name in languages if name in STRUCTURAL_LANGUAGES}):
        _structure_query(language)
        parser(language)
