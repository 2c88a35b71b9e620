"""Gold cases: the file format (``*Spec`` structs) and the resolved records scoring uses.

A case file is YAML, JSON or JSONL (one case per line; a line holding ``defaults`` or
``format`` is the header). ``accepted:`` is shorthand for one required group. Defaults
(repository, revision, cutoff, forbidden, query_class, tags) apply to every case;
``forbidden`` lists are added together, the others are overridden per case.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from codegold.errors import SchemaError
from codegold.model.io import Loaded, load_versioned
from codegold.plumbing import numbers
from codegold.plumbing.secrets import redact_data, redact_once

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
Role = Literal["definition", "declaration", "call_site", "reference", "test", "config", "docs",
               "generated", "vendored", "migration"]
QUERY_CLASSES: tuple[str, ...] = ("exact_identifier", "descriptive", "stack_trace", "example_request")
CASES_FORMAT = 1
MAX_CUTOFF = 1000
"""Largest cutoff k a case may set: far beyond any answer stage's context, and small
enough that every per-rank structure (reports, charts) stays bounded."""

# Rules carried by the types, so `codegold schema cases` states exactly what loads.
Revision = Annotated[str, Meta(pattern="^[0-9a-f]{40}$",
                               description="full 40-character lowercase hex commit sha")]
Cutoff = Annotated[int, Meta(ge=1, le=MAX_CUTOFF,
                             description="the production cutoff k: ranks the answer stage sees")]
Text = Annotated[str, Meta(pattern=r"\S", description="non-blank text")]
TagValue = str | int | Annotated[float, Meta(ge=-1.7976931348623157e308,
                                             le=1.7976931348623157e308)] | bool
BUDGET_UNITS: tuple[str, ...] = ("lines", "tokens", "steps")
BudgetUnit = Literal["lines", "tokens", "steps"]
MAX_BUDGET = 100_000_000
"""Largest budget a case may set, in any unit (far beyond any model's context window)."""
BudgetSpec = Annotated[
    dict[BudgetUnit, Annotated[int, Meta(ge=1, le=MAX_BUDGET)]],
    Meta(min_length=1, max_length=1,
         description="the production budget instead of a chunk cutoff: exactly one of "
                     "{lines: N}, {tokens: N}, {steps: N}; a case sets cutoff or budget, not both")]
LineNumber = Annotated[int, Meta(ge=1, le=100_000_000)]
LineSpan = Annotated[list[LineNumber], Meta(
    min_length=2, max_length=2,
    description="[first, last] line of the gold evidence in the target's file (1-based, "
                "inclusive, first <= last; the file must be an exact path)")]


# --- file format --------------------------------------------------------------------------


class TargetSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One acceptable piece of evidence: a file path or glob, optionally a symbol and roles."""

    file: Text
    symbol: str | None = None
    roles: list[Role] | None = None
    lines: LineSpan | None = None


class GroupSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """An evidence group: satisfied when any of its targets is visible (OR inside)."""

    id: str
    any_of: Annotated[list[TargetSpec], Meta(min_length=1)] | None = None
    required: bool | None = None
    edit: Annotated[bool, Meta(description=(
        "a fix must change this group's code (evidence drop concerns only such groups); "
        "`cases import swebench` marks the groups of the gold patch"))] = False


class ContextSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Reliable user state at query time (never guessed from the query text)."""

    open_file: str | None = None
    language: str | None = None
    path_prefix: str | None = None


ChangedAt = Annotated[str, Meta(
    pattern=r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$",
    description="when the labels were replaced: an ISO 8601 date or UTC time")]
MAX_SUPERSEDES = 100


class PriorLabelSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """An earlier version of a case's labels, kept in ``supersedes`` when they changed."""

    revision: Revision
    changed_at: ChangedAt
    groups: Annotated[list[GroupSpec], Meta(min_length=1)] | None = None
    accepted: Annotated[list[TargetSpec], Meta(min_length=1)] | None = None
    rationale: str | None = None


class CaseSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    id: Text
    query: Text
    repository: str | None = None
    revision: Revision | None = None
    cutoff: Cutoff | None = None
    budget: BudgetSpec | None = None
    query_class: str | None = None
    context: ContextSpec | None = None
    groups: Annotated[list[GroupSpec], Meta(min_length=1)] | None = None
    accepted: Annotated[list[TargetSpec], Meta(min_length=1)] | None = None
    forbidden: list[Text] | None = None
    tags: dict[str, TagValue] | None = None
    rationale: str | None = None
    supersedes: Annotated[list[PriorLabelSpec], Meta(max_length=MAX_SUPERSEDES)] | None = None


class DefaultsSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    repository: str | None = None
    revision: Revision | None = None
    cutoff: Cutoff | None = None
    budget: BudgetSpec | None = None
    query_class: str | None = None
    forbidden: list[Text] | None = None
    tags: dict[str, TagValue] | None = None


class CaseFileSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Top level of ``cases.yaml`` / ``cases.json``."""

    format: Literal[1]
    cases: Annotated[list[CaseSpec], Meta(min_length=1)]
    defaults: DefaultsSpec | None = None


# --- resolved records ---------------------------------------------------------------------


class Target(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One accepted piece of evidence. ``lines`` is its gold line span (first, last), given
    on the label or read from the index's definition span (``lines_from: index``); the
    line-level figures compare what was seen with it."""

    file: str
    symbol: str | None = None
    roles: tuple[str, ...] = ()
    lines: tuple[int, int] | None = None
    lines_from: str | None = None  # "label" is implied; "index" when read from the index


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    """A production budget: ``limit`` lines, tokens or steps of context (``unit``)."""

    unit: str
    limit: int

    def __str__(self) -> str:
        return f"{self.unit}={self.limit}"


class EvidenceGroup(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """``edit``: a fix must change this group (left out of results.json when false)."""

    id: str
    required: bool
    any_of: tuple[Target, ...]
    edit: bool = False


class Context(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    open_file: str | None = None
    language: str | None = None
    path_prefix: str | None = None


class PriorLabel(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A label version a case superseded: what was accepted, at which revision, why, when."""

    revision: str
    changed_at: str
    groups: tuple[EvidenceGroup, ...]
    rationale: str | None = None


class Case(msgspec.Struct, frozen=True, kw_only=True):
    """A validated gold case with defaults applied.

    A case judged at a budget (``budget`` set) has ``cutoff`` 0: how many chunks fit the
    budget depends on each attempt (see :mod:`codegold.model.budget`). ``budget`` is
    left out of results.json when unset, so cases judged at a cutoff keep their bytes.
    """

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
    supersedes: tuple[PriorLabel, ...] = ()  # earlier label versions, as written
    budget: Budget | msgspec.UnsetType = msgspec.UNSET

    @property
    def budget_or_none(self) -> Budget | None:
        return None if isinstance(self.budget, msgspec.UnsetType) else self.budget

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


def _from_lines(items: list[dict[str, Any]]) -> dict[str, Any]:
    """JSONL: header line(s) holding ``format``/``defaults``, then one case per line."""
    header: dict[str, Any] = {}
    cases: list[Any] = []
    for item in items:
        if ("defaults" in item or "format" in item) and "id" not in item:
            header.update(item)
        else:
            cases.append(item)
    header.setdefault("format", CASES_FORMAT)
    header["cases"] = cases
    return header


def load_cases(path: str) -> CaseSet:
    """Load and validate a case file; raise :class:`SchemaError` naming file, line, case, field.

    The types of :class:`CaseFileSpec` carry every rule about one value (revision shape,
    cutoff range, roles, non-blank text); the rules across values (unique ids, defaults
    applied, groups or accepted) are checked here, located the same way.

    This is where a case's text enters: its free text (query, rationale, tags, query
    class, repository) has every secret value replaced by ``<SECRET:kind>`` here, once,
    so the query sent to a retriever and every output built from the case (results,
    warnings, comparisons) hold none. Ids, paths, globs and symbols are matched, not read
    as prose, and stay as written.
    """
    loaded = load_versioned(path, CaseFileSpec, what="cases", from_lines=_from_lines,
                            hint="see `codegold schema cases`")
    spec = loaded.value
    defaults = spec.defaults or DefaultsSpec()
    raw_cases = loaded.data["cases"]
    seen: dict[str, int | None] = {}
    cases = []
    for index, case_spec in enumerate(spec.cases):
        line = loaded.doc.line_of(raw_cases[index])
        if case_spec.id in seen:
            first = seen[case_spec.id]
            raise SchemaError(
                "duplicate case id" + (f" (first defined at line {first})" if first else ""),
                path=path, line=line, case_id=case_spec.id, field="id",
            )
        seen[case_spec.id] = line
        cases.append(_resolve(case_spec, defaults, loaded, index, line))
    return CaseSet(path=path, sha256=loaded.doc.sha256, cases=tuple(cases))


def _prose(text: str | None) -> str | None:
    return None if text is None else redact_once(text)


def _resolve(spec: CaseSpec, defaults: DefaultsSpec, loaded: Loaded[CaseFileSpec],
             index: int, line: int | None) -> Case:
    at = f"$.cases[{index}]"

    def fail(message: str, field: str, where: str = "") -> SchemaError:
        return loaded.error(message, at=at + where, case_id=spec.id, field=field)

    revision = spec.revision or defaults.revision
    if revision is None:
        raise fail("no revision: set it on the case or in defaults (a 40-hex commit sha)", "revision")
    cutoff, budget = _cutoff_or_budget(spec, defaults, loaded, fail)
    groups = _groups(spec.groups, spec.accepted, fail, "")
    supersedes = []
    for number, prior in enumerate(spec.supersedes or ()):
        where = f".supersedes[{number}]"
        try:
            datetime.fromisoformat(prior.changed_at.replace(" ", "T"))
        except ValueError:
            raise fail(f"changed_at {prior.changed_at!r} is not a real date or time",
                       "changed_at", where + ".changed_at") from None
        supersedes.append(PriorLabel(
            revision=prior.revision, changed_at=prior.changed_at,
            groups=_groups(prior.groups, prior.accepted, fail, where),
            rationale=_prose(prior.rationale)))
    forbidden = tuple(dict.fromkeys([*(defaults.forbidden or ()), *(spec.forbidden or ())])) \
        if defaults.forbidden or spec.forbidden else ()
    tags: dict[str, str] = {}
    if defaults.tags or spec.tags:
        tags = {k: _tag_text(v) for k, v in (defaults.tags or {}).items()}
        tags.update({k: _tag_text(v) for k, v in (spec.tags or {}).items()})
        tags = dict(sorted(redact_data(tags).items()))
    ctx = spec.context
    context = (Context(open_file=ctx.open_file, language=ctx.language, path_prefix=ctx.path_prefix)
               if ctx is not None else None)
    return Case(
        id=spec.id,
        query=redact_once(spec.query),
        repository=_prose(spec.repository or defaults.repository),
        revision=revision,
        cutoff=cutoff,
        query_class=redact_once(spec.query_class or defaults.query_class or "unlabelled"),
        groups=tuple(groups),
        forbidden=forbidden,
        context=context,
        tags=tags,
        rationale=_prose(spec.rationale),
        line=line,
        supersedes=tuple(supersedes),
        budget=budget if budget is not None else msgspec.UNSET,
    )


def _cutoff_or_budget(spec: CaseSpec, defaults: DefaultsSpec, loaded: Loaded[CaseFileSpec],
                      fail: Callable[..., SchemaError]) -> tuple[int, Budget | None]:
    """A case is judged at a chunk cutoff or at a budget, never both: the case's own
    setting (either kind) replaces the defaults' one."""
    if spec.cutoff is not None and spec.budget is not None:
        raise fail("use either 'cutoff' (chunks) or 'budget' (lines, tokens or steps), not both",
                   "budget")
    if defaults.cutoff is not None and defaults.budget is not None:
        raise loaded.error("defaults set both 'cutoff' and 'budget'; keep one (a case may "
                           "override it with the other kind)", at="$.defaults", field="budget")
    if spec.cutoff is not None:
        return spec.cutoff, None
    chosen = spec.budget if spec.budget is not None else defaults.budget
    if chosen is not None:
        ((unit, limit),) = chosen.items()
        return 0, Budget(unit=unit, limit=limit)
    if defaults.cutoff is None:
        raise fail("no cutoff: set the production cutoff k (or a budget: {lines|tokens|steps: "
                   "N}) on the case or in defaults", "cutoff")
    return defaults.cutoff, None


def parse_budget(text: str) -> Budget:
    """``lines=400`` (also ``tokens=8000``, ``steps=12``) as a :class:`Budget`."""
    from codegold.errors import InputError

    unit, sep, count = text.partition("=")
    unit, count = unit.strip(), count.strip()
    if not sep or unit not in BUDGET_UNITS or not (count.isascii() and count.isdigit()):
        raise InputError(f"budget {text!r} is not UNIT=N; UNIT one of: {', '.join(BUDGET_UNITS)}, "
                         "N a whole number, e.g. lines=400")
    limit = numbers.number(count.lstrip("0") or "0", digits=len(str(MAX_BUDGET)))
    if limit is None or not 1 <= limit <= MAX_BUDGET:
        raise InputError(f"budget {text!r}: N must be between 1 and {MAX_BUDGET}")
    return Budget(unit=unit, limit=limit)


def with_budget(case_set: CaseSet, budget: Budget) -> CaseSet:
    """Every case judged at ``budget`` instead of its own cutoff or budget
    (``codegold eval --budget``)."""
    cases = tuple(msgspec.structs.replace(c, cutoff=0, budget=budget) for c in case_set.cases)
    return msgspec.structs.replace(case_set, cases=cases)


def _groups(groups_spec: list[GroupSpec] | None, accepted: list[TargetSpec] | None,
            fail: Callable[[str, str, str], SchemaError], at: str) -> tuple[EvidenceGroup, ...]:
    """Evidence groups from ``groups`` or the ``accepted`` shorthand (exactly one given),
    located under ``at`` (the case itself, or one of its ``supersedes`` entries)."""
    if groups_spec is not None and accepted is not None:
        raise fail("use either 'groups' or the 'accepted' shorthand, not both", "groups", at)
    group_specs: list[GroupSpec]
    if accepted is not None:
        group_specs = [GroupSpec(id="accepted", any_of=accepted, required=True)]
    elif groups_spec is not None:
        group_specs = groups_spec
    else:
        raise fail("no evidence: give 'groups' or 'accepted'", "groups", at)
    groups = []
    group_ids: set[str] = set()
    for number, group in enumerate(group_specs):
        where = at + (f".groups[{number}]" if groups_spec is not None else ".accepted")
        if group.id in group_ids:
            raise fail(f"duplicate group id {group.id!r}", "groups", where)
        group_ids.add(group.id)
        if not group.any_of:
            if group.required is None:
                raise fail(f"group {group.id!r} has no 'required' flag and no targets", "groups",
                           where)
            raise fail(f"group {group.id!r} is empty: 'any_of' needs at least one target",
                       "any_of", where)
        targets = []
        for number_t, target in enumerate(group.any_of):
            span: tuple[int, int] | None = None
            if target.lines is not None:
                first, last = target.lines
                if first > last:
                    raise fail(f"lines [{first}, {last}]: the first line comes after the last",
                               "lines", f"{where}.any_of[{number_t}].lines")
                if any(ch in target.file for ch in "*?["):
                    raise fail(f"lines on {target.file!r}: gold lines need an exact file path, "
                               "not a glob", "lines", f"{where}.any_of[{number_t}].lines")
                span = (first, last)
            targets.append(Target(file=target.file, symbol=target.symbol,
                                  roles=tuple(target.roles or ()), lines=span))
        groups.append(EvidenceGroup(id=group.id, required=group.required is not False,
                                    any_of=tuple(targets), edit=group.edit))
    if not any(g.required for g in groups):
        raise fail("every group is supporting (required: false); at least one must be required",
                   "groups", at)
    return tuple(groups)
