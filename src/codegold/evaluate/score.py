"""Per-case scoring at the case's own cutoff (docs/concepts.md, "Per-case figures").

Only the ranking the answer stage receives (``ranked[:cutoff]``) decides a case; the
rest of the ranking is read only to report the rank of the first acceptable chunk at any
depth, which diagnosis uses to tell "just past the cutoff" from "never retrieved".
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import msgspec

from codegold.errors import InputError
from codegold.evaluate.aggregate import slice_keys
from codegold.evaluate.lines import gold_groups, line_figures
from codegold.evaluate.match import GroupMatcher
from codegold.model import Attempt, Case, CaseResult, Chunk, Status, manifest_problem
from codegold.model.budget import Visible, at_cutoff, visible_of
from codegold.model.metrics import TREND_DEPTH
from codegold.model.paths import PathPattern, normalize_path
from codegold.model.results import UNSET, BudgetUse, GroupReach, LineFigures, UnsetType

_Context = tuple[BudgetUse | UnsetType, LineFigures | UnsetType, list[GroupReach] | UnsetType]

# Chunks kept in results.json past the cutoff, so near misses can be shown.
NEAR_MISS_DEPTH = 5
EXCERPT_LIMIT = 600
REQUIRED_GAIN, SUPPORTING_GAIN = 2, 1


def _dcg(gains: list[int]) -> float:
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1) if gain)


def _trim(chunk: Chunk) -> Chunk:
    if chunk.excerpt is not None and len(chunk.excerpt) > EXCERPT_LIMIT:
        return msgspec.structs.replace(chunk, excerpt=chunk.excerpt[:EXCERPT_LIMIT] + "…")
    return chunk


def _is_agent(ranked: list[Chunk]) -> bool:
    """Whether the ranking is an agent's context: some chunk carries a kind or a step."""
    for chunk in ranked:  # noqa: SIM110 -- a loop: twice as fast as any() over a generator
        if chunk.kind is not None or chunk.step is not None:
            return True
    return False


def _moment(text: str | None) -> datetime | None:
    """An ISO 8601 time as aware UTC (naive means UTC); None when absent or unreadable."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


_AGENT_HINT = ("an imported trajectory records the manifest of its case's index when "
               "imported with `codegold import trajectories --index INDEX`")
_REFERENCE_HINT = "`codegold run --index INDEX` records the manifest of the index it searched"
_EXTERNAL_HINT = ("a retriever's answer may carry its own `manifest`, or `codegold run --index "
                  "INDEX --retriever ...` records the manifest of the index it hands the "
                  "retriever (`--resolve` judges the spans against it)")


def manifest_hint(attempt: Attempt) -> str:
    """How to get an index manifest into an attempt of this kind (an imported trajectory,
    a reference run, an external retriever), for the ``invalid`` reason of one without."""
    retriever = attempt.retriever or ""
    if retriever.startswith("agent:") or _is_agent(attempt.ranked):
        return _AGENT_HINT
    if retriever == "reference":
        return _REFERENCE_HINT
    if retriever:
        return _EXTERNAL_HINT
    return "; ".join((_REFERENCE_HINT, _EXTERNAL_HINT, _AGENT_HINT))


def index_problem(attempt: Attempt, revision: str) -> str | None:
    """Why the attempt's index cannot vouch for a case pinned to ``revision`` (None when it
    can). ``index_stale: ...`` when the index is of another revision; ``index_not_ready:
    ...`` when the attempt queried before the index build completed (manifest
    ``created_at``, compared to the second)."""
    manifest = attempt.manifest
    problem = manifest_problem(manifest, revision)
    if manifest is None:
        return f"{problem} ({manifest_hint(attempt)}; `eval --resolve` reads spans, it "\
               "records no manifest)"
    if problem is not None:
        if manifest.revision is not None and manifest.revision != revision:
            return "index_stale: " + problem
        return problem
    queried, built = _moment(attempt.queried_at), _moment(manifest.created_at)
    if queried is not None and built is not None \
            and queried.replace(microsecond=0) < built.replace(microsecond=0):
        return (f"index_not_ready: attempt queried at {attempt.queried_at}, before its index "
                f"build completed at {manifest.created_at}")
    return None


class CaseScorer:
    """Everything about one case that does not depend on the attempt, computed once."""

    __slots__ = ("budget", "case", "forbidden", "gold_lines", "ideal_dcg", "matcher",
                 "required_flags", "required_ids", "slices")

    def __init__(self, case: Case) -> None:
        self.case = case
        self.budget = case.budget_or_none
        groups = case.groups
        try:
            self.matcher = GroupMatcher(tuple([(g.id, g.required, g.any_of) for g in groups]))
        except InputError as err:
            raise InputError(err.message, case_id=case.id, field="file",
                             settings=err.settings) from None
        try:
            self.forbidden = tuple([PathPattern.forbidden(p) for p in case.forbidden])
        except InputError as err:
            raise InputError(err.message, case_id=case.id, field="forbidden",
                             settings=err.settings) from None
        self.required_flags = required = tuple([g.required for g in groups])
        self.required_ids = [g.id for g in groups if g.required]
        self.slices = [f"{dim}={value}" for dim, value in slice_keys(case)]
        self.gold_lines = bool(gold_groups(case))  # else line_figures is None for every attempt
        ideal = sorted([REQUIRED_GAIN if r else SUPPORTING_GAIN for r in required], reverse=True)
        if self.budget is None:
            ideal = ideal[: case.cutoff]  # a budget caps lines or steps, not ranks
        self.ideal_dcg = _dcg(ideal)

    def missing(self) -> CaseResult:
        case = self.case
        use, lines, reach = self._context_fields(None, at_cutoff(0, []), [],
                                                 [None] * len(self.required_flags))
        return CaseResult(
            case_id=case.id, status="missing", cutoff=case.cutoff, first_relevant_rank=None,
            reciprocal_rank=0.0, hit=False, group_recall=0.0, ndcg=0.0,
            missing_groups=list(self.required_ids), supporting_found=[], forbidden_chunk_ids=[],
            revision_mismatches=[], unknown_revision=[], invalid_reason=None, attempt_id=None,
            attempt_ids=[], index_build_id=None, index_revision=None, query=None, ranked=[],
            first_relevant_rank_any_depth=None, slices=list(self.slices), case=case,
            group_ranks=[None] * len(self.required_ids),
            budget=use, lines=lines, reach=reach,
        )

    def _context_fields(self, attempt: Attempt | None, visible: Visible | None,
                        ranked: list[Chunk], group_rank: list[int | None]) -> _Context:
        """The budget, line-level and reach fields, only where they apply: a case with a
        budget or gold lines, or an agent's attempt (its chunks carry kind or step).
        ``visible`` may be None for a case judged at a plain cutoff: it is then built here,
        only when one of those fields is written."""
        case = self.case
        budget = self.budget
        if budget is None and not self.gold_lines and not _is_agent(ranked):
            return UNSET, UNSET, UNSET  # a plain cutoff, no gold lines, a one-shot retriever
        if visible is None:
            visible = visible_of(case, ranked)
        figures = line_figures(case, attempt, visible, ranked) if self.gold_lines else None
        agent = _is_agent(ranked)
        use: BudgetUse | UnsetType = UNSET
        reach: list[GroupReach] | UnsetType = UNSET
        if budget is not None:
            cut = visible.cut
            use = BudgetUse(
                budget=budget, used=visible.used, visible_chunks=visible.count,
                cut_chunk_id=cut.chunk.chunk_id if cut else None,
                cut_lines=cut.size if cut else None)
        if budget is not None or figures is not None or agent:
            reach = []
            read_until = []
            total = 0
            for part in visible.seen:
                total += part.size
                read_until.append(total)
            for i, group in enumerate(case.groups):
                if not group.required:
                    continue
                rank = group_rank[i]
                if rank is None or rank > visible.count:
                    reach.append(GroupReach(group=group.id))
                    continue
                reach.append(GroupReach(group=group.id, rank=rank, step=ranked[rank - 1].step,
                                        lines=read_until[rank - 1]))
        return use, UNSET if figures is None else figures, reach

    def score(self, attempt: Attempt) -> CaseResult:
        case = self.case
        ranked = attempt.ranked
        # At a plain cutoff the visible prefix is ranked[:cutoff]; its per-chunk record
        # (Visible) is built only for the fields that read it (_context_fields).
        visible: Visible | None = None
        cut_at = -1  # the position of a chunk cut at the budget: only its part counts
        cut_first = cut_last = 0
        if self.budget is None:
            head = ranked[: case.cutoff]
        else:
            visible = visible_of(case, ranked)
            head = ranked[: visible.count]
            cut = visible.cut
            if cut is not None:
                cut_at, cut_first, cut_last = visible.count - 1, cut.first, cut.last
        k = len(head)
        matcher = self.matcher
        satisfied_by = matcher.satisfied
        required = self.required_flags
        credited: set[int] = set()  # groups that already gave gain (nDCG)
        satisfied: set[int] = set()
        gains = [0] * k  # per visible rank; a chunk that satisfies no group gives none
        first_rank: int | None = None
        first_any: int | None = None  # a cut chunk's whole, when its part holds no group
        group_rank: list[int | None] = [None] * len(required)
        # Only chunks that may satisfy a group are tried, in rank order: the others
        # change nothing below. Found once for the whole ranking (the visible prefix and
        # what lies past it).
        candidates = matcher.candidates(ranked)
        beyond = len(candidates)  # where in ``candidates`` the chunks past the cutoff start
        for index, at in enumerate(candidates):
            if at >= k:
                beyond = index
                break
            if at == cut_at:
                hits = matcher.satisfied_part(ranked[at], cut_first, cut_last)
                if first_any is None and any(required[i] for i in satisfied_by(ranked[at])):
                    first_any = at + 1  # held past the cut: read, but after the budget
            else:
                hits = satisfied_by(ranked[at])
            if not hits:
                continue
            rank = at + 1
            satisfied |= hits
            for i in hits:
                if group_rank[i] is None:
                    group_rank[i] = rank
            if first_rank is None and any(required[i] for i in hits):
                first_rank = rank
            fresh = [i for i in hits if i not in credited]
            if fresh:
                # Credit the highest-gain group first; ties go to the earlier group.
                best = max(fresh, key=lambda i: (required[i], -i))
                credited.add(best)
                gains[at] = REQUIRED_GAIN if required[best] else SUPPORTING_GAIN
        forbidden: list[str] = []
        if self.forbidden:
            patterns = self.forbidden
            for chunk in head:
                path = normalize_path(chunk.file)
                if any(pattern.matches(path) for pattern in patterns):
                    forbidden.append(chunk.chunk_id)
        mismatched: list[str] = []
        unknown: list[str] = []
        revision = case.revision
        # Most rankings are all of the case's revision, as reported: one count says so.
        if [chunk.revision for chunk in head].count(revision) != k:
            for chunk in head:
                chunk_revision = chunk.judged_revision()
                if chunk_revision != revision:
                    (unknown if chunk_revision is None else mismatched).append(chunk.chunk_id)

        # Past the cutoff (never deciding the case), one pass: trend figures read the
        # groups' ranks down to TREND_DEPTH, and with no hit within the cutoff diagnosis
        # wants the first acceptable chunk at any depth.
        first_any = first_rank if first_rank is not None else first_any
        for at in candidates[beyond:]:
            rank = at + 1
            trend = rank <= TREND_DEPTH
            if not trend and first_any is not None:
                break
            hits = satisfied_by(ranked[at])
            if trend:
                for i in hits:
                    if group_rank[i] is None:
                        group_rank[i] = rank
            if first_any is None and any(required[i] for i in hits):
                first_any = rank

        groups = case.groups
        missing_groups = [g.id for i, g in enumerate(groups) if required[i] and i not in satisfied]
        supporting_found = [g.id for i, g in enumerate(groups) if not required[i] and i in satisfied]
        n_required = len(self.required_ids)
        group_recall = (n_required - len(missing_groups)) / n_required

        invalid_reason: str | None
        if attempt.error is not None:
            invalid_reason = f"retriever error: {attempt.error}"
        else:
            invalid_reason = index_problem(attempt, revision)
        if invalid_reason is None and unknown:
            invalid_reason = (f"{len(unknown)} visible chunk(s) carry no revision, so revision "
                              "integrity cannot be checked")
        status: Status
        if invalid_reason is not None:
            status = "invalid"
        elif not missing_groups and not forbidden and not mismatched:
            status = "pass"
        else:
            status = "fail"
        manifest = attempt.manifest
        use, lines, reach = self._context_fields(attempt, visible, ranked, group_rank)
        return CaseResult(
            case_id=case.id,
            status=status,
            # At a budget, the cutoff is the number of chunks that fit it in this attempt.
            cutoff=case.cutoff if self.budget is None else k,
            first_relevant_rank=first_rank,
            reciprocal_rank=1.0 / first_rank if first_rank else 0.0,
            hit=first_rank is not None,
            group_recall=group_recall,
            ndcg=(_dcg(gains) if credited else 0) / self.ideal_dcg,
            missing_groups=missing_groups,
            supporting_found=supporting_found,
            forbidden_chunk_ids=forbidden,
            revision_mismatches=mismatched,
            unknown_revision=unknown,
            invalid_reason=invalid_reason,
            attempt_id=attempt.attempt_id,
            attempt_ids=[attempt.attempt_id],
            index_build_id=manifest.index_build_id if manifest else None,
            index_revision=manifest.revision if manifest else None,
            query=attempt.query,
            # Near misses are kept only where they explain something: a passing case
            # shows what the answer stage saw and no more.
            ranked=[c if c.excerpt is None or len(c.excerpt) <= EXCERPT_LIMIT else _trim(c)
                    for c in ranked[: k if status == "pass" else k + NEAR_MISS_DEPTH]],
            first_relevant_rank_any_depth=first_any,
            slices=list(self.slices),
            case=case,
            group_ranks=[r for i, r in enumerate(group_rank) if required[i]],
            latency_ms=attempt_latency(attempt),
            cost_tokens=attempt.cost.tokens if attempt.cost else None,
            cost_usd=attempt.cost.usd if attempt.cost else None,
            budget=use, lines=lines, reach=reach,
            passed_over=attempt.passed_over or UNSET,
        )


def attempt_latency(attempt: Attempt) -> float | None:
    """The attempt's latency: ``timing_ms["total"]``, else ``timing_ms["wall"]``.

    None when neither is recorded, or when the figure is not a finite non-negative number
    (a clock that ran backwards says nothing about speed).
    """
    timing = attempt.timing_ms or {}
    value = timing.get("total", timing.get("wall"))
    if value is None or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def score_case(case: Case, attempt: Attempt | None) -> CaseResult:
    """Score ``case`` on its final ``attempt`` (None: the case is ``missing``)."""
    scorer = CaseScorer(case)
    return scorer.missing() if attempt is None else scorer.score(attempt)
