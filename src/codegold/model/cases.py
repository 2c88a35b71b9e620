"""Gold cases: the file format (``*Spec`` structs) and the resolved records scoring uses.

A case file is YAML, JSON or JSONL (one case per line; a line holding ``defaults`` or
``format`` is the header). ``accepted:`` is shorthand for one required group. Defaults
(repository, revision, cutoff, forbidden, query_class, tags) apply to every case;
``forbidden`` lists are added together, the others are overridden per case.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from codegold.errors import SchemaError
from codegold.model._files import load_structured, located_error

ROLES: tuple[str, ...] = (
    "definition",
    "declaration",
    "call_site",
    "reference",
    "test",
    "config",
    "docs",
    "generated",
    "vendored",
    "migration",
)
QUERY_CLASSES: tuple[str, ...] = ("exact_identifier", "descriptive", "stack_trace", "example_request")
CASES_FORMAT = 1
_SHA = re.compile(r"^[0-9a-f]{40}$")


# --- file format --------------------------------------------------------------------------


class TargetSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One acceptable piece of evidence: a file path or glob, optionally a symbol and roles."""

    file: str
    symbol: str | None = None
    roles: list[str] | None = None


class GroupSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """An evidence group: satisfied when any of its targets is visible (OR inside)."""

    id: str
    any_of: list[TargetSpec] | None = None
    required: bool | None = None


class ContextSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Reliable user state at query time (never guessed from the query text)."""

    open_file: str | None = None
    language: str | None = None
    path_prefix: str | None = None


class CaseSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    id: str
    query: str
    repository: str | None = None
    revision: str | None = None
    cutoff: int | None = None
    query_class: str | None = None
    context: ContextSpec | None = None
    groups: list[GroupSpec] | None = None
    accepted: list[TargetSpec] | None = None
    forbidden: list[str] | None = None
    tags: dict[str, str | int | float | bool] | None = None
    rationale: str | None = None


class DefaultsSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    repository: str | None = None
    revision: str | None = None
    cutoff: int | None = None
    query_class: str | None = None
    forbidden: list[str] | None = None
    tags: dict[str, str | int | float | bool] | None = None


class CaseFileSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Top level of ``cases.yaml`` / ``cases.json``."""

    format: int
    cases: list[CaseSpec]
    defaults: DefaultsSpec | None = None


# --- resolved records ---------------------------------------------------------------------


class Target(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    file: str
    symbol: str | None = None
    roles: tuple[str, ...] = ()


class EvidenceGroup(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    required: bool
    any_of: tuple[Target, ...]


class Context(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    open_file: str | None = None
    language: str | None = None
    path_prefix: str | None = None


class Case(msgspec.Struct, frozen=True, kw_only=True):
    """A validated gold case with defaults applied."""

    id: str
    query: str
    repository: str | None
    revision: str
    cutoff: int
    query_class: str
    groups: tuple[EvidenceGroup, ...]
    forbidden: tuple[str, ...] = ()
    context: Context | None = None
    tags: dict[str, str] = msgspec.field(default_factory=dict)
    rationale: str | None = None
    line: int | None = None

    @property
    def required_groups(self) -> tuple[EvidenceGroup, ...]:
        return tuple(g for g in self.groups if g.required)


class CaseSet(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    sha256: str
    cases: tuple[Case, ...]


# --- loading ------------------------------------------------------------------------------


def _tag_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def load_cases(path: str) -> CaseSet:
    """Load and validate a case file; raise :class:`SchemaError` naming file, line, case, field."""
    doc = load_structured(path, "cases")
    data = doc.data
    if isinstance(data, list):  # JSONL: header line(s) + one case per line
        header: dict[str, Any] = {"format": CASES_FORMAT}
        case_items: list[Any] = []
        for item in data:
            if isinstance(item, dict) and ("defaults" in item or "format" in item) and "id" not in item:
                header.update(item)
            else:
                case_items.append(item)
        header["cases"] = case_items
        data = header
    if not isinstance(data, dict):
        raise SchemaError(
            "expected a mapping with 'format' and 'cases' at the top level, "
            f"found {type(data).__name__}",
            path=path,
        )
    if "format" not in data:
        raise SchemaError("missing 'format: 1' at the top level", path=path, line=doc.line_of(data))
    try:
        spec = msgspec.convert(data, CaseFileSpec)
    except msgspec.ValidationError as err:
        raise located_error(doc, data, str(err), hint="see `codegold schema cases`") from None
    if spec.format != CASES_FORMAT:
        raise SchemaError(
            f"unsupported format {spec.format}; this codegold reads format {CASES_FORMAT}",
            path=path, line=doc.line_of(data), field="format",
        )
    raw_cases = data["cases"]
    defaults = spec.defaults or DefaultsSpec()
    seen: dict[str, int | None] = {}
    cases = []
    for index, case_spec in enumerate(spec.cases):
        line = doc.line_of(raw_cases[index])
        if case_spec.id in seen:
            first = seen[case_spec.id]
            raise SchemaError(
                "duplicate case id" + (f" (first defined at line {first})" if first else ""),
                path=path, line=line, case_id=case_spec.id, field="id",
            )
        seen[case_spec.id] = line
        cases.append(_resolve(case_spec, defaults, path, line))
    if not cases:
        raise SchemaError("the case file holds no cases", path=path, field="cases")
    return CaseSet(path=path, sha256=doc.sha256, cases=tuple(cases))


def _resolve(spec: CaseSpec, defaults: DefaultsSpec, path: str, line: int | None) -> Case:
    def fail(message: str, field: str) -> SchemaError:
        return SchemaError(message, path=path, line=line, case_id=spec.id, field=field)

    if not spec.id.strip():
        raise fail("case id is empty", "id")
    if not spec.query.strip():
        raise fail("query is empty", "query")
    revision = spec.revision or defaults.revision
    if revision is None:
        raise fail("no revision: set it on the case or in defaults (a 40-hex commit sha)", "revision")
    if not _SHA.match(revision):
        raise fail(f"revision must be a full 40-character lowercase hex sha, found {revision!r}",
                   "revision")
    cutoff = spec.cutoff if spec.cutoff is not None else defaults.cutoff
    if cutoff is None:
        raise fail("no cutoff: set the production cutoff k on the case or in defaults", "cutoff")
    if cutoff < 1:
        raise fail(f"cutoff must be at least 1, found {cutoff}", "cutoff")
    if spec.groups and spec.accepted:
        raise fail("use either 'groups' or the 'accepted' shorthand, not both", "groups")
    group_specs: list[GroupSpec]
    if spec.accepted is not None:
        group_specs = [GroupSpec(id="accepted", any_of=spec.accepted, required=True)]
    elif spec.groups is not None:
        group_specs = spec.groups
    else:
        raise fail("no evidence: give 'groups' or 'accepted'", "groups")
    if not group_specs:
        raise fail("no evidence groups: 'groups' (or 'accepted') is empty; "
                   "give at least one required group", "groups")
    groups = []
    group_ids: set[str] = set()
    for group in group_specs:
        if group.id in group_ids:
            raise fail(f"duplicate group id {group.id!r}", "groups")
        group_ids.add(group.id)
        if not group.any_of:
            if group.required is None:
                raise fail(f"group {group.id!r} has no 'required' flag and no targets", "groups")
            raise fail(f"group {group.id!r} is empty: 'any_of' needs at least one target", "any_of")
        targets = []
        for target in group.any_of:
            if not target.file.strip():
                raise fail(f"group {group.id!r}: a target has an empty 'file'", "file")
            roles = tuple(target.roles or ())
            for role in roles:
                if role not in ROLES:
                    raise fail(f"unknown role {role!r}; expected one of {', '.join(ROLES)}", "roles")
            targets.append(Target(file=target.file, symbol=target.symbol, roles=roles))
        groups.append(EvidenceGroup(id=group.id, required=group.required is not False,
                                    any_of=tuple(targets)))
    if not any(g.required for g in groups):
        raise fail("every group is supporting (required: false); at least one must be required",
                   "groups")
    forbidden = tuple(dict.fromkeys([*(defaults.forbidden or ()), *(spec.forbidden or ())]))
    for pattern in forbidden:
        if not pattern.strip():
            raise fail("an empty forbidden pattern would forbid every file", "forbidden")
    tags = {k: _tag_text(v) for k, v in (defaults.tags or {}).items()}
    tags.update({k: _tag_text(v) for k, v in (spec.tags or {}).items()})
    ctx = spec.context
    context = (Context(open_file=ctx.open_file, language=ctx.language, path_prefix=ctx.path_prefix)
               if ctx is not None else None)
    return Case(
        id=spec.id,
        query=spec.query,
        repository=spec.repository or defaults.repository,
        revision=revision,
        cutoff=cutoff,
        query_class=spec.query_class or defaults.query_class or "unlabelled",
        groups=tuple(groups),
        forbidden=forbidden,
        context=context,
        tags=dict(sorted(tags.items())),
        rationale=spec.rationale,
        line=line,
    )
