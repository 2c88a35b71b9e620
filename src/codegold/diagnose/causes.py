"""Failure causes in the order they are checked (docs/diagnose.md).

Diagnosis stops at the first broken boundary: a label that names a file absent at the
pinned revision is a dataset problem even if the ranking is also poor.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cause:
    name: str
    default_owner: str
    boundary: str


CAUSES: tuple[Cause, ...] = (
    Cause("invalid_run", "indexing", "manifest missing, incomplete or from another revision"),
    # Not in DESIGN's table: a visible chunk from another revision fails a case whose
    # manifest is right, which means the index kept stale content (an indexing fault).
    Cause("revision_mismatch", "indexing", "a visible chunk carries another revision"),
    Cause("stale_label", "dataset",
          "the label contradicts the pinned revision (file or definition absent by parse, role "
          "the index never gives it, or a target the case itself forbids)"),
    Cause("excluded_by_policy", "indexing", "target file exists, the path policy left it out"),
    Cause("not_chunked", "parser-chunker",
          "file indexed, but the parser could not read its definitions or no chunk holds the target"),
    Cause("metadata_mismatch", "parser-chunker",
          "a returned chunk covers the target but its symbol or role says otherwise"),
    Cause("split_context", "parser-chunker",
          "returned chunks inside the cutoff hold parts of the definition, none holds it whole"),
    # An agent's trajectory (diagnose/agent.py), before the retrieval causes.
    Cause("never_searched", "agent", "no search or read of the agent touched the target's file"),
    Cause("found_not_read", "agent", "a search listed the target's file or lines, never read"),
    Cause("forbidden_read_first", "agent", "a forbidden source entered the context before evidence"),
    Cause("read_past_budget", "agent", "the evidence was read, but after the budget"),
    Cause("evidence_dropped", "agent", "gold lines seen are absent from the final patch or answer"),
    Cause("query_rewrite_loss", "retrieval", "an identifier of the raw query is missing from the rewrite"),
    Cause("retrieval_miss", "retrieval", "target chunk indexed correctly, absent from candidates"),
    Cause("reranker_demotion", "reranker", "inside the cutoff before rerank, below it after"),
    Cause("below_cutoff", "retrieval", "acceptable chunk ranked past the cutoff"),
    Cause("forbidden_source", "retrieval", "forbidden chunk inside the cutoff"),
    Cause("answer_ignored_evidence", "answer-generation",
          "evidence reached the context, the answer did not use it (needs answers; not checked yet)"),
    Cause("unexplained", "retrieval", "the case fails but no check found the broken boundary"),
)

CAUSE_ORDER: dict[str, int] = {c.name: i for i, c in enumerate(CAUSES)}
CAUSE_BY_NAME: dict[str, Cause] = {c.name: c for c in CAUSES}
