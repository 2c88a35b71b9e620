"""The boundary checks, one function per cause, run in DESIGN.md order.

Target-level checks (stale label → split context) ask the index and the repository about
one acceptable target; group-level checks (rewrite loss → below cutoff) ask the attempt
about a whole evidence group. A group is broken at the index level only when every one of
its targets is (any target could have satisfied it), and then at the boundary the furthest
target reached; a case's cause is the earliest cause over its missing groups.

A check that lacks the data it needs records why in ``not_run`` and lets diagnosis go on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from codegold.diagnose.causes import CAUSE_ORDER
from codegold.diagnose.sources import IndexView, RepoView
from codegold.evaluate.match import file_matches, symbol_matches, target_matches
from codegold.index.records import IndexedChunk, InventoryEntry, SymbolDef
from codegold.model import Attempt, CaseResult, Chunk, EvidenceGroup, Target
from codegold.model.paths import is_glob

_WORD = re.compile(r"`([^`]+)`|([A-Za-z_][\w.\-/]*[\w])")
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2,}[a-z]")


@dataclass(frozen=True)
class Finding:
    cause: str
    summary: str
    evidence: tuple[str, ...] = ()

    @property
    def order(self) -> int:
        return CAUSE_ORDER[self.cause]


@dataclass
class CaseFacts:
    """What is known about one case. ``index`` is set only when it was built from the
    case's revision: metadata is never borrowed from another revision's index."""

    result: CaseResult
    attempt: Attempt | None
    index: IndexView | None
    repo: RepoView | None
    index_note: str | None = None
    not_run: list[str] = field(default_factory=list)
    definitions: list[SymbolDef] = field(default_factory=list)
    inventory: list[InventoryEntry] = field(default_factory=list)

    @property
    def revision(self) -> str:
        return self.result.case.revision

    def skip(self, check: str, why: str) -> None:
        line = f"{check}: {why}"
        if line not in self.not_run:
            self.not_run.append(line)

    def returned(self) -> list[Chunk]:
        """Every chunk the retriever returned: the full final ranking and the candidates."""
        chunks = list(self.attempt.ranked) if self.attempt else list(self.result.ranked)
        if self.attempt and self.attempt.candidates:
            seen = {c.chunk_id for c in chunks}
            chunks += [c for c in self.attempt.candidates if c.chunk_id not in seen]
        return chunks


# --- target-level -------------------------------------------------------------------------


def _files(facts: CaseFacts, target: Target) -> list[str] | None:
    """Paths the target names at the case revision; None when nothing can tell."""
    if not is_glob(target.file):
        return [target.file]
    if facts.index is not None:
        return sorted(e.path for e in facts.index.iter_inventory() if file_matches(target.file, e.path))
    if facts.repo is not None:
        paths = facts.repo.paths(facts.revision)
        if paths is not None:
            return [p for p in paths if file_matches(target.file, p)]
    return None


def _exists(facts: CaseFacts, path: str) -> bool | None:
    if facts.index is not None:
        return facts.index.inventory(path) is not None
    if facts.repo is not None:
        return facts.repo.exists(facts.revision, path)
    return None


def _file_text(facts: CaseFacts, path: str) -> str | None:
    if facts.repo is not None:
        text = facts.repo.text(facts.revision, path)
        if text is not None:
            return text
    if facts.index is not None:
        chunks = facts.index.chunks_in_file(path)
        if chunks:
            return "\n".join(c.text for c in chunks)
    return None


def _short(symbol: str) -> str:
    return symbol.rsplit(".", 1)[-1]


def _covers(chunk_start: int | None, chunk_end: int | None, d: SymbolDef) -> bool:
    return (chunk_start is not None and chunk_end is not None
            and chunk_start <= d.start_line and chunk_end >= d.end_line)


def _describe(c: Chunk | IndexedChunk) -> str:
    cid = c.chunk_id if isinstance(c, Chunk) else c.id
    return (f"chunk {cid} ({c.file}:{c.start_line}-{c.end_line}, symbol={c.symbol or 'none'}, "
            f"role={c.role or 'none'})")


def check_target(facts: CaseFacts, target: Target) -> Finding | None:
    """The first broken index-level boundary for one target, or None if it looks sound."""
    rev = facts.revision[:12]
    files = _files(facts, target)
    if files is None:
        facts.skip("stale_label", f"cannot list files at {rev}: {facts.index_note or 'no index'} "
                   "and no --repo")
        return None
    present = [f for f in files if _exists(facts, f) is not False]
    if not files or not present:
        return Finding("stale_label", f"{target.file} does not exist at revision {rev}",
                       (f"target file {target.file} is absent at the pinned revision {facts.revision}",))
    if all(_exists(facts, f) is None for f in files):
        facts.skip("stale_label", f"no index at revision {rev} and no --repo to look in")

    entries: list[InventoryEntry] = []
    if facts.index is None:
        facts.skip("excluded_by_policy", facts.index_note or "no --index given")
    else:
        entries = [e for e in (facts.index.inventory(f) for f in present) if e is not None]
        facts.inventory.extend(e for e in entries if e not in facts.inventory)
        if entries and all(e.fate in ("excluded", "skipped") for e in entries):
            return Finding("excluded_by_policy",
                           f"{entries[0].path} exists at {rev} but was not indexed ({entries[0].fate})",
                           tuple(f"inventory: {e.path} fate={e.fate} reason={e.reason or '-'}"
                                 for e in entries))
    indexed = [e.path for e in entries if e.fate in ("indexed", "fallback")]

    if target.symbol is None:
        if facts.index is not None and indexed and all(
                not facts.index.chunks_in_file(p) for p in indexed):
            return Finding("not_chunked", f"{indexed[0]} is indexed but has no chunks",
                           tuple(f"inventory: {p} chunks=0" for p in indexed))
        return None

    symbol = target.symbol
    if facts.index is None:
        text = next((t for t in (_file_text(facts, p) for p in present) if t is not None), None)
        if text is not None and not re.search(rf"\b{re.escape(_short(symbol))}\b", text):
            return Finding("stale_label", f"{symbol} is not defined in {target.file} at {rev}",
                           (f"the name {_short(symbol)!r} does not occur in {present[0]} at {facts.revision}",))
        for check in ("not_chunked", "metadata_mismatch", "split_context"):
            facts.skip(check, "needs the parser's definition spans from an index at the case revision")
        return None

    defs = [d for d in facts.index.definitions(symbol)
            if d.file in present and symbol_matches(symbol, (d.qualified,))]
    facts.definitions.extend(d for d in defs if d not in facts.definitions)
    if not defs:
        text = next((t for t in (_file_text(facts, p) for p in present) if t is not None), None)
        if text is not None and not re.search(rf"\b{re.escape(_short(symbol))}\b", text):
            return Finding("stale_label", f"{symbol} is not defined in {target.file} at {rev}",
                           (f"the name {_short(symbol)!r} does not occur in {present[0]} at {facts.revision}",))
        where = ""
        if text is not None:
            line = next((n for n, t in enumerate(text.splitlines(), 1)
                         if re.search(rf"\b{re.escape(_short(symbol))}\b", t)), None)
            where = f"; the file's text names it (first at line {line} of the indexed text)"
        return Finding("not_chunked", f"the parser recorded no definition of {symbol} in {target.file}",
                       (f"index definitions({symbol!r}) has no entry in {', '.join(present)}{where}",
                        *(f"inventory: {e.path} fate={e.fate} chunker={e.chunker} chunks={e.chunks}"
                          for e in entries)))

    spans = {}
    for d in defs:
        chunks = facts.index.chunks_in_file(d.file)
        overlapping = [c for c in chunks if c.start_line <= d.end_line and c.end_line >= d.start_line]
        spans[d] = (overlapping, [c for c in overlapping if _covers(c.start_line, c.end_line, d)])
    if all(not overlapping for overlapping, _ in spans.values()):
        d = defs[0]
        return Finding("not_chunked",
                       f"no chunk of {d.file} overlaps {d.qualified} (lines {d.start_line}-{d.end_line})",
                       (f"parser: {d.qualified} {d.kind}/{d.role} at {d.file}:{d.start_line}-{d.end_line}",))

    for chunk in facts.returned():
        if target_matches(chunk, target):
            continue
        for d in defs:
            if chunk.file == d.file and _covers(chunk.start_line, chunk.end_line, d):
                stored = facts.index.get(chunk.chunk_id)
                evidence = [f"returned {_describe(chunk)} covers {d.qualified} "
                            f"({d.file}:{d.start_line}-{d.end_line})",
                            f"parser at {rev}: {d.qualified} is a {d.kind} with role {d.role}",
                            f"target wants symbol={symbol} roles={'/'.join(target.roles) or 'any'}"]
                if stored is not None:
                    evidence.append(f"index stores {_describe(stored)}")
                return Finding("metadata_mismatch",
                               f"{chunk.chunk_id} holds {d.qualified} but is labelled "
                               f"symbol={chunk.symbol or 'none'}, role={chunk.role or 'none'}",
                               tuple(evidence))

    if all(not covering for _, covering in spans.values()):
        d = defs[0]
        overlapping = spans[d][0]
        returned = {c.chunk_id for c in facts.returned()}
        parts = [f"{_describe(c)}{' (returned)' if c.id in returned else ''}" for c in overlapping]
        return Finding("split_context",
                       f"{d.qualified} (lines {d.start_line}-{d.end_line}) is split over "
                       f"{len(overlapping)} chunks; none holds it whole", tuple(parts))
    return None


# --- group-level --------------------------------------------------------------------------


def identifiers(text: str) -> list[str]:
    """Words of a query that look like code: backticked, snake/camel case, dotted, paths."""
    found: list[str] = []
    for quoted, word in _WORD.findall(text):
        token = (quoted or word).strip()
        if not token:
            continue
        code_like = bool(quoted) or "_" in token or "." in token or "/" in token \
            or bool(_CAMEL.search(token)) or (any(ch.isdigit() for ch in token) and any(ch.isalpha() for ch in token))
        if code_like and token not in found:
            found.append(token.rstrip(".").rstrip("()"))
    return [t for t in found if t]


def check_rewrite(facts: CaseFacts) -> Finding | None:
    query = facts.attempt.query if facts.attempt and facts.attempt.query else facts.result.query
    if query is None or query.rewritten is None:
        facts.skip("query_rewrite_loss", "the attempt records no rewritten query")
        return None
    lost = [w for w in identifiers(query.raw) if w.lower() not in query.rewritten.lower()]
    if not lost:
        return None
    return Finding("query_rewrite_loss", f"the rewrite dropped {', '.join(lost)}",
                   (f"raw query: {query.raw}", f"rewritten: {query.rewritten}",
                    f"identifiers missing from the rewrite: {', '.join(lost)}"))


def _first(chunks: Sequence[Chunk], group: EvidenceGroup) -> tuple[int, Chunk] | None:
    for rank, chunk in enumerate(chunks, start=1):
        if any(target_matches(chunk, t) for t in group.any_of):
            return rank, chunk
    return None


def check_ranking(facts: CaseFacts, group: EvidenceGroup) -> Finding | None:
    k = facts.result.cutoff
    if facts.attempt is not None:
        final: Sequence[Chunk] = facts.attempt.ranked
        candidates = facts.attempt.candidates
    else:
        final, candidates = facts.result.ranked, None
        facts.skip("retrieval_miss", "attempts file unavailable; only the stored top ranks are known")
    if candidates is None:
        facts.skip("reranker_demotion", "the attempt records no candidates before rerank")
    hit = _first(final, group)
    before = _first(candidates, group) if candidates is not None else None
    if candidates is not None and before is None and hit is None:
        return Finding("retrieval_miss", f"no chunk acceptable for group {group.id} among "
                       f"{len(candidates)} candidates",
                       (f"candidates before rerank: {len(candidates)}; none satisfies {group.id}",))
    if candidates is not None and before is not None and before[0] <= k and (hit is None or hit[0] > k):
        after = "dropped from the final ranking" if hit is None else f"rank {hit[0]} after rerank"
        return Finding("reranker_demotion",
                       f"{before[1].chunk_id} was rank {before[0]} before rerank, {after} (cutoff {k})",
                       (f"candidate rank {before[0]}: {_describe(before[1])}", f"final: {after}"))
    if hit is None and before is not None:
        return Finding("below_cutoff", f"{before[1].chunk_id} was candidate rank {before[0]}, past the "
                       f"cutoff {k}, and the final ranking ({len(final)} chunks) dropped it",
                       (f"candidate rank {before[0]}: {_describe(before[1])}",))
    if hit is None:
        depth = len(final)
        return Finding("retrieval_miss", f"no chunk acceptable for group {group.id} in the final "
                       f"ranking ({depth} chunks)",
                       (f"final ranking holds {depth} chunks; none satisfies group {group.id}",))
    if hit[0] > k:
        return Finding("below_cutoff", f"{hit[1].chunk_id} is rank {hit[0]}, past the cutoff {k}",
                       (f"rank {hit[0]}: {_describe(hit[1])}",))
    return None


def furthest(findings: Sequence[Finding]) -> Finding:
    return max(findings, key=lambda f: f.order)


def earliest(findings: Sequence[Finding]) -> Finding:
    return min(findings, key=lambda f: f.order)
