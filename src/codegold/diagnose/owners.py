"""Owner routing: which team receives each cause.

The owners file (YAML or JSON)::

    format: 1
    owners: {stale_label: eval-dataset, reranker_demotion: ranking-team}
    default: search-team        # for causes the file does not list

Without a file, each cause goes to its built-in owner (``indexing``, ``dataset``,
``parser-chunker``, ``retrieval``, ``reranker``, ``answer-generation``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

import msgspec
from msgspec import Meta

from codegold.diagnose.causes import CAUSE_BY_NAME
from codegold.model._files import load_versioned

Team = Annotated[str, Meta(pattern=r"\S", description="a team name")]
if TYPE_CHECKING:
    CauseName = str
else:  # the cause names, as a Literal so the JSON Schema lists them
    CauseName = Annotated[Literal[tuple(CAUSE_BY_NAME)], Meta(description="cause")]


class OwnersFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    format: Literal[1]
    owners: dict[CauseName, Team] = msgspec.field(default_factory=dict)
    default: Team | None = None


@dataclass(frozen=True)
class Owners:
    by_cause: dict[str, str] = field(default_factory=dict)
    default: str | None = None

    def owner_of(self, cause: str) -> str:
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
    return Owners(by_cause=dict(spec.owners), default=spec.default)
