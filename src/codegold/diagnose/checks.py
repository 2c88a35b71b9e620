"""The boundary checks: one small pure function per cause, run by the engine in order.

Each check reads frozen facts and returns a :class:`Finding` (this boundary is broken,
with the evidence), a :class:`NotRun` (the data it needs is missing, and why), or None
(this boundary holds). No check writes into the objects it is given.

Four kinds, each a tuple in the documented cause order:

- :data:`CASE_CHECKS` read the scored case alone: invalid_run, revision_mismatch, and the
  case-wide half of stale_label (a label that forbids its own target).
- :data:`TARGET_CHECKS` ask the index (or a parse of the file at the case revision)
  about one accepted target: stale_label, excluded_by_policy, not_chunked.
- :data:`RETURNED_CHECKS` compare what the retriever returned with the parser's span of
  the target's definition: metadata_mismatch, split_context.
- :data:`GROUP_CHECKS` ask the attempt about a whole evidence group: retrieval_miss,
  reranker_demotion, below_cutoff. :func:`query_rewrite_loss` and
  :func:`forbidden_source` look at the whole case.

What a target is known to be at the case revision is gathered once by :func:`look_up`
into a :class:`TargetFacts`; the checks only read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from codegold.diagnose.causes import CAUSE_ORDER
from codegold.diagnose.sources import IndexView, RepoView
from codegold.diagnose.words import Share, line_prefix, query_words, share
from codegold.evaluate.match import cut_part, part_satisfies, target_matches
from codegold.index.records import IndexedChunk, InventoryEntry, SymbolDef
from codegold.labels import LabelSource, forbidding_pattern, judge_target
from codegold.labels import TargetFacts as TargetFacts
from codegold.labels import look_up as look_up_target
from codegold.labels.lookup import defines, role_at, wants_definition
from codegold.model import Attempt, CaseResult, Chunk, EvidenceGroup, Query, Target
from codegold.model.identifiers import Token, identifiers, tokenize
from codegold.model.paths import normalize_path


@dataclass(frozen=True)
class Finding:
    cause: str
    summary: str
    evidence: tuple[str, ...] = ()

    @property
    def order(self) -> int:
        return CAUSE_ORDER[self.cause]


@dataclass(frozen=True)
class NotRun:
    """A check that could not run, and why (listed per case as ``check: why``)."""

    check: str
    why: str

    @property
    def line(self) -> str:
        return f"{self.check}: {self.why}"


Outcome = Finding | NotRun | None


@dataclass(frozen=True)
class CaseFacts:
    """What is known about one case. ``index`` is set only when it was built from the
    case's revision: metadata is never borrowed from another revision's index.

    ``definitions``, ``inventory`` and ``not_run`` are filled by the engine (a new
    record, see :func:`dataclasses.replace`) once the checks ran, for the bundle."""

    result: CaseResult
    attempt: Attempt | None
    index: IndexView | None
    repo: RepoView | None
    index_note: str | None = None
    definitions: tuple[SymbolDef, ...] = ()
    inventory: tuple[InventoryEntry, ...] = ()
    not_run: tuple[str, ...] = ()

    @property
    def revision(self) -> str:
        return self.result.case.revision

    @property
    def source(self) -> LabelSource:
        """Where the label look-up reads this case's revision from."""
        return LabelSource(revision=self.revision, index=self.index, repo=self.repo,
                           index_note=self.index_note)

    @property
    def cutoff(self) -> int:
        return self.result.cutoff

    def final(self) -> Sequence[Chunk]:
        """The final ranking: the whole of it from the attempt, else the stored top ranks."""
        return self.attempt.ranked if self.attempt is not None else self.result.ranked

    def visible(self) -> Sequence[Chunk]:
        """What the answer stage received: the final ranking up to the cutoff."""
        return self.final()[: self.cutoff]

    def returned(self) -> list[Chunk]:
        """Every chunk the retriever returned: the full final ranking, then the candidates."""
        chunks = list(self.final())
        if self.attempt is not None and self.attempt.candidates:
            seen = {c.chunk_id for c in chunks}
            chunks += [c for c in self.attempt.candidates if c.chunk_id not in seen]
        return chunks

    def query(self) -> Query | None:
        if self.attempt is not None and self.attempt.query is not None:
            return self.attempt.query
        return self.result.query


# --- looking a target up -----------------------------------------------------------------


def look_up(facts: CaseFacts, target: Target) -> TargetFacts:
    """What the index (or a parse of the file from ``--repo``) says about ``target``: the
    same look-up ``codegold cases check`` makes (:mod:`codegold.labels`)."""
    return look_up_target(facts.source, target)


def _describe(c: Chunk | IndexedChunk) -> str:
    cid = c.chunk_id if isinstance(c, Chunk) else c.id
    return (f"chunk {cid} ({c.file}:{c.start_line}-{c.end_line}, symbol={c.symbol or 'none'}, "
            f"role={c.role or 'none'})")


def _rev(facts: CaseFacts) -> str:
    return facts.revision[:12]


# --- case checks -------------------------------------------------------------------------


def invalid_run(facts: CaseFacts) -> Outcome:
    """The run cannot be scored for the pinned revision (manifest, revision, retriever)."""
    result = facts.result
    if result.status != "invalid":
        return None
    return Finding("invalid_run", result.invalid_reason or "the run cannot be scored",
                   (f"invalid: {result.invalid_reason}",))


def revision_mismatch(facts: CaseFacts) -> Outcome:
    """A visible chunk carries another revision than the case."""
    mismatches = facts.result.revision_mismatches
    if not mismatches:
        return None
    return Finding("revision_mismatch", f"{len(mismatches)} visible chunk(s) carry another revision",
                   tuple(f"chunk {c} is not from {facts.revision}" for c in mismatches))


def label_forbids_its_target(facts: CaseFacts) -> Outcome:
    """The case-wide half of stale_label: a required target under the case's own forbidden
    list. Checked over every required group, found or not: when the retriever returns that
    target, the case fails as forbidden, yet the fault is the label's."""
    for group in facts.result.case.required_groups:
        for target in group.any_of:
            pattern = forbidding_pattern(facts.result.case.forbidden, target)
            if pattern is not None:
                return Finding("stale_label", f"the case forbids its own target {target.file} "
                               f"(forbidden pattern {pattern!r})",
                               (f"required target {target.file} (group {group.id}) falls under the "
                                f"case's forbidden pattern {pattern!r}: the label contradicts itself",))
    return None


# --- target checks -----------------------------------------------------------------------


def stale_label(facts: CaseFacts, t: TargetFacts) -> Outcome:
    """The label contradicts the repository at its own revision (a dataset fault): the
    verdict of :func:`codegold.labels.judge_target`, the one ``cases check`` reports."""
    verdict = judge_target(facts.source, t)
    if verdict is None:
        return None
    if not verdict.wrong:
        return NotRun("stale_label", verdict.summary)
    return Finding("stale_label", verdict.summary, verdict.evidence)


def excluded_by_policy(facts: CaseFacts, t: TargetFacts) -> Outcome:
    """The file exists, the index's path policy left it out (an indexing decision)."""
    if facts.index is None:
        return NotRun("excluded_by_policy", facts.index_note or "no --index given")
    entries = [e for e in t.entries if e.path in t.present]
    if entries and all(e.fate in ("excluded", "skipped") for e in entries):
        return Finding("excluded_by_policy",
                       f"{entries[0].path} exists at {_rev(facts)} but was not indexed ({entries[0].fate})",
                       tuple(f"inventory: {e.path} fate={e.fate} reason={e.reason or '-'}" for e in entries))
    return None


def not_chunked(facts: CaseFacts, t: TargetFacts) -> Outcome:
    """The file is indexed but no chunk holds the target (a parser/chunker fault)."""
    if facts.index is None:
        return NotRun("not_chunked", "needs the chunks of an index at the case revision")
    indexed = [e for e in t.entries if e.fate in ("indexed", "fallback")]
    if not indexed:
        return None
    symbol = t.target.symbol
    if symbol is None:
        if all(not any(c.file == e.path for c in t.chunks) for e in indexed):
            return Finding("not_chunked", f"{indexed[0].path} is indexed but has no chunks",
                           tuple(f"inventory: {e.path} chunks=0" for e in indexed))
        return None
    if not t.definitions:
        if any(defines(c, symbol) for c in t.chunks) or not wants_definition(t.target):
            return None
        # stale_label ruled out a label error, so the parser never read this file's
        # structure (line windows): its definition cannot be located.
        return Finding("not_chunked", f"the parser recorded no definition of {symbol} in {t.target.file}",
                       (f"index definitions({symbol!r}) has no entry in {', '.join(t.present)}",
                        *(f"inventory: {e.path} fate={e.fate} chunker={e.chunker} chunks={e.chunks} "
                          f"reason={e.reason or '-'}" for e in indexed)))
    if all(not _overlapping(t.chunks, d) for d in t.definitions):
        d = t.definitions[0]
        return Finding("not_chunked",
                       f"no chunk of {d.file} overlaps {d.qualified} (lines {d.start_line}-{d.end_line})",
                       (f"parser: {d.qualified} {d.kind}/{d.role} at {d.file}:{d.start_line}-{d.end_line}",))
    return None


def _overlapping(chunks: Sequence[IndexedChunk], d: SymbolDef) -> list[IndexedChunk]:
    return [c for c in chunks if c.file == d.file and c.start_line <= d.end_line and c.end_line >= d.start_line]


# --- returned-chunk checks ---------------------------------------------------------------


def _covers(chunk: Chunk, d: SymbolDef) -> bool:
    return (normalize_path(chunk.file) == d.file and chunk.start_line is not None
            and chunk.end_line is not None and chunk.start_line <= d.start_line
            and chunk.end_line >= d.end_line)


def _spans_unknown(check: str, facts: CaseFacts, t: TargetFacts) -> NotRun | None:
    if t.target.symbol is None:
        return None
    if t.source is None:
        return NotRun(check, "needs the parser's definition spans (an index at the case revision, "
                      "or --repo)")
    return None


def metadata_mismatch(facts: CaseFacts, t: TargetFacts) -> Outcome:
    """A returned chunk's lines hold the target definition, its symbol/role say otherwise."""
    skipped = _spans_unknown("metadata_mismatch", facts, t)
    if skipped is not None or not t.definitions:
        return skipped
    target = t.target
    for chunk in facts.returned():
        if target_matches(chunk, target):
            continue
        d = next((d for d in t.definitions if _covers(chunk, d)), None)
        if d is None:
            continue
        evidence = [f"returned {_describe(chunk)} covers {d.qualified} ({d.file}:{d.start_line}-{d.end_line})",
                    f"parser at {_rev(facts)}: {d.qualified} is a {d.kind} with role "
                    f"{role_at(t, d) or d.role}",
                    f"target wants symbol={target.symbol} roles={'/'.join(target.roles) or 'any'}"]
        stored = facts.index.get(chunk.chunk_id) if facts.index is not None else None
        if stored is not None:
            evidence.append(f"index stores {_describe(stored)}")
        return Finding("metadata_mismatch",
                       f"{chunk.chunk_id} holds {d.qualified} but is labelled "
                       f"symbol={chunk.symbol or 'none'}, role={chunk.role or 'none'}", tuple(evidence))
    return None


def split_context(facts: CaseFacts, t: TargetFacts) -> Outcome:
    """Two or more chunks inside the cutoff hold parts of the definition, none holds it
    whole and none alone is accepted: whoever chunked them (the index's chunker, or the
    retriever's own line windows, two body windows cut off from the signature included),
    the definition came back in pieces. How much of it the pieces cover is evidence, not a
    condition."""
    skipped = _spans_unknown("split_context", facts, t)
    if skipped is not None or not t.definitions:
        return skipped
    visible = list(facts.visible())
    if any(target_matches(c, t.target) for c in visible):
        return None
    for d in t.definitions:
        parts = [c for c in visible if not c.outside_repo and normalize_path(c.file) == d.file
                 and c.start_line is not None and c.end_line is not None
                 and c.start_line <= d.end_line and c.end_line >= d.start_line]
        if len({c.chunk_id for c in parts}) < 2 or any(_covers(c, d) for c in parts):
            continue
        ranks = {c.chunk_id: r for r, c in enumerate(visible, 1)}
        # Whose chunker cut it: parts the index holds are codegold's, others the retriever's.
        own = facts.index is not None and all(facts.index.get(c.chunk_id) is not None for c in parts)
        cutter = "the index's chunker" if own else "the retriever's own chunking (ids not in the index)"
        header = d.header_line or d.start_line
        headless = not any((c.start_line or 0) <= header <= (c.end_line or 0) for c in parts)
        covered = _covered(parts, d.start_line, d.end_line)
        size = d.end_line - d.start_line + 1
        return Finding("split_context",
                       f"{d.qualified} (lines {d.start_line}-{d.end_line}) came back split over "
                       f"{len(parts)} chunks inside the cutoff; none holds it whole or alone is "
                       "accepted",
                       (f"parser: {d.qualified} at {d.file}:{d.start_line}-{d.end_line}",
                        *(f"rank {ranks[c.chunk_id]}: {_describe(c)}" for c in parts),
                        f"the parts hold {covered} of its {size} lines",
                        *((f"no part holds its header line {header}: the windows are cut "
                           "off from its signature",) if headless else ()),
                        f"cut by {cutter}"))
    return None


def _covered(parts: Sequence[Chunk], start: int, end: int) -> int:
    """How many of lines ``start..end`` the parts hold together (merged spans, never a
    line at a time: a hostile span may be millions of lines long)."""
    spans = sorted((max(start, c.start_line or start), min(end, c.end_line or end))
                   for c in parts)
    total, reach = 0, start - 1
    for lo, hi in spans:
        lo = max(lo, reach + 1)
        if hi >= lo:
            total += hi - lo + 1
            reach = hi
    return total


# --- identifiers and the rewrite -----------------------------------------------------------

def query_rewrite_loss(facts: CaseFacts) -> Outcome:
    """An identifier of the raw query has no equal token in the rewrite."""
    query = facts.query()
    if query is None or query.rewritten is None:
        return NotRun("query_rewrite_loss", "the attempt records no rewritten query")
    # A rewrite that lower-cases a name (``CMake`` as ``cmake``, the way every BM25 engine
    # reads it) has kept it.
    kept: set[str] = set()
    for token in tokenize(query.rewritten.lower()):
        kept.add(token.text)
        kept.update(token.parts)
    lost = [w for w in identifiers(query.raw)
            if w.lower() not in kept and not _kept_but_numbers(w.lower(), kept)]
    if not lost:
        return None
    return Finding("query_rewrite_loss", f"the rewrite dropped {', '.join(lost)}",
                   (f"raw query: {query.raw}", f"rewritten: {query.rewritten}",
                    f"identifiers missing from the rewrite: {', '.join(lost)}"))


def _kept_but_numbers(word: str, kept: set[str]) -> bool:
    """``issue-1834``, ``utf-8``: a name of words and numbers whose words the rewrite kept.
    A number alone is no search term (retrievers drop it as the reference one does), so
    the rewrite lost nothing a search could use."""
    parts = Token(word, quoted=False).parts
    numbers = [p for p in parts if p.isdigit()]
    words = [p for p in parts if not p.isdigit()]
    return bool(numbers) and bool(words) and all(p in kept for p in words)


# --- group checks ------------------------------------------------------------------------


def _first(chunks: Sequence[Chunk] | None, group: EvidenceGroup) -> tuple[int, Chunk] | None:
    for rank, chunk in enumerate(chunks or (), start=1):
        if any(target_matches(chunk, t) for t in group.any_of):
            return rank, chunk
    return None


def _candidates(facts: CaseFacts) -> list[Chunk] | None:
    return facts.attempt.candidates if facts.attempt is not None else None


def retrieval_miss(facts: CaseFacts, group: EvidenceGroup) -> Outcome:
    """No acceptable chunk anywhere the retriever looked (candidates, else final ranking)."""
    final, candidates = facts.final(), _candidates(facts)
    if _first(final, group) is not None:
        return None
    if candidates is not None:
        if _first(candidates, group) is not None:
            return None
        return Finding("retrieval_miss", f"no chunk acceptable for group {group.id} among "
                       f"{len(candidates)} candidates",
                       (f"candidates before rerank: {len(candidates)}; none satisfies {group.id}",))
    depth = len(final)
    return Finding("retrieval_miss", f"no chunk acceptable for group {group.id} in the final "
                   f"ranking ({depth} chunks)",
                   (f"final ranking holds {depth} chunks; none satisfies group {group.id}",))


def reranker_demotion(facts: CaseFacts, group: EvidenceGroup) -> Outcome:
    """An acceptable candidate inside the cutoff before rerank, below it (or gone) after."""
    candidates = _candidates(facts)
    if candidates is None:
        return NotRun("reranker_demotion", "the attempt records no candidates before rerank")
    k = facts.cutoff
    before, hit = _first(candidates, group), _first(facts.final(), group)
    if before is None or before[0] > k or (hit is not None and hit[0] <= k):
        return None
    after = "dropped from the final ranking" if hit is None else f"rank {hit[0]} after rerank"
    return Finding("reranker_demotion",
                   f"{before[1].chunk_id} was rank {before[0]} before rerank, {after} (cutoff {k})",
                   (f"candidate rank {before[0]}: {_describe(before[1])}", f"final: {after}"))


def below_cutoff(facts: CaseFacts, group: EvidenceGroup) -> Outcome:
    """An acceptable chunk ranked past the cutoff (or a candidate past it, then dropped)."""
    k, final = facts.cutoff, facts.final()
    hit = _first(final, group)
    if hit is not None:
        part = cut_part(facts.result, hit[0], hit[1]) if hit[0] == k else None
        if part is not None and not any(part_satisfies(hit[1], t, *part) for t in group.any_of):
            return Finding("below_cutoff", f"{hit[1].chunk_id} is rank {k}, cut at the budget: "
                           f"only lines {part[0]}-{part[1]} of it fit, the evidence lies further "
                           "down", (f"rank {k}: {_describe(hit[1])}",))
        if hit[0] <= k:
            return None
        return Finding("below_cutoff", f"{hit[1].chunk_id} is rank {hit[0]}, past the cutoff {k}",
                       (f"rank {hit[0]}: {_describe(hit[1])}",))
    before = _first(_candidates(facts), group)
    if before is None:
        return None
    return Finding("below_cutoff", f"{before[1].chunk_id} was candidate rank {before[0]}, past the "
                   f"cutoff {k}, and the final ranking ({len(final)} chunks) dropped it",
                   (f"candidate rank {before[0]}: {_describe(before[1])}",))


def forbidden_source(facts: CaseFacts) -> Outcome:
    """A forbidden chunk inside the cutoff."""
    result = facts.result
    if not result.forbidden_chunk_ids:
        return None
    ids = set(result.forbidden_chunk_ids)
    return Finding("forbidden_source",
                   f"forbidden chunk(s) inside the cutoff: {', '.join(result.forbidden_hits())}",
                   tuple(f"rank {r}: {c.where()} (chunk {c.chunk_id}; forbidden: "
                         f"{', '.join(result.case.forbidden)})"
                         for r, c in enumerate(result.ranked, 1) if c.chunk_id in ids))


# --- the words of a ranking miss --------------------------------------------------------

# Words listed in one evidence line, at most (an issue report has hundreds).
_WORDS_SHOWN = 8


def _listed(words: Sequence[str]) -> str:
    more = len(words) - _WORDS_SHOWN
    return ", ".join(words[:_WORDS_SHOWN]) + (f", … ({more} more)" if more > 0 else "")


def _target_share(asked: dict[str, str], looked: Sequence[TargetFacts]) -> tuple[str, Share] | None:
    """The accepted target that holds most of the query's words, and where it is: a
    definition with every chunk of its span, else the best chunk of the target's file
    (of its gold lines when it has them)."""
    best: tuple[str, Share] | None = None
    for t in looked:
        if t.definitions:
            options = [(f"{d.qualified} in {d.file}",
                        share(asked, [d.qualified, d.file, *(c.text for c in parts)]))
                       for d in t.definitions if (parts := _overlapping(t.chunks, d))]
        elif t.target.symbol is None:
            lines = t.target.lines
            chunks = [c for c in t.chunks if lines is None
                      or (c.start_line <= lines[1] and c.end_line >= lines[0])]
            options = [(f"{c.file}:{c.start_line}-{c.end_line}", share(asked, [c.file, c.text, *c.symbols]))
                       for c in chunks]
        else:
            continue
        for option in options:
            if best is None or len(option[1].held) > len(best[1].held):
                best = option
    return best


def vocabulary(facts: CaseFacts, looked: Sequence[TargetFacts]) -> str | None:
    """One evidence line for a miss of ranking (``retrieval_miss``, ``below_cutoff``): how
    many of the query's words the target holds, against the chunks inside the cutoff. A
    target that holds none is out of reach of any search by words; one that holds fewer
    than the chunks ranked above it gives words no reason to prefer it. None when the
    index of the case revision or the query is not known."""
    query, index = facts.query(), facts.index
    if query is None or index is None:
        return None
    asked = query_words(query.raw)
    target = _target_share(asked, looked) if asked else None
    if target is None:
        return None
    where, got = target
    if not got.held:
        return (f"{line_prefix('none')}the target ({where}) holds none of the query's {got.asked} words "
                f"({_listed(list(asked.values()))}): no search by words reaches it; a question "
                "in the code's own words, or a signal that matches meaning, can")
    top: tuple[int, Share] | None = None
    for rank, c in enumerate(facts.visible(), 1):
        indexed = index.get(c.chunk_id)
        texts = ([indexed.file, indexed.text, *indexed.symbols] if indexed is not None
                 else [c.file, c.excerpt or "", *c.symbols, c.symbol or ""])
        held = share(asked, texts)
        if top is None or len(held.held) > len(top[1].held):
            top = (rank, held)
    line = (f"the target ({where}) holds {len(got.held)} of the query's {got.asked} "
            f"words ({_listed(got.held)})")
    if top is None:  # nothing inside the cutoff: words favour the target over nothing
        return line_prefix("more") + line
    rank, best = top
    line += f"; the chunk ranked {rank} holds {len(best.held)} ({_listed(best.held) or 'none'})"
    if len(got.held) > len(best.held):
        return line_prefix("more") + line + ": words favour the target; the fusion or rerank put it below"
    if len(got.held) == len(best.held):
        return line_prefix("as many") + line + ": words alone do not tell them apart"
    return line_prefix("fewer") + line + ": words favour the chunks above it"


CaseCheck = Callable[[CaseFacts], Outcome]
TargetCheck = Callable[[CaseFacts, TargetFacts], Outcome]
GroupCheck = Callable[[CaseFacts, EvidenceGroup], Outcome]

CASE_CHECKS: tuple[CaseCheck, ...] = (invalid_run, revision_mismatch, label_forbids_its_target)
TARGET_CHECKS: tuple[TargetCheck, ...] = (stale_label, excluded_by_policy, not_chunked)
RETURNED_CHECKS: tuple[TargetCheck, ...] = (metadata_mismatch, split_context)
GROUP_CHECKS: tuple[GroupCheck, ...] = (retrieval_miss, reranker_demotion, below_cutoff)


def furthest(findings: Sequence[Finding]) -> Finding:
    return max(findings, key=lambda f: f.order)


def earliest(findings: Sequence[Finding]) -> Finding:
    return min(findings, key=lambda f: f.order)
