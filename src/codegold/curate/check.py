"""Label checks: does every target of a case exist, as labelled, at its pinned revision?

Run before any retrieval (``codegold cases check``). Whether a target holds is decided by
:mod:`codegold.labels`, the same verdict diagnosis reports as ``stale_label``, so a label
mistake is the dataset's problem before a run and after it alike. The checks here add
what only the case file shows: files the index left out, forbidden patterns, duplicates.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from typing import Literal

import msgspec

from codegold.errors import InputError
from codegold.evaluate.match import normalize_symbol, symbol_matches
from codegold.index.catalog import IndexSet
from codegold.index.store import IndexReader
from codegold.labels import (
    LabelSource,
    RepoView,
    TargetFacts,
    forbidding_pattern,
    judge_target,
    look_up,
    wants_definition,
)
from codegold.labels.lookup import defines
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


def _short_rev(revision: str) -> str:
    return revision[:12]


def _target_label(target: Target) -> str:
    return target.file + (f" :: {target.symbol}" if target.symbol else "")


def _paths(source: LabelSource) -> list[str]:
    return [] if source.index is None else [e.path for e in source.index.iter_inventory()]


# --- targets ---------------------------------------------------------------------------


def check_target(case: Case, group: str, target: Target, source: LabelSource) -> Iterator[Finding]:
    """Every problem with one target: the shared label verdict (the one diagnosis's
    ``stale_label`` gives), then whether the index read the file at all."""

    def finding(severity: Severity, code: str, message: str,
                suggestions: tuple[str, ...] = ()) -> Finding:
        return Finding(severity=severity, code=code, case_id=case.id, group=group,
                       target=_target_label(target), message=message, suggestions=suggestions)

    looked = look_up(source, target)
    verdict = judge_target(source, looked)
    if verdict is not None:
        hint = f"; did you mean {' or '.join(verdict.suggestions)}?" if verdict.suggestions else ""
        yield finding("error" if verdict.wrong else "warning",
                      verdict.code if verdict.wrong else "label_unchecked",
                      verdict.summary + hint, verdict.suggestions)
        return
    never = _never_carried(looked, source)
    if never is not None:
        yield finding("warning", "symbol_not_indexed", never[0], never[1])
    copy = _copy_of_source(looked, source)
    if copy is not None:
        yield finding("warning", "label_points_at_copy", copy[0], (copy[1],))
    lines = _lines_problem(looked)
    if lines is not None:
        yield finding(lines[0], lines[1], lines[2])
    read = [e for e in looked.entries if e.fate in ("indexed", "fallback")]
    if looked.present and not read:
        entry = next(iter(looked.entries), None)
        path = looked.present[0]
        why = "" if entry is None else f"{entry.fate}" + (f" ({entry.reason})" if entry.reason else "")
        yield finding("error", "file_not_indexed", (
            f"{path} exists at {_short_rev(source.revision)} but was {why or 'not indexed'}: "
            "no retriever using this index can return it"))


def _lines_problem(looked: TargetFacts) -> tuple[Severity, str, str] | None:
    """A target's explicit gold ``lines`` past the end of its file (an error: no chunk can
    ever show them), or clear of every definition of its symbol (a warning)."""
    target = looked.target
    if target.lines is None:
        return None
    first, last = target.lines
    ends = [c.end_line for c in looked.chunks]
    if ends and first > max(ends):
        return ("error", "lines_outside_file",
                f"lines [{first}, {last}] start past the last line the index holds of "
                f"{target.file} ({max(ends)})")
    if ends and last > max(ends):
        beyond = (f"line {last}" if last == max(ends) + 1
                  else f"lines {max(ends) + 1}-{last}")
        # lines no chunk holds are gold lines no retriever can show: line recall of the
        # case could never reach 1, whatever was retrieved
        return ("error", "lines_outside_file",
                f"lines [{first}, {last}] run past the last line the index holds of "
                f"{target.file} ({max(ends)}); {beyond} can never be shown, so the case's "
                "line recall could never be 1")
    if target.symbol is not None and looked.definitions and not any(
            d.start_line <= last and d.end_line >= first for d in looked.definitions):
        spans = ", ".join(f"{d.start_line}-{d.end_line}" for d in looked.definitions[:3])
        return ("warning", "lines_miss_definition",
                f"lines [{first}, {last}] do not overlap {target.symbol}'s definition "
                f"(lines {spans}); the line-level figures would judge other code")
    return None
def _never_carried(looked: TargetFacts, source: LabelSource
                   ) -> tuple[str, tuple[str, ...]] | None:
    """(message, closest names) when the label's symbol is in the index's symbol table
    under no spelling (``#``, ``::``, ``:`` or a dotted suffix) and no chunk of its file
    carries it: no chunk can ever satisfy the target, whichever retriever returns it
    (``tool.pytest.ini_options.markers``, where the index records the key ``markers``)."""
    symbol = looked.target.symbol
    if symbol is None or source.index is None or looked.definitions or looked.elsewhere:
        return None
    if any(defines(c, symbol) for c in looked.chunks):
        return None
    spelled = normalize_symbol(symbol)
    if any(symbol_matches(symbol, (d.qualified,)) for d in source.index.definitions(spelled)):
        return None
    closest = list(looked.suggestions)
    if not closest:
        names = sorted({name for c in looked.chunks for name in c.symbols})
        tails = {name.rsplit(".", 1)[-1]: name for name in names}
        closest = [tails[n] for n in difflib.get_close_matches(
            spelled.rsplit(".", 1)[-1], list(tails), n=3, cutoff=0.5)]
        closest += difflib.get_close_matches(spelled, names, n=3, cutoff=0.5)
    # one suggestion per name: the symbol table's "markers (pyproject.toml:361)" and a
    # chunk's "markers (pyproject.toml)" name the same thing
    closest = list({c.split(" (", 1)[0]: c for c in reversed(closest)}.values())[::-1][:3]
    hint = f"; closest: {', '.join(closest)}" if closest else ""
    return (f"{symbol} is in the index's symbol table under no spelling and no chunk of "
            f"{looked.target.file} carries it: no chunk can ever satisfy this target"
            f"{hint}", tuple(closest))


# Files whose definitions are usually a copy of the real one (a test double, a snippet in
# the docs, a vendored or generated copy) when a source file defines the same name.
_COPY_CATEGORIES = frozenset({"test", "docs", "vendored", "generated"})


def _copy_of_source(looked: TargetFacts, source: LabelSource) -> tuple[str, str] | None:
    """(message, suggested file) when the label asks for a definition, finds it only in a
    test, docs, vendored or generated file, and a source file defines the same name: the
    classic labelling slip of pointing at the test helper or the copy in the docs."""
    target = looked.target
    if (target.symbol is None or not looked.definitions or not wants_definition(target)
            or source.index is None):
        return None
    categories = {e.path: e.category for e in looked.entries}
    if not all(categories.get(d.file) in _COPY_CATEGORIES for d in looked.definitions):
        return None
    for other in looked.elsewhere:
        entry = source.index.inventory(other.file)
        if (entry is not None and entry.category == "source"
                and other.role in ("definition", "declaration")):
            here = looked.definitions[0]
            return (f"{target.symbol} is defined in {here.file}:{here.start_line} (a "
                    f"{categories[here.file]} file) and in the source file "
                    f"{other.file}:{other.start_line}; a label that asks for the definition "
                    f"usually means the source one", other.file)
    return None


# --- forbidden patterns ----------------------------------------------------------------


def check_forbidden(case: Case, source: LabelSource) -> Iterator[Finding]:
    rev = _short_rev(source.revision)
    paths = _paths(source)
    for group in case.required_groups:
        for target in group.any_of:
            pattern = forbidding_pattern(case.forbidden, target)
            if pattern is not None:
                yield Finding(severity="error", code="forbidden_target", case_id=case.id,
                              group=group.id, target=_target_label(target), message=(
                                  f"forbidden pattern {pattern!r} also matches required target "
                                  f"{target.file}: the case forbids its own evidence"))
    for pattern in case.forbidden:
        forbids = PathPattern.forbidden(pattern)
        matched = [p for p in paths if forbids.matches(p)]
        if not matched:
            yield Finding(severity="warning", code="forbidden_matches_nothing", case_id=case.id,
                          message=f"forbidden pattern {pattern!r} matches no file at {rev}")
            continue
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


def check_case(case: Case, source: LabelSource) -> list[Finding]:
    """Every label problem of one case against the index of its revision."""
    findings: list[Finding] = []
    for group in case.groups:
        for target in group.any_of:
            findings.extend(check_target(case, group.id, target, source))
    findings.extend(check_forbidden(case, source))
    return findings


class CheckReport(msgspec.Struct, frozen=True, kw_only=True):
    """What ``codegold cases check`` found (``--json`` prints it)."""

    cases: int
    errors: int
    warnings: int
    findings: list[Finding]
    format: int = 1


def check_cases(cases: Iterable[Case], indexes: IndexSet, repo: RepoView | None = None) -> CheckReport:
    """Check every case against the index of its own revision, and the set for duplicates.
    With ``repo``, a revision that is no commit of it is reported, and a missing label file
    is followed through git's rename detection."""
    case_list = list(cases)
    findings: list[Finding] = []
    readers: dict[str, IndexReader | None] = {}
    known: dict[str, bool] = {}
    try:
        for case in case_list:
            if repo is not None:
                if case.revision not in known:
                    known[case.revision] = repo.has_commit(case.revision)
                if not known[case.revision]:
                    findings.append(Finding(
                        severity="error", code="revision_unknown", case_id=case.id, message=(
                            f"revision {case.revision} is not a commit of {repo.path}; expected "
                            "the full sha of a commit in that repository (fetch it, or fix the "
                            "case's revision)")))
                    continue
            if case.revision not in readers:
                index_dir = indexes.for_revision(case.revision)
                readers[case.revision] = None if index_dir is None else IndexReader.open(index_dir)
            reader = readers[case.revision]
            if reader is None:
                findings.append(Finding(
                    severity="error", code="no_index", case_id=case.id, message=(
                        f"no index for revision {case.revision} (indexes for: "
                        f"{indexes.describe()}); build it with `codegold index` or pass --repo")))
                continue
            findings.extend(check_case(case, LabelSource(revision=case.revision, index=reader,
                                                         repo=repo)))
    finally:
        for reader in readers.values():
            if reader is not None:
                reader.close()
    for case_id, message in indexes.repository_mismatches(case_list):
        findings.append(Finding(severity="warning", code="repository_differs",
                                case_id=case_id, message=message))
    findings.extend(check_duplicates(case_list))
    order = {case.id: n for n, case in enumerate(case_list)}
    findings.sort(key=lambda f: (order.get(f.case_id, 0), f.severity != "error"))
    return CheckReport(cases=len(case_list),
                       errors=sum(f.severity == "error" for f in findings),
                       warnings=sum(f.severity == "warning" for f in findings),
                       findings=findings)


_FOUND = re.compile(r"found '([^'\n]{1,255})'")


def explain_revision_error(err: InputError, repo: RepoView) -> InputError:
    """A case file's revision that is not a full sha, resolved in ``repo`` when it can be:
    the same error, naming the commit a tag or branch name stands for."""
    found = _FOUND.search(err.message) if err.field == "revision" else None
    sha = repo.commit_of(found.group(1)) if found is not None else None
    if found is None or sha is None:
        return err
    return InputError(f"{err.message}; {found.group(1)!r} is a tag or branch name that "
                      f"resolves to commit {sha} in {repo.path}: pin that full sha instead "
                      "(a name can move, a sha cannot)", path=err.path, line=err.line,
                      case_id=err.case_id, field=err.field,
                      settings=err.settings)
