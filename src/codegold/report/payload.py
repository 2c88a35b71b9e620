"""The per-case data the HTML page embeds and renders in the browser.

Built from the report model, encoded as JSON and placed in a
``<script type="application/json">`` element. :func:`embed_json` escapes ``<``, ``>`` and
``&`` as ``\\u003c``-style escapes so that no text from a case (``</script>``, ``<!--``)
can end the element early; JSON.parse restores them.
"""

from __future__ import annotations

import msgspec

from codegold.model import CaseResult, Chunk, passed_over_text
from codegold.plumbing.text import json_visible
from codegold.report.model import ReportInput

# Passing cases keep shorter excerpts: the page must stay light at 10,000 cases, and the
# cases people open are mostly the failing ones.
_EXCERPT_FAILING = 600
_EXCERPT_PASSING = 160
_BUNDLE_CHARS = 20_000


class RankedRow(msgspec.Struct, frozen=True, kw_only=True):
    rank: int
    chunk_id: str
    file: str
    symbol: str
    role: str
    revision: str
    lines: str
    excerpt: str
    accepted: list[str]  # ids of the groups this chunk satisfies
    forbidden: bool
    past_cutoff: bool
    revision_mismatch: bool


class GroupRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    required: bool
    targets: list[str]
    satisfied: bool


class DiagnosisRow(msgspec.Struct, frozen=True, kw_only=True):
    summary: str
    evidence: list[str]
    checks_not_run: list[str]
    bundle: str | None


class TimelineRow(msgspec.Struct, frozen=True, kw_only=True):
    """One context entry of an agent's trajectory, in the order it entered the model's
    input: what was searched or read, at which step, and what it meant for the case."""

    rank: int
    step: int | None
    kind: str      # "read", "search_hit", or "" when the trajectory did not say
    tool: str
    file: str
    lines: str
    accepted: list[str]
    satisfied: list[str]   # required groups first satisfied by this entry
    forbidden: bool
    past_budget: bool
    cut: bool              # crossed the budget: only its first lines counted
    outside_repo: bool
    symbol: str = ""       # what scoring judged (resolved when spans were resolved)
    role: str = ""


class CaseRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    status: str
    cause: str
    owner: str
    rank: int | None
    rank_any_depth: int | None
    cutoff: int
    slices: list[str]
    query: str
    rewritten: str
    filters: str
    revision: str
    index_revision: str
    index_build_id: str
    invalid_reason: str
    rationale: str
    groups: list[GroupRow]
    forbidden_patterns: list[str]
    ranked: list[RankedRow]
    diagnosis: DiagnosisRow | None
    # An agent's case only (chunks carrying step or kind); left out otherwise.
    timeline: list[TimelineRow] | msgspec.UnsetType = msgspec.UNSET
    budget: str | msgspec.UnsetType = msgspec.UNSET    # "lines=400, used 400"
    line_figures: str | msgspec.UnsetType = msgspec.UNSET
    # An imported trajectory's calls read as nothing, by step: "step 4 (failed edit: …)".
    passed_over: str | msgspec.UnsetType = msgspec.UNSET


class PagePayload(msgspec.Struct, frozen=True, kw_only=True):
    format: int
    cases: list[CaseRow]
    statuses: list[str]
    causes: list[str]
    slices: list[str]


def _clip(text: str | None, limit: int) -> str:
    if not text:
        return ""
    return text if len(text) <= limit else text[:limit] + " …"


def _target_text(file: str, symbol: str | None, roles: tuple[str, ...]) -> str:
    parts = [file]
    if symbol:
        parts.append(f"symbol {symbol}")
    if roles:
        parts.append("roles " + "/".join(roles))
    return ", ".join(parts)


def _ranked(report: ReportInput, case: CaseResult) -> list[RankedRow]:
    matches = report.matches.get(case.case_id)
    forbidden = set(case.forbidden_chunk_ids)
    mismatched = set(case.revision_mismatches)
    limit = _EXCERPT_PASSING if case.status == "pass" else _EXCERPT_FAILING
    rows = []
    for rank, chunk in enumerate(case.ranked, start=1):
        if matches is not None:
            accepted = list(matches.get(chunk.chunk_id, ()))
        else:
            accepted = ["first relevant"] if rank == case.first_relevant_rank else []
        rows.append(RankedRow(
            rank=rank, chunk_id=chunk.chunk_id, file=chunk.file,
            # what scoring judged: the resolved symbols and role when spans were resolved
            symbol=", ".join(chunk.judged_symbols()), role=chunk.judged_role() or "",
            revision=chunk.judged_revision() or "", lines=_lines(chunk),
            excerpt=_clip(chunk.excerpt, limit), accepted=accepted,
            forbidden=chunk.chunk_id in forbidden and rank <= case.cutoff,
            past_cutoff=rank > case.cutoff, revision_mismatch=chunk.chunk_id in mismatched,
        ))
    return rows


def _lines(chunk: Chunk) -> str:
    if chunk.start_line is None:
        return ""
    return f"{chunk.start_line}-{chunk.end_line}" if chunk.end_line is not None else str(chunk.start_line)


def _satisfied(case: CaseResult, group_id: str, required: bool, missing: set[str]) -> bool:
    if case.status == "invalid":
        return False  # nothing was scored, so nothing can be claimed satisfied
    return group_id not in missing if required else group_id in case.supporting_found


def is_agent_case(case: CaseResult) -> bool:
    """The case's context is an agent's trajectory: some chunk records step or kind."""
    return any(c.step is not None or c.kind is not None for c in case.ranked)


def timeline(report: ReportInput, case: CaseResult) -> list[TimelineRow]:
    """The trajectory as the report shows it (the visible entries and a few past the
    budget, as results.json keeps them)."""
    matches = report.matches.get(case.case_id)
    forbidden = set(case.forbidden_chunk_ids)
    first_at: dict[int, list[str]] = {}
    for reach in case.group_reach:
        if reach.rank is not None:
            first_at.setdefault(reach.rank, []).append(reach.group)
    use = case.budget_use
    cut_id = use.cut_chunk_id if use else None
    rows = []
    for rank, chunk in enumerate(case.ranked, start=1):
        accepted = list(matches.get(chunk.chunk_id, ())) if matches is not None else []
        lines = _lines(chunk)
        if chunk.chunk_id == cut_id and use and use.cut_lines and chunk.start_line is not None:
            lines += f" (first {use.cut_lines} counted)"
        rows.append(TimelineRow(
            rank=rank, step=chunk.step, kind=chunk.kind or "", tool=chunk.tool or "",
            file=chunk.file, lines=lines, accepted=accepted, satisfied=first_at.get(rank, []),
            forbidden=chunk.chunk_id in forbidden and rank <= case.cutoff,
            past_budget=rank > case.cutoff, cut=chunk.chunk_id == cut_id,
            outside_repo=chunk.outside_repo, symbol=", ".join(chunk.judged_symbols()),
            role=chunk.judged_role() or ""))
    return rows


def budget_text(case: CaseResult) -> str:
    use = case.budget_use
    if use is None:
        return f"cutoff {case.cutoff}"
    entries = "entry" if use.visible_chunks == 1 else "entries"
    return f"budget {use.budget} (used {use.used}, {use.visible_chunks} {entries} fit)"


def line_text(case: CaseResult) -> str:
    f = case.line_figures
    if f is None:
        return ""
    text = (f"line recall {f.recall:.3f}, precision {f.precision:.3f}, efficiency "
            f"{f.efficiency:.3f}, redundancy {f.redundancy:.3f} ({f.gold_seen} of {f.gold} gold "
            f"lines seen, {f.read} lines read)")
    if f.evidence_drop is not None:
        text += f"; evidence drop {f.evidence_drop:.3f}"
    return text


def case_row(report: ReportInput, case: CaseResult) -> CaseRow:
    resolved = case.case
    missing = set(case.missing_groups)
    diagnosis = report.diagnoses.get(case.case_id)
    query = case.query
    return CaseRow(
        id=case.case_id, status=case.status, cause=report.cause_of(case) or "",
        owner=diagnosis.owner if diagnosis else "", rank=case.first_relevant_rank,
        rank_any_depth=case.first_relevant_rank_any_depth, cutoff=case.cutoff,
        slices=list(case.slices), query=resolved.query,
        rewritten=(query.rewritten or "") if query else "",
        filters=msgspec.json.encode(query.filters).decode() if query and query.filters else "",
        revision=resolved.revision, index_revision=case.index_revision or "",
        index_build_id=case.index_build_id or "", invalid_reason=case.invalid_reason or "",
        rationale=resolved.rationale or "",
        groups=[GroupRow(id=g.id, required=g.required,
                         targets=[_target_text(t.file, t.symbol, t.roles) for t in g.any_of],
                         satisfied=_satisfied(case, g.id, g.required, missing))
                for g in resolved.groups],
        forbidden_patterns=list(resolved.forbidden),
        ranked=_ranked(report, case),
        diagnosis=None if diagnosis is None else DiagnosisRow(
            summary=diagnosis.summary, evidence=diagnosis.evidence,
            checks_not_run=diagnosis.checks_not_run,
            bundle=_clip(report.bundles.get(case.case_id), _BUNDLE_CHARS) or None),
        timeline=timeline(report, case) if is_agent_case(case) else msgspec.UNSET,
        budget=budget_text(case) if case.budget_use is not None else msgspec.UNSET,
        line_figures=line_text(case) or msgspec.UNSET,
        passed_over=passed_over_text(case.passed_over_steps) or msgspec.UNSET,
    )


def build_payload(report: ReportInput) -> PagePayload:
    rows = [case_row(report, c) for c in report.results.cases]
    return PagePayload(
        format=1, cases=rows,
        statuses=sorted({r.status for r in rows}),
        causes=sorted({r.cause for r in rows if r.cause}),
        slices=sorted({s for r in rows for s in r.slices}),
    )


def embed_json(payload: PagePayload) -> str:
    """JSON safe to place inside a script element (no ``<``, ``>`` or ``&`` survive)."""
    raw = json_visible(msgspec.json.encode(payload).decode("utf-8"))  # bidi shown, not obeyed
    return (raw.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
