"""Draft gold cases from assistant traces or search logs, scrubbed before anything is written.

A log is JSONL (or a JSON list) of records. Fields are found under their usual names
(:data:`FIELDS`) or where ``mapping`` says (dotted paths with list indices, e.g.
``query=attributes.gen_ai.prompt.0.content`` for OpenTelemetry GenAI spans exported as
JSON). A record becomes a draft case when it names a revision (or a timestamp and a
repository to resolve it in) and evidence: what the answer cited, or, with positive
feedback, what was retrieved. Every string that reaches the output is scrubbed first.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import msgspec

from codegold.curate.jsonrecords import read_json_records
from codegold.curate.scrub import Removal, Scrubber
from codegold.curate.stanza import slug, unique_id
from codegold.index.catalog import IndexSet
from codegold.index.holding import Held, held_definitions, holding_rules
from codegold.index.store import IndexReader
from codegold.model.paths import normalize_path
from codegold.plumbing import numbers
from codegold.plumbing.fieldpaths import dig, parse_field_map
from codegold.plumbing.git import is_full_sha

FIELDS: dict[str, tuple[str, ...]] = {
    "id": ("id", "trace_id", "span_id", "request_id"),
    "query": ("query", "question", "prompt", "input"),
    "repository": ("repository", "repo"),
    "revision": ("revision", "commit", "sha"),
    "timestamp": ("timestamp", "time", "ts", "start_time"),
    "retrieved": ("retrieved", "chunks", "results", "context"),
    "cited": ("cited", "citations"),
    "feedback": ("feedback", "rating", "thumbs", "vote"),
}
_POSITIVE = {"positive", "up", "thumbs_up", "good", "helpful", "accepted", "1", "true", "yes"}
_NEGATIVE = {"negative", "down", "thumbs_down", "bad", "unhelpful", "rejected", "-1", "0",
             "false", "no"}
MAX_TARGETS = 5


class FromLogReport(msgspec.Struct, frozen=True, kw_only=True):
    """What ``cases from-log`` did: drafts, skips with reasons, and what was scrubbed."""

    records: int
    drafts: int
    skipped: dict[str, int]
    removed: dict[str, int]
    removals: list[Removal]
    format: int = 1


def parse_mapping(items: Iterable[str]) -> dict[str, str]:
    """``FIELD=dotted.path`` options as a dict; unknown fields are an InputError."""
    return parse_field_map(items, FIELDS)


def _field(record: dict[str, Any], name: str, mapping: dict[str, str]) -> Any:
    if name in mapping:
        return dig(record, mapping[name])
    for key in FIELDS[name]:
        if key in record:
            return record[key]
    return None


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        # chat messages: the last user message is the question
        users = [v for v in value if v.get("role") in ("user", "human")] or value
        content = users[-1].get("content")
        return content if isinstance(content, str) else None
    return None


Span = tuple[int, int]
Cited = tuple[str, str | None, Span | None]  # file, symbol, cited lines
# "src/a.py:10-40", "src/a.py:10", "src/a.py#L10-L40", "src/a.py#L10-40"
_PATH_SPAN = re.compile(r"^(?P<file>.+?)(?::|#L)(?P<start>\d{1,7})(?:-L?(?P<end>\d{1,7}))?$")
_START_KEYS = ("start_line", "line_start", "startLine", "start")
_END_KEYS = ("end_line", "line_end", "endLine", "end")


def _line(item: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
        line = numbers.number(value, digits=7) if isinstance(value, str) else None
        if line is not None and line >= 1:
            return line
    return None


def _span_of(item: dict[str, Any]) -> Span | None:
    """The cited lines of a dict item (``start_line``/``end_line``, ``lines: [a, b]`` or
    ``lines: "a-b"``, in the item or its ``metadata``), or None."""
    for where in (item, item.get("metadata")):
        if not isinstance(where, dict):
            continue
        lines = where.get("lines")
        if isinstance(lines, list) and len(lines) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in lines):
            return (min(lines), max(lines))
        if isinstance(lines, str):
            match = re.fullmatch(r"(\d{1,7})(?:-(\d{1,7}))?", lines.strip())
            if match:
                start = int(match.group(1))
                return (start, max(start, int(match.group(2) or start)))
        first = _line(where, _START_KEYS)
        if first is not None:
            return (first, max(first, _line(where, _END_KEYS) or first))
    return None


def _targets(value: Any) -> list[Cited]:
    targets: list[Cited] = []
    if not isinstance(value, list):
        return targets
    for item in value:
        file: Any
        symbol: Any
        span: Span | None = None
        if isinstance(item, str):
            file, symbol = item, None
            match = _PATH_SPAN.match(item.strip())
            if match:
                start = int(match.group("start"))
                file = match.group("file")
                span = (start, max(start, int(match.group("end") or start)))
        elif isinstance(item, dict):
            found = item.get("metadata")
            meta: dict[str, Any] = found if isinstance(found, dict) else {}
            file = item.get("file") or item.get("path") or item.get("source") or meta.get(
                "file") or meta.get("path") or meta.get("source")
            symbol = item.get("symbol") or meta.get("symbol")
            span = _span_of(item)
        else:
            continue
        if isinstance(file, str) and file.strip():
            cited = (file.strip(), symbol if isinstance(symbol, str) and symbol else None, span)
            if cited not in targets:
                targets.append(cited)
    return targets


# What a cited span holds at a revision: (revision, file, start, end) -> qualified names,
# or None when no index of that revision was given.
SpanSymbols = Callable[[str, str, int, int], "tuple[str, ...] | None"]


class IndexSpanSymbols:
    """:data:`SpanSymbols` read from the index of each record's revision, by the rule
    span resolution applies (:mod:`codegold.index.holding`). Use as a context manager
    (or call :meth:`close`): it holds the index readers it opened."""

    def __init__(self, indexes: IndexSet) -> None:
        self.indexes = indexes
        self._readers: dict[str, IndexReader | None] = {}
        self._rules: dict[tuple[str, str], tuple[Held, ...]] = {}

    def __call__(self, revision: str, file: str, start: int, end: int) -> tuple[str, ...] | None:
        if revision not in self._readers:
            index_dir = self.indexes.for_revision(revision)
            self._readers[revision] = None if index_dir is None else IndexReader.open(index_dir)
        reader = self._readers[revision]
        if reader is None:
            return None
        key = (revision, normalize_path(file))
        if key not in self._rules:
            self._rules[key] = holding_rules(reader.definitions_in_file(key[1]))
        return tuple(dict.fromkeys(d.qualified
                                   for d in held_definitions(self._rules[key], start, end)))

    def close(self) -> None:
        for reader in self._readers.values():
            if reader is not None:
                reader.close()
        self._readers.clear()

    def __enter__(self) -> IndexSpanSymbols:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _feedback(value: Any) -> str:
    text = str(value).strip().lower() if value is not None else ""
    if text in _POSITIVE:
        return "positive"
    if text in _NEGATIVE:
        return "negative"
    return "none"


def draft_cases(records: Iterable[Any], *, scrubber: Scrubber, mapping: dict[str, str],
                resolve_time: Callable[[str, str | None], str | None] | None = None,
                repository: str | None = None, span_symbols: SpanSymbols | None = None
                ) -> tuple[list[dict[str, Any]], FromLogReport]:
    """Draft one case per usable record; nothing unscrubbed is returned. A cited line
    span is kept: with ``span_symbols`` (an index of the record's revision) it becomes
    one target per definition the span holds; without, or when it holds none, the file
    with the lines named in the rationale."""
    drafts: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    removals: list[Removal] = []
    seen_ids: set[str] = set()
    seen_queries: set[tuple[str, str]] = set()
    total = 0
    for number, record in enumerate(records, start=1):
        total += 1
        if not isinstance(record, dict):
            skipped["not a JSON object"] += 1
            continue
        query = _text(_field(record, "query", mapping))
        if not query or not query.strip():
            skipped["no query"] += 1
            continue
        revision = _field(record, "revision", mapping)
        repo = _field(record, "repository", mapping) or repository
        if not (is_full_sha(revision)):
            stamp = _field(record, "timestamp", mapping)
            revision = (resolve_time(str(stamp), repo if isinstance(repo, str) else None)
                        if stamp is not None and resolve_time is not None else None)
            if revision is None:
                skipped["no 40-hex revision (and no timestamp to resolve with --repo)"] += 1
                continue
        feedback = _feedback(_field(record, "feedback", mapping))
        cited = _targets(_field(record, "cited", mapping))
        evidence, source = cited, "cited by the answer"
        if not evidence and feedback == "positive":
            evidence = _targets(_field(record, "retrieved", mapping))[:1]
            source = "retrieved first, with positive feedback"
        if not evidence:
            skipped["no evidence (nothing cited, no positive feedback on what was retrieved)"] += 1
            continue
        label = f"record {number}"
        raw_id = _field(record, "id", mapping)
        clean_query, *rest = scrubber.scrub_fields(
            label, [("query", query), ("id", str(raw_id or "")),
                    ("repository", repo if isinstance(repo, str) else "")], removals)
        clean_id, clean_repo = rest
        key = (revision, " ".join(clean_query.lower().split()))
        if key in seen_queries:
            skipped["same query as an earlier record"] += 1
            continue
        seen_queries.add(key)
        targets: list[dict[str, Any]] = []
        spans: list[str] = []
        for file, symbol, span in evidence:
            symbols: tuple[str | None, ...] = (symbol,)
            if symbol is None and span is not None:
                found = span_symbols(revision, file, *span) if span_symbols else None
                symbols = found or (None,)
                spans.append(f"{file}:{span[0]}-{span[1]}" + (
                    "" if found else " (no index of this revision given: name its symbol)"
                    if found is None else " (holds no definition)"))
            for name in symbols:
                if len(targets) >= MAX_TARGETS:
                    break
                index = len(targets)
                fields = [(f"target[{index}].file", file)]
                if name:
                    fields.append((f"target[{index}].symbol", name))
                clean = list(scrubber.scrub_fields(label, fields, removals))
                target: dict[str, Any] = {"file": clean[0]}
                if name:
                    target["symbol"] = clean[1]
                if target not in targets:
                    targets.append(target)
        cited_lines = ""
        if spans:
            clean_spans = scrubber.scrub_fields(
                label, [(f"span[{n}]", text) for n, text in enumerate(spans)], removals)
            cited_lines = f" Cited lines: {', '.join(clean_spans)}."
        case: dict[str, Any] = {
            "id": unique_id("log-" + slug(clean_id or clean_query, limit=40), seen_ids),
            "query": clean_query,
            "revision": revision,
        }
        if clean_repo:
            case["repository"] = clean_repo
        case["accepted"] = targets
        case["tags"] = {"status": "draft", "source": "log", "feedback": feedback}
        case["rationale"] = (f"Drafted from log {label}: targets are what was {source}."
                             f"{cited_lines} "
                             "Review: confirm each target answers the query at this revision.")
        drafts.append(case)
    removed = Counter[str]()
    for removal in removals:
        removed[removal.kind] += removal.count
    report = FromLogReport(records=total, drafts=len(drafts), skipped=dict(skipped),
                           removed=dict(sorted(removed.items())), removals=removals)
    return drafts, report


def read_log(path: str | Path) -> list[Any]:
    """Records of a JSONL file or a JSON list; errors name the line, never its content."""
    return [value for _, value in read_json_records(path, "log")]
