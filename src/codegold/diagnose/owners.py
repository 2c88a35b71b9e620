"""Owner routing: which team receives each cause.

The owners file (YAML or JSON)::

    format: 1
    owners: {stale_label: eval-dataset, reranker_demotion: ranking-team}
    default: search-team        # for causes the file does not list
    retrievers:                 # per retriever id (the attempts' `retriever` label)
      "command:node my.js": {retrieval_miss: team-x, default: team-x}
    agent: {default: agent-team}  # cases whose attempt is an agent's trajectory

``agent`` routes the cases whose final attempt is an agent's trajectory (chunks carrying
``kind`` or ``step``): a cause listed there goes to its team, and its ``default`` takes the
agent causes (:data:`AGENT_CAUSES`) and those of the agent's own searching
(:data:`RETRIEVER_CAUSES`). A retriever's own entry wins for its cases. Its ``default`` takes every cause in that
retriever's own chunking, ranking or metadata (:data:`RETRIEVER_CAUSES`); dataset,
index-manifest and answer causes keep the file-wide routing.

Without a file, each cause goes to its built-in owner (``indexing``, ``dataset``,
``parser-chunker``, ``retrieval``, ``reranker``, ``answer-generation``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

import msgspec
from msgspec import Meta

from codegold.diagnose.causes import CAUSE_BY_NAME
from codegold.model.io import load_versioned

Team = Annotated[str, Meta(pattern=r"\S", description="a team name")]
if TYPE_CHECKING:
    CauseName = str
else:  # the cause names, as a Literal so the JSON Schema lists them
    CauseName = Annotated[Literal[tuple(CAUSE_BY_NAME)], Meta(description="cause")]


if TYPE_CHECKING:
    RetrieverKey = str
else:  # a cause, or "default" for every cause in the retriever's own stages
    RetrieverKey = Annotated[Literal[(*CAUSE_BY_NAME, "default")],
                             Meta(description="cause, or default")]
RetrieverId = Annotated[str, Meta(min_length=1, max_length=4096,
                                  description="a retriever id as attempts record it")]

# Causes that live in a retriever's own chunking, ranking or metadata: an external
# retriever's owners take them (through the retriever's ``default``).
RETRIEVER_CAUSES = frozenset({
    "not_chunked", "metadata_mismatch", "split_context", "query_rewrite_loss",
    "retrieval_miss", "reranker_demotion", "below_cutoff", "forbidden_source", "unexplained",
})


AGENT_CAUSES = frozenset({"never_searched", "found_not_read", "forbidden_read_first",
                          "read_past_budget", "evidence_dropped"})


class OwnersFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    format: Literal[1]
    owners: dict[CauseName, Team] = msgspec.field(default_factory=dict)
    default: Team | None = None
    retrievers: dict[RetrieverId, dict[RetrieverKey, Team]] = msgspec.field(default_factory=dict)
    agent: dict[RetrieverKey, Team] = msgspec.field(default_factory=dict)


@dataclass(frozen=True)
class Owners:
    by_cause: dict[str, str] = field(default_factory=dict)
    default: str | None = None
    # retriever id -> {cause or "default": team}
    by_retriever: dict[str, dict[str, str]] = field(default_factory=dict)
    # {cause or "default": team} for cases whose attempt is an agent's trajectory
    agent: dict[str, str] = field(default_factory=dict)

    def owner_of(self, cause: str, retriever: str | None = None, *, agent: bool = False) -> str:
        """The team for ``cause``; ``retriever`` is the failing attempt's retriever id,
        ``agent`` whether that attempt is an agent's trajectory."""
        if agent and self.agent:
            if cause in self.agent:
                return self.agent[cause]
            if "default" in self.agent and cause in AGENT_CAUSES | RETRIEVER_CAUSES:
                return self.agent["default"]
        own = self.by_retriever.get(retriever) if retriever is not None else None
        if own is not None:
            if cause in own:
                return own[cause]
            if "default" in own and cause in RETRIEVER_CAUSES:
                return own["default"]
        if cause in self.by_cause:
            return self.by_cause[cause]
        if self.default is not None:
            return self.default
        known = CAUSE_BY_NAME.get(cause)
        return known.default_owner if known else "retrieval"


def load_owners(path: str) -> Owners:
    """Read an owners file; any mistake is a SchemaError naming the file, line and key."""
    spec = load_versioned(path, OwnersFile, what="owners",
                          hint="see `codegold schema owners`").value
    return Owners(by_cause=dict(spec.owners), default=spec.default,
                  by_retriever={name: dict(entry) for name, entry in spec.retrievers.items()},
                  agent=dict(spec.agent))
