"""Label checks: does every target of a case exist, as labelled, at its pinned revision?

Run before any retrieval (``codegold cases check``) and reused by diagnosis, so a label
mistake is reported as the dataset's problem (``stale_label``) and never as a chunker's.
Each check is one small function over a case and the :class:`LabelIndex` of its revision.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from codegold.evaluate.match import file_matches, symbol_matches
from codegold.index.catalog import IndexSet
from codegold.index.store import IndexedChunk, IndexReader, InventoryEntry, SymbolDef
from codegold.model import Case, Target
from codegold.model.paths import PathPattern, is_glob, normalize_path

Severity = Literal["error", "warning"]


class Finding(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One problem with one case's labels."""

    severity: Severity
    code: str
    case_id: str
    message: str
    group: str | None = None
    target: str | None = None
    suggestions: tuple[str, ...] = ()


@dataclass
class LabelIndex:
    """What the label checks need from one index, loaded once per revision."""

    reader: IndexReader
    revision: str
    entries: dict[str, InventoryEntry] = field(default_factory=dict)
    _defs: dict[str, list[SymbolDef]] = field(default_factory=dict)
    _roles: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def open(cls, reader: IndexReader) -> LabelIndex:
        entries = {e.path: e for e in reader.iter_inventory()}
        return cls(reader=reader, revision=reader.manifest.revision or "", entries=entries)

    def indexed(self, path: str) -> bool:
        entry = self.entries.get(path)
        return entry is not None and entry.fate in ("indexed", "fallback")

    def paths(self) -> Iterable[str]:
        return self.entries.keys()

    def definitions(self, path: str) -> list[SymbolDef]:
        if path not in self._defs:
            self._defs[path] = self.reader.definitions_in_file(path)
        return self._defs[path]

    def chunk_roles(self, path: str) -> set[str]:
        """Roles of the chunks of ``path``."""
        if path not in self._roles:
            self._roles[path] = {c.role for c in self.reader.chunks_in_file(path)}
        return self._roles[path]

    def roles_at(self, definition: SymbolDef) -> set[str]:
        """Roles of the chunks that hold ``definition``."""
        return {c.role for c in self.reader.chunks_in_file(definition.file)
                if c.start_line <= definition.end_line and c.end_line >= definition.start_line
                and (c.id == definition.chunk_id or definition.qualified in c.symbols)}

    def chunks_named(self, paths: Iterable[str], symbol: str) -> list[IndexedChunk]:
        """Chunks of ``paths`` whose own symbols name ``symbol`` (as the scorer reads them)."""
        return [c for p in paths for c in self.reader.chunks_in_file(p)
                if symbol_matches(symbol, (*((c.symbol,) if c.symbol else ()), *c.symbols))]

    def elsewhere(self, symbol: str) -> list[SymbolDef]:
        """Definitions anywhere whose short name is ``symbol``'s short name."""
        return self.reader.definitions(_short(symbol))


def _short(symbol: str) -> str:
    return re.split(r"\.|::|#", symbol)[-1]


def _short_rev(revision: str) -> str:
    return revision[:12]


# --- targets ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Where:
    case_id: str
    group: str
    target: str

    def finding(self, severity: Severity, code: str, message: str,
                suggestions: tuple[str, ...] = ()) -> Finding:
        return Finding(severity=severity, code=code, case_id=self.case_id, group=self.group,
                       target=self.target, message=message, suggestions=suggestions)


def _target_label(target: Target) -> str:
    return target.file + (f" :: {target.symbol}" if target.symbol else "")


def target_files(index: LabelIndex, target: Target) -> list[str]:
    """The indexed paths a target's file names (one for an exact path, any for a glob)."""
    if is_glob(target.file):
        return sorted(p for p in index.paths() if file_matches(target.file, p) and index.indexed(p))
    path = normalize_path(target.file)
    return [path] if index.indexed(path) else []


def check_target(case: Case, group: str, target: Target, index: LabelIndex) -> Iterator[Finding]:
    """Every problem with one target, most basic first (a missing file stops the rest)."""
    base = _Where(case_id=case.id, group=group, target=_target_label(target))
    rev = _short_rev(index.revision)
    files = target_files(index, target)
    if not files:
        yield _file_problem(target, index, base, rev)
        return
    if target.symbol is None:
        if target.roles:
            roles = set().union(*(index.chunk_roles(p) for p in files))
            if not roles & set(target.roles):
                yield base.finding("error", "role_mismatch", (
                    f"no chunk of {target.file} has role {'/'.join(target.roles)} at {rev}; "
                    f"the index gives {', '.join(sorted(roles)) or 'none'}"))
        return
    found = [d for p in files for d in index.definitions(p)
             if symbol_matches(target.symbol, (d.qualified,))]
    # A docs heading or a config key is a chunk's symbol without a row in the symbol
    # table; the scorer accepts such a chunk, so the label is not missing.
    named = [] if found else index.chunks_named(files, target.symbol)
    if not found and not named:
        yield _symbol_problem(target, files, index, base, rev)
        return
    if target.roles:
        roles = (set().union(*(index.roles_at(d) for d in found)) if found
                 else {c.role for c in named})
        if roles and not roles & set(target.roles):
            where = found[0].file if found else named[0].file
            entry = index.entries.get(where)
            why = f" ({where} is a {entry.category} file)" if entry is not None and \
                entry.category != "source" else ""
            yield base.finding("error", "role_mismatch", (
                f"{target.symbol} is labelled {'/'.join(target.roles)} but at {rev} the index "
                f"gives it role {', '.join(sorted(roles))}{why}"))


def _file_problem(target: Target, index: LabelIndex, base: _Where, rev: str) -> Finding:
    if is_glob(target.file):
        return base.finding("error", "glob_matches_nothing", (
            f"glob {target.file} matches no indexed file at {rev}"))
    path = normalize_path(target.file)
    entry = index.entries.get(path)
    if entry is not None:
        return base.finding("error", "file_not_indexed", (
            f"{path} exists at {rev} but was {entry.fate}"
            + (f" ({entry.reason})" if entry.reason else "")
            + ": no retriever using this index can return it"))
    name = path.rsplit("/", 1)[-1]
    same_name = sorted(p for p in index.paths() if p.rsplit("/", 1)[-1] == name)
    suggestions = tuple(same_name[:5]) or tuple(
        difflib.get_close_matches(path, list(index.paths()), n=3, cutoff=0.6))
    hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
    return base.finding("error", "file_missing", (
        f"no file {path} at {rev}{hint}"), suggestions)


def _symbol_problem(target: Target, files: list[str], index: LabelIndex,
                    base: _Where, rev: str) -> Finding:
    symbol = target.symbol or ""
    ranked = sorted(index.elsewhere(symbol), key=lambda d: (-difflib.SequenceMatcher(None, symbol, d.qualified).ratio(),
                                         d.file, d.start_line))
    suggestions = [f"{d.qualified} ({d.file})" for d in ranked[:3]]
    if not suggestions:
        names = sorted({d.qualified for p in files for d in index.definitions(p)})
        suggestions = [f"{n} ({files[0]})" for n in
                       difflib.get_close_matches(symbol, names, n=3, cutoff=0.5)]
    where = files[0] if len(files) == 1 else f"{len(files)} files matching {target.file}"
    hint = f"; did you mean {' or '.join(suggestions)}?" if suggestions else ""
    return base.finding("error", "symbol_missing", (
        f"no {symbol} defined in {where} at {rev}{hint}"), tuple(suggestions))


# --- forbidden patterns ----------------------------------------------------------------


def check_forbidden(case: Case, index: LabelIndex) -> Iterator[Finding]:
    rev = _short_rev(index.revision)
    required_files = {
        (g.id, _target_label(t)): target_files(index, t) or [normalize_path(t.file)]
        for g in case.groups if g.required for t in g.any_of}
    for pattern in case.forbidden:
        forbids = PathPattern.forbidden(pattern)
        matched = [p for p in index.paths() if forbids.matches(p)]
        if not matched:
            yield Finding(severity="warning", code="forbidden_matches_nothing", case_id=case.id,
                          message=f"forbidden pattern {pattern!r} matches no file at {rev}")
            continue
        for (group, label), files in required_files.items():
            hit = [f for f in files if forbids.matches(f)]
            if hit:
                yield Finding(severity="error", code="forbidden_target", case_id=case.id,
                              group=group, target=label, message=(
                                  f"forbidden pattern {pattern!r} also matches required target "
                                  f"{hit[0]}: the case forbids its own evidence"))
        if not is_glob(pattern) and not pattern.endswith("/"):
            heads = sorted({_head(p, pattern) for p in matched})
            if len(heads) > 1:
                yield Finding(severity="warning", code="forbidden_prefix_ambiguous",
                              case_id=case.id, message=(
                                  f"forbidden prefix {pattern!r} is a literal string prefix and "
                                  f"matches {', '.join(heads[:4])}"
                                  f"{' …' if len(heads) > 4 else ''}; end it with '/' to "
                                  "forbid only the folder"))


def _head(path: str, prefix: str) -> str:
    """The folder or file right at the end of ``prefix`` that ``path`` lies in."""
    rest = path[len(normalize_path(prefix)):]
    cut = rest.find("/")
    return path if cut < 0 else path[: len(path) - len(rest) + cut + 1]


# --- the case set ----------------------------------------------------------------------


def _query_key(query: str) -> str:
    return " ".join(re.findall(r"\w+", query.lower()))


def _evidence_key(case: Case) -> frozenset[frozenset[tuple[str, str | None]]]:
    return frozenset(frozenset((t.file, t.symbol) for t in g.any_of)
                     for g in case.groups if g.required)


def _similar(a: str, b: str) -> float:
    left, right = set(a.split()), set(b.split())
    return len(left & right) / max(1, len(left | right))


NEAR_DUPLICATE = 0.6


def check_duplicates(cases: Iterable[Case]) -> Iterator[Finding]:
    """Cases asking the same query as an earlier case at the same revision, or requiring
    the same evidence with a nearly identical query (asking the same thing differently is
    query variety, not a duplicate)."""
    by_query: dict[tuple[str, str, object], str] = {}
    by_evidence: dict[tuple[str, object, object], list[tuple[str, str]]] = {}
    for case in cases:
        query = _query_key(case.query)
        key = (case.revision, query, case.context)
        evidence = (case.revision, _evidence_key(case), case.context)
        if key in by_query:
            yield Finding(severity="warning", code="duplicate_query", case_id=case.id,
                          message=f"same query as case {by_query[key]!r} at the same revision")
        else:
            by_query[key] = case.id
            for other_id, other_query in by_evidence.get(evidence, []):
                if _similar(query, other_query) >= NEAR_DUPLICATE:
                    yield Finding(severity="warning", code="near_duplicate", case_id=case.id,
                                  message=(f"requires the same evidence as case {other_id!r} "
                                           "with a nearly identical query"))
                    break
        by_evidence.setdefault(evidence, []).append((case.id, query))


def check_case(case: Case, index: LabelIndex) -> list[Finding]:
    """Every label problem of one case against the index of its revision."""
    findings: list[Finding] = []
    for group in case.groups:
        for target in group.any_of:
            findings.extend(check_target(case, group.id, target, index))
    findings.extend(check_forbidden(case, index))
    return findings


class CheckReport(msgspec.Struct, frozen=True, kw_only=True):
    """What ``codegold cases check`` found (``--json`` prints it)."""

    cases: int
    errors: int
    warnings: int
    findings: list[Finding]
    format: int = 1


def check_cases(cases: Iterable[Case], indexes: IndexSet) -> CheckReport:
    """Check every case against the index of its own revision, and the set for duplicates."""
    case_list = list(cases)
    findings: list[Finding] = []
    opened: dict[str, LabelIndex | None] = {}
    try:
        for case in case_list:
            if case.revision not in opened:
                index_dir = indexes.for_revision(case.revision)
                opened[case.revision] = (None if index_dir is None
                                         else LabelIndex.open(IndexReader.open(index_dir)))
            index = opened[case.revision]
            if index is None:
                findings.append(Finding(
                    severity="error", code="no_index", case_id=case.id, message=(
                        f"no index for revision {case.revision} (indexes for: "
                        f"{indexes.describe()}); build it with `codegold index` or pass --repo")))
                continue
            findings.extend(check_case(case, index))
    finally:
        for index in opened.values():
            if index is not None:
                index.reader.close()
    findings.extend(check_duplicates(case_list))
    order = {case.id: n for n, case in enumerate(case_list)}
    findings.sort(key=lambda f: (order.get(f.case_id, 0), f.severity != "error"))
    return CheckReport(cases=len(case_list),
                       errors=sum(f.severity == "error" for f in findings),
                       warnings=sum(f.severity == "warning" for f in findings),
                       findings=findings)
