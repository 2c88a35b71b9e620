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

import msgspec

from codegold.diagnose.causes import CAUSE_BY_NAME
from codegold.errors import SchemaError
from codegold.model._files import load_structured


class OwnersFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    format: int
    owners: dict[str, str] = msgspec.field(default_factory=dict)
    default: str | None = None


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
    doc = load_structured(path, "owners")
    try:
        spec = msgspec.convert(doc.data, OwnersFile)
    except msgspec.ValidationError as err:
        raise SchemaError(f"not an owners file: {err}; expected 'format: 1', 'owners: "
                          "{cause: team}' and optional 'default: team'", path=path) from None
    if spec.format != 1:
        raise SchemaError(f"unsupported owners format {spec.format}; expected 1", path=path)
    unknown = sorted(set(spec.owners) - set(CAUSE_BY_NAME))
    if unknown:
        raise SchemaError(f"unknown cause(s) {', '.join(unknown)}; expected some of "
                          f"{', '.join(CAUSE_BY_NAME)}", path=path, field="owners")
    return Owners(by_cause=dict(spec.owners), default=spec.default)
