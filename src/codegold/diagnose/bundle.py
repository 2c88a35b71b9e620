"""Evidence bundles: everything an owner needs to reproduce one failure, JSON and Markdown."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import msgspec

from codegold.diagnose.causes import CAUSE_BY_NAME
from codegold.diagnose.records import (
    Diagnosis,
    DiagnosisSet,
    EvidenceBundle,
    Excerpt,
    InventoryView,
)
from codegold.diagnose.words import KINDS, kind_of
from codegold.model import Chunk, RunResult, passed_over_text
from codegold.plumbing.secrets import redact_struct, redact_text
from codegold.plumbing.text import md_code, md_fence, plain_table, terminal_safe
from codegold.plumbing.text import md_text as _cell

if TYPE_CHECKING:
    from codegold.diagnose.checks import CaseFacts
    from codegold.diagnose.sources import IndexView

_CONTEXT_LINES = 3
_MAX_EXCERPT_LINES = 60


def _lines(text: str) -> list[str]:
    """Lines as git and the index number them: split on newlines only (``splitlines`` also
    splits on a form feed or U+2028 in a line, and every line after it shows off by one)."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if len(lines) > 1 and lines[-1] == "" else lines


def _excerpts(facts: CaseFacts) -> list[Excerpt]:
    out: list[Excerpt] = []
    for d in facts.definitions[:3]:
        start, end = max(1, d.start_line - _CONTEXT_LINES), d.end_line + _CONTEXT_LINES
        end = min(end, start + _MAX_EXCERPT_LINES - 1)
        text = facts.repo.text(facts.revision, d.file) if facts.repo else None
        if text is not None:
            lines = _lines(text)[start - 1:end]
            out.append(Excerpt(file=d.file, start_line=start, end_line=start + len(lines) - 1,
                               source="repository", text="\n".join(lines)))
            continue
        if facts.index is None:
            continue
        for chunk in facts.index.chunks_in_file(d.file):
            if chunk.start_line <= d.end_line and chunk.end_line >= d.start_line:
                lines = _lines(chunk.text)[:_MAX_EXCERPT_LINES]
                out.append(Excerpt(file=d.file, start_line=chunk.start_line,
                                   end_line=chunk.start_line + len(lines) - 1, source="index",
                                   text="\n".join(lines)))
    return out


def _target_texts(facts: CaseFacts) -> list[str]:
    out = []
    for g in facts.result.case.groups:
        for t in g.any_of:
            text = f"[{g.id}{'' if g.required else ', supporting'}] {t.file}"
            if t.symbol:
                text += f" symbol={t.symbol}"
            if t.roles:
                text += f" roles={'/'.join(t.roles)}"
            out.append(text)
    return out


def build_bundle(run: RunResult, facts: CaseFacts, cause: str, owner: str,
                 index: IndexView | None) -> EvidenceBundle:
    result, attempt = facts.result, facts.attempt
    query = (attempt.query if attempt and attempt.query else None) or result.query
    manifest = attempt.manifest if attempt and attempt.manifest else (index.manifest if index else None)
    chunker = f"{manifest.chunker.name} {manifest.chunker.version}" if manifest and manifest.chunker else None
    ranked: list[Chunk] = list(attempt.ranked) if attempt else list(result.ranked)
    passed = (attempt.passed_over or []) if attempt else result.passed_over_steps
    context = msgspec.to_builtins(result.case.context) if result.case.context else {}
    # Excerpts (the retriever's, or read from git) and queries came from outside: every
    # string is redacted once here, so the JSON and Markdown forms hold no secret value.
    return redact_struct(EvidenceBundle(
        format=1, case_id=result.case_id, status=result.status, cause=cause, owner=owner,
        query_raw=query.raw if query else result.case.query,
        query_rewritten=query.rewritten if query else None,
        filters=dict(query.filters) if query else {}, context=context,
        case_revision=result.case.revision, index_revision=result.index_revision,
        index_build_id=result.index_build_id, chunker=chunker,
        evaluator_version=run.codegold_version, cutoff=result.cutoff,
        first_relevant_rank=result.first_relevant_rank,
        first_relevant_rank_any_depth=result.first_relevant_rank_any_depth,
        missing_groups=list(result.missing_groups),
        forbidden_chunk_ids=list(result.forbidden_chunk_ids),
        targets=_target_texts(facts),
        target_inventory=[InventoryView(path=e.path, fate=e.fate, category=e.category, reason=e.reason,
                                        chunker=e.chunker, chunks=e.chunks, blob_sha=e.blob_sha)
                          for e in facts.inventory],
        candidates=list(attempt.candidates) if attempt and attempt.candidates is not None else None,
        ranked=ranked[: max(result.cutoff * 4, 20)],
        expected_excerpts=_excerpts(facts),
        rationale=result.case.rationale,
        context_ids=list(attempt.context_ids) if attempt and attempt.context_ids is not None else None,
        budget=result.budget,
        passed_over=list(passed) if passed else msgspec.UNSET,
    ))


def _budget_note(b: EvidenceBundle) -> str:
    if isinstance(b.budget, msgspec.UnsetType):
        return ""
    use = b.budget
    cut = (f"; {use.cut_chunk_id} cut after its first {use.cut_lines} lines"
           if use.cut_chunk_id else "")
    return f" (the entries that fit the budget {use.budget}, {use.used} used{cut})"


def _span(c: Chunk) -> str:
    """``start-end``, one line's number, or ``-`` for a chunk without lines (a file hit)."""
    if c.start_line is None:
        return "-"
    if c.end_line is None or c.end_line == c.start_line:
        return str(c.start_line)
    return f"{c.start_line}-{c.end_line}"


def _chunk_rows(chunks: list[Chunk], cutoff: int) -> list[str]:
    """The chunks with what scoring judged (the resolved symbols and role when span
    resolution ran, as for an imported trajectory, else the reported ones)."""
    rows = ["| rank | chunk | file | lines | symbol | role | revision |", "|---:|---|---|---|---|---|---|"]
    for rank, c in enumerate(chunks, 1):
        mark = " (past cutoff)" if rank > cutoff else ""
        cells = [f"{rank}{mark}", c.chunk_id, c.file, _span(c),
                 ", ".join(c.judged_symbols()) or "-", c.judged_role() or "-",
                 (c.judged_revision() or "-")[:12]]
        rows.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return rows


def _passed_over(b: EvidenceBundle) -> list[str]:
    """The agent's calls read as no context and no edit, by step (none: no line)."""
    if isinstance(b.passed_over, msgspec.UnsetType) or not b.passed_over:
        return []
    return [f"- passed over: {_cell(passed_over_text(b.passed_over))}"]


def _rank(rank: int | None) -> str:
    return "none" if rank is None else str(rank)


def render_bundle_markdown(bundle: EvidenceBundle, diagnosis: Diagnosis) -> str:
    b = bundle
    lines = [f"# Evidence bundle: {_cell(b.case_id)}", "",
             f"**Cause:** {b.cause} ({CAUSE_BY_NAME[b.cause].boundary if b.cause in CAUSE_BY_NAME else ''})  ",
             f"**Owner:** {_cell(b.owner)}  ", f"**Status:** {b.status}", "",
             _cell(diagnosis.summary), ""]
    lines += [f"- {_cell(e)}" for e in diagnosis.evidence]
    if diagnosis.checks_not_run:
        lines += ["", "Checks that could not run:", ""] + [f"- {_cell(c)}" for c in diagnosis.checks_not_run]
    lines += ["", "## Query", "", "Raw:", "", md_fence(b.query_raw), "",
              "Rewritten:", "", md_fence(b.query_rewritten if b.query_rewritten is not None else "(not recorded)"),
              "", f"Filters: {md_code(msgspec.json.encode(b.filters).decode())}; context: "
              f"{md_code(msgspec.json.encode(b.context).decode())}", "",
              "## Versions", "",
              f"- case revision: {md_code(str(b.case_revision))}", f"- index revision: {md_code(str(b.index_revision))}",
              f"- index build: {md_code(str(b.index_build_id))}", f"- chunker: {md_code(str(b.chunker))}",
              f"- evaluator: codegold {_cell(b.evaluator_version)}", f"- cutoff: {b.cutoff}" + _budget_note(b),
              f"- first relevant rank: {_rank(b.first_relevant_rank)} (any depth: "
              f"{_rank(b.first_relevant_rank_any_depth)})",
              *_passed_over(b),
              "", "## Accepted targets", ""]
    lines += [f"- {_cell(t)}" for t in b.targets]
    if b.rationale:
        lines += ["", f"Rationale: {_cell(b.rationale)}"]
    lines += ["", "## Target inventory", ""]
    lines += [f"- {_cell(e.path)}: fate={e.fate} category={e.category} "
              f"chunker={_cell(str(e.chunker))} chunks={e.chunks} reason={_cell(e.reason or '-')}" for e in b.target_inventory] or ["(no index entry)"]
    lines += ["", "## Candidates before rerank", ""]
    lines += _chunk_rows(b.candidates, b.cutoff) if b.candidates is not None else ["(not recorded by the retriever)"]
    lines += ["", "## Final ranking", "", *_chunk_rows(b.ranked, b.cutoff)]
    lines += ["", "## Excerpts around the expected symbol", ""]
    for ex in b.expected_excerpts:
        lines += [f"{_cell(ex.file)}:{ex.start_line}-{ex.end_line} (from {ex.source})", "", md_fence(ex.text), ""]
    if not b.expected_excerpts:
        lines.append("(none: no definition located)")
    lines += ["", "## Final context ids", "",
              _cell(", ".join(b.context_ids)) if b.context_ids is not None else "(not recorded)", ""]
    return redact_text("\n".join(lines), code=True)  # again on the way out


_WORDS_CAPTION = ("Ranking misses by the query's words: the target holds none of them, fewer "
                  "than the best chunk inside the cutoff, as many, or more (each bundle's "
                  "`words` line says which).")


def _word_kinds(summary: DiagnosisSet) -> list[tuple[str, int]]:
    """How many diagnoses carry each kind of words line, in :data:`KINDS` order."""
    counts = Counter(k for k in (kind_of(d.evidence) for d in summary.diagnoses) if k is not None)
    return [(kind, counts[kind]) for kind in KINDS if counts[kind]]


def render_summary_text(summary: DiagnosisSet) -> str:
    """The diagnosis summary for a terminal: the tables of :func:`render_summary_markdown`
    in aligned columns, without Markdown escapes."""
    lines = [f"Diagnosis of {terminal_safe(summary.results)}: "
             f"{len(summary.diagnoses)} case(s) did not pass.", ""]
    lines += plain_table(("cause", "cases", "owner"), [
        (cause, str(n), ", ".join(sorted({d.owner for d in summary.diagnoses if d.cause == cause})))
        for cause, n in summary.by_cause.items()])
    words = _word_kinds(summary)
    if words:
        lines += ["", _WORDS_CAPTION.replace("`", ""), *plain_table(
            ("target holds", "cases"), [(kind, str(n)) for kind, n in words])]
    lines += ["", *plain_table(("owner", "cases"),
                               [(o, str(n)) for o, n in summary.by_owner.items()])]
    lines += ["", *plain_table(("case", "cause", "owner", "summary"),
                               [(d.case_id, d.cause, d.owner, d.summary)
                                for d in summary.diagnoses])]
    if summary.passing:
        lines += ["", f"Agent-stage findings on {len(summary.passing)} passing case(s) "
                  "(not failures):", "",
                  *plain_table(("case", "cause", "owner", "summary"),
                               [(d.case_id, d.cause, d.owner, d.summary)
                                for d in summary.passing])]
    if summary.warnings:
        lines += ["", "Warnings:", *(f"- {terminal_safe(w)}" for w in summary.warnings)]
    return redact_text("\n".join(lines) + "\n", code=True)


def render_summary_markdown(summary: DiagnosisSet) -> str:
    lines = [f"# Diagnosis of {_cell(summary.results)}", "",
             f"{len(summary.diagnoses)} case(s) did not pass.", "",
             "| cause | cases | owner |", "|---|---:|---|"]
    for cause, n in summary.by_cause.items():
        owners = sorted({d.owner for d in summary.diagnoses if d.cause == cause})
        lines.append(f"| {cause} | {n} | {_cell(', '.join(owners))} |")
    words = _word_kinds(summary)
    if words:
        lines += ["", _WORDS_CAPTION, "", "| target holds | cases |", "|---|---:|"]
        lines += [f"| {kind} | {n} |" for kind, n in words]
    lines += ["", "| owner | cases |", "|---|---:|"]
    lines += [f"| {_cell(o)} | {n} |" for o, n in summary.by_owner.items()]
    lines += ["", "| case | cause | owner | summary |", "|---|---|---|---|"]
    lines += [f"| {_cell(d.case_id)} | {d.cause} | {_cell(d.owner)} | {_cell(d.summary)} |"
              for d in summary.diagnoses]
    if summary.passing:
        lines += ["", f"Agent-stage findings on {len(summary.passing)} passing case(s) "
                  "(not failures):", "", "| case | cause | owner | summary |", "|---|---|---|---|"]
        lines += [f"| {_cell(d.case_id)} | {d.cause} | {_cell(d.owner)} | {_cell(d.summary)} |"
                  for d in summary.passing]
    if summary.warnings:
        lines += ["", "Warnings:", ""] + [f"- {_cell(w)}" for w in summary.warnings]
    return redact_text("\n".join(lines) + "\n", code=True)
