"""The agent checks: where an agent's trajectory lost the evidence (docs/diagnose.md).

They apply only to an agent's attempt (its chunks carry ``kind`` or ``step``), after the
index and label checks and before the retrieval ones, in trajectory order:

- ``never_searched`` (per missing group): no search hit and no read, at any step, touched
  a file of the group's targets;
- ``found_not_read`` (per missing group): a search listed a target's file (or its gold
  lines), and the agent never read that file (those lines, when the target has them);
- ``forbidden_read_first`` (case): a forbidden source entered the context, inside the
  budget, before any accepted evidence (or with none at all);
- ``read_past_budget`` (per missing group): the agent read acceptable evidence, but only
  after the budget (or cutoff) ran out;
- ``evidence_dropped`` (case, every required group found): gold lines were seen, and the
  final patch or answer leaves some out (``lines.evidence_drop`` of the case).

Each is a small pure function over :class:`~codegold.diagnose.checks.CaseFacts`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from codegold.diagnose.checks import CaseFacts, Finding, NotRun, Outcome
from codegold.diagnose.owners import AGENT_CAUSES as AGENT_CAUSES
from codegold.evaluate.match import (
    cut_part,
    file_matches,
    part_satisfies,
    seen_satisfies,
    target_matches,
)
from codegold.model import CaseResult, Chunk, EvidenceGroup, Target
from codegold.model.paths import normalize_path


def is_agent(chunks: Sequence[Chunk]) -> bool:
    """An agent's context: some chunk records the step or the kind of access."""
    return any(c.kind is not None or c.step is not None for c in chunks)


def _in_file(chunk: Chunk, target: Target) -> bool:
    # A read outside the repository is never the target's file, whatever its path reads.
    return not chunk.outside_repo and file_matches(target.file, normalize_path(chunk.file))


def _touches_lines(chunk: Chunk, target: Target) -> bool:
    """In the target's file and, when both have lines, overlapping its gold lines."""
    if not _in_file(chunk, target):
        return False
    if target.lines is None or chunk.start_line is None or chunk.end_line is None:
        return True
    first, last = target.lines
    return chunk.start_line <= last and chunk.end_line >= first


def _where(rank: int, chunk: Chunk) -> str:
    step = f"step {chunk.step}" if chunk.step is not None else "no step"
    lines = (f":{chunk.start_line}-{chunk.end_line}" if chunk.start_line is not None else "")
    return (f"rank {rank} ({step}, {chunk.kind or 'context'}"
            + (f" via {chunk.tool}" if chunk.tool else "") + f"): {chunk.file}{lines}")


def _whole_trajectory(check: str, facts: CaseFacts) -> NotRun | None:
    """A claim that something never happened needs the whole trajectory, not the top
    entries results.json keeps."""
    if facts.attempt is None:
        return NotRun(check, "needs the whole trajectory (the attempts file); results.json "
                      "keeps only its first entries")
    return None


def never_searched(facts: CaseFacts, group: EvidenceGroup) -> Outcome:
    """No search hit and no read touched a file of the group's targets."""
    skipped = _whole_trajectory("never_searched", facts)
    if skipped is not None:
        return skipped
    final = facts.final()
    if any(_in_file(c, t) for c in final for t in group.any_of):
        return None
    files = ", ".join(dict.fromkeys(t.file for t in group.any_of))
    steps = sorted({c.step for c in final if c.step is not None})
    return Finding("never_searched",
                   f"no search or read of the agent touched {files} (group {group.id})",
                   (f"the trajectory holds {len(final)} context entries over "
                    f"{len(steps)} step(s); none is in {files}",))


def found_not_read(facts: CaseFacts, group: EvidenceGroup) -> Outcome:
    """A search listed a target's file or lines; the agent never read them."""
    skipped = _whole_trajectory("found_not_read", facts)
    if skipped is not None:
        return skipped
    final = facts.final()
    for target in group.any_of:
        hits = [(r, c) for r, c in enumerate(final, 1)
                if c.kind == "search_hit" and _touches_lines(c, target)]
        if not hits:
            continue
        if any(c.kind != "search_hit" and _touches_lines(c, target) for c in final):
            continue
        what = target.file + (f" lines {target.lines[0]}-{target.lines[1]}"
                              if target.lines else "")
        return Finding("found_not_read",
                       f"a search listed {what} (group {group.id}); the agent never opened it",
                       (*(f"search hit at {_where(r, c)}" for r, c in hits[:5]),
                        f"no read of {what} follows"))
    return None


def read_past_budget(facts: CaseFacts, group: EvidenceGroup) -> Outcome:
    """Acceptable evidence was read, but only after the budget (or cutoff) ran out: in a
    later entry, or in the part of the entry the budget cut that did not fit."""
    k = facts.cutoff
    result = facts.result
    for rank, chunk in enumerate(facts.final(), 1):
        if rank < k or chunk.kind == "search_hit":
            continue
        part = cut_part(result, rank, chunk) if rank == k else None
        if rank == k and (part is None or any(part_satisfies(chunk, t, *part)
                                               for t in group.any_of)):
            continue
        if any(target_matches(chunk, t) for t in group.any_of):
            limit = _limit(result)
            where = (f"lines {part[0]}-{part[1]} of it fit the {limit}, the evidence lies "
                     "further down" if part is not None
                     else f"the {limit} holds the first {k} context entries")
            return Finding("read_past_budget",
                           f"{chunk.chunk_id} (group {group.id}) was read at rank {rank}, past "
                           f"the {limit}",
                           (f"read at {_where(rank, chunk)}", where))
    return None


def _limit(result: CaseResult) -> str:
    use = result.budget_use
    return f"budget of {use.budget.limit} {use.budget.unit}" if use else f"cutoff {result.cutoff}"


def forbidden_read_first(facts: CaseFacts) -> Outcome:
    """A forbidden source entered the context before any accepted evidence."""
    result = facts.result
    if not result.forbidden_chunk_ids:
        return None
    visible = list(facts.visible())
    forbidden = set(result.forbidden_chunk_ids)
    required = result.case.required_groups
    first_bad = next((r for r, c in enumerate(visible, 1) if c.chunk_id in forbidden), None)
    first_good = next((r for r, c in enumerate(visible, 1)
                       if any(seen_satisfies(result, r, c, t)
                              for g in required for t in g.any_of)), None)
    if first_bad is None or (first_good is not None and first_good < first_bad):
        return None
    chunk = visible[first_bad - 1]
    after = (f"accepted evidence first at rank {first_good}" if first_good is not None
             else "no accepted evidence inside the budget")
    return Finding("forbidden_read_first",
                   f"forbidden {chunk.file} entered the context at rank {first_bad}, before any "
                   "accepted evidence",
                   (f"forbidden at {_where(first_bad, chunk)} (forbidden: "
                    f"{', '.join(result.case.forbidden)})", after))


def evidence_dropped(facts: CaseFacts) -> Outcome:
    """Every required group was found, and the final patch or answer dropped gold lines."""
    result = facts.result
    figures = result.line_figures
    if result.missing_groups or figures is None or not figures.evidence_drop:
        return None
    return Finding("evidence_dropped",
                   f"{figures.evidence_drop:.0%} of the gold lines seen are absent from the "
                   "final patch or answer",
                   tuple(f"seen, not carried into the final: {d}" for d in figures.dropped))


GroupCheck = Callable[[CaseFacts, EvidenceGroup], Outcome]
CaseCheck = Callable[[CaseFacts], Outcome]

# In the documented order; the engine runs them only on an agent's attempt.
AGENT_GROUP_CHECKS: tuple[GroupCheck, ...] = (never_searched, found_not_read, read_past_budget)
AGENT_CASE_CHECKS: tuple[CaseCheck, ...] = (forbidden_read_first, evidence_dropped)
