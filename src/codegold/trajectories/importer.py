"""``import_trajectories``: agent trajectories as attempts, one per trajectory.

Each trajectory is matched to its case (``case_id`` for a single trajectory, else the
``case`` field path of ``mapping``, else the id the format records: SWE-agent and
mini-swe-agent instance ids, an OpenHands record's ``instance_id``, an OpenTelemetry
``case_id`` attribute, else the file name). Its tool calls become the attempt's
``ranked`` context (:class:`codegold.trajectories.ledger.Ledger`) and ``edits``; its
final patch or answer is ``final``. With an index, the attempt carries the manifest of
the case's revision (so ``eval`` can vouch for it) and, with ``resolve``, every span is
resolved against it, exactly as for an external retriever's line windows.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import msgspec

from codegold.errors import InputError, SchemaError
from codegold.model import Attempt, Case, CaseSet, PassedOver, Query
from codegold.model.io import read_bytes
from codegold.plumbing.fieldpaths import dig
from codegold.plumbing.secrets import redact_struct
from codegold.trajectories.formats import FORMATS, Reader, looks_like
from codegold.trajectories.formats._common import read_document
from codegold.trajectories.formats.mapped import FIELDS as MAPPED_FIELDS
from codegold.trajectories.ledger import Ledger
from codegold.trajectories.paths import PathPlacer
from codegold.trajectories.records import Trajectory
from codegold.trajectories.tools import Context, interpret_call

MAX_TRAJECTORY_BYTES = 64 * 1024**2
"""Largest trajectory file read."""
MAX_FILES = 10_000
"""Most trajectory files one import reads (a directory walk stops there)."""
MAX_STEPS_LISTED = 100
"""Most steps a report lists for one reason calls were passed over."""
TOKENIZER = "chars/4"
UnknownCases = Literal["error", "skip"]


class TrajectoryReport(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What one trajectory gave: its case, how much context, what was passed over."""

    source: str
    label: str
    status: Literal["imported", "skipped"]
    case_id: str | None = None
    attempt_id: str | None = None
    reason: str | None = None
    steps: int = 0
    calls: int = 0
    reads: int = 0
    search_hits: int = 0
    outside_repo: int = 0
    lines: int = 0
    tokens: int = 0
    edits: int = 0
    dropped_chunks: int = 0
    skipped_calls: dict[str, int] = msgspec.field(default_factory=dict)
    # per reason in ``skipped_calls``, the steps of the calls passed over (distinct, in
    # order, the first MAX_STEPS_LISTED)
    skipped_steps: dict[str, list[int]] = msgspec.field(default_factory=dict)
    notes: list[str] = msgspec.field(default_factory=list)


class ImportReport(msgspec.Struct, frozen=True, kw_only=True):
    """What ``codegold import trajectories`` did (``--report`` writes it as JSON)."""

    trajectory_format: str
    imported: int
    skipped: int
    trajectories: list[TrajectoryReport]
    index: str | None = None
    resolved: bool = False
    tokenizer: str = TOKENIZER
    format: Literal[1] = 1


@dataclass(frozen=True)
class ImportResult:
    attempts: list[Attempt]
    report: ImportReport


MAX_FOLDER_DEPTH = 64
"""Deepest folder under a source folder that a walk goes into; a deeper one is an error."""


def _walk(folder: Path, suffixes: tuple[str, ...], room: int) -> list[Path]:
    """Files under ``folder`` whose names end in ``suffixes``, walked without recursion
    (links neither followed nor picked), at most ``room`` + 1 of them."""
    found: list[Path] = []
    pending: list[tuple[str, int]] = [(str(folder), 0)]
    while pending:
        where, depth = pending.pop()
        try:
            with os.scandir(where) as entries:
                listed = list(entries)
        except OSError as err:
            raise InputError(f"cannot read the folder: {err.strerror or err}",
                             path=where) from None
        for entry in listed:
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                if depth + 1 > MAX_FOLDER_DEPTH:
                    raise InputError(f"folders nested deeper than {MAX_FOLDER_DEPTH} levels; "
                                     "name a folder nearer the trajectories", path=str(folder))
                pending.append((entry.path, depth + 1))
            elif entry.is_file(follow_symlinks=False) and entry.name.endswith(suffixes):
                found.append(Path(entry.path))
                if len(found) > room:
                    return found
    return sorted(found)


def trajectory_files(sources: Iterable[str | Path], format_name: str) -> list[Path]:
    """The files named, and those under the folders named whose names end as the format's
    files do (sorted; links are not followed into; folders at most
    :data:`MAX_FOLDER_DEPTH` deep)."""
    suffixes = FORMATS[format_name].suffixes
    files: list[Path] = []
    for source in sources:
        path = Path(source)
        if path.is_dir() and not path.is_symlink():
            found = _walk(path, suffixes, MAX_FILES - len(files))
            if not found:
                raise InputError(f"no trajectory files here (names ending "
                                 f"{' or '.join(suffixes)})", path=str(path))
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            raise InputError("trajectory file not found", path=str(path))
        if len(files) > MAX_FILES:
            raise InputError(f"more than {MAX_FILES} trajectory files; import them in parts")
    return files


def _check_mapping(format_name: str, mapping: Mapping[str, str]) -> None:
    allowed = MAPPED_FIELDS if format_name == "mapped" else ("case",)
    unknown = [name for name in mapping if name not in allowed]
    if unknown:
        raise InputError(f"{{map}} {unknown[0]!r} does not apply to {{format}} {format_name}; "
                         f"it takes {', '.join(allowed)}", settings=("map", "format"))


def _case_of(trajectory: Trajectory, case_id: str | None, mapping: Mapping[str, str],
             format_name: str) -> str | None:
    if case_id is not None:
        return case_id
    if "case" in mapping and format_name != "mapped":
        value = dig(trajectory.record, mapping["case"])
        return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) \
            else None
    return trajectory.instance_id or trajectory.label


def _attempt(trajectory: Trajectory, case: Case, format_name: str, roots: Sequence[str],
             digest: str, files: frozenset[str] | None = None,
             ) -> tuple[Attempt, TrajectoryReport]:
    placer = PathPlacer([*roots, *trajectory.roots])
    ledger = Ledger(placer=placer, revision=case.revision, label=trajectory.label)
    context = Context(placer, files)
    skipped: Counter[str] = Counter()
    skipped_at: dict[str, list[int]] = {}
    noted: Counter[str] = Counter()
    for call in trajectory.calls:
        found = interpret_call(call, context)
        for change in found.changes:
            ledger.creating(change)
        for seen in found.seen:
            ledger.see(seen, call.step, call.tool)
        for change in found.changes:
            ledger.change(change, call.step, call.tool)
            context.forget(change.path, change.cwd)
        skipped.update(found.skipped)
        for why in found.skipped:
            steps = skipped_at.setdefault(why, [])
            if len(steps) < MAX_STEPS_LISTED and (not steps or steps[-1] != call.step):
                steps.append(call.step)
        noted.update(found.notes)
    ledger.settle(trajectory.final)
    attempt_id = f"traj:{trajectory.label}:{digest[:12]}"
    # The same steps the summary lists, kept on the attempt so that results, the report
    # and the bundles can name them.
    passed_over = sorted((PassedOver(step=step, reason=why)
                          for why, steps in skipped_at.items() for step in steps),
                         key=lambda p: (p.step, p.reason))
    attempt = Attempt(attempt_id=attempt_id, case_id=case.id, ranked=ledger.chunks,
                      query=Query(raw=case.query), retriever=f"agent:{format_name}",
                      edits=ledger.edits or None, final=trajectory.final,
                      passed_over=passed_over or None)
    chunks = ledger.chunks
    report = TrajectoryReport(
        source=trajectory.source, label=trajectory.label, status="imported", case_id=case.id,
        attempt_id=attempt_id,
        steps=1 + max((call.step for call in trajectory.calls), default=-1),
        calls=len(trajectory.calls), reads=sum(c.kind == "read" for c in chunks),
        search_hits=sum(c.kind == "search_hit" for c in chunks),
        outside_repo=sum(c.outside_repo for c in chunks),
        lines=sum(c.end_line - c.start_line + 1 for c in chunks
                  if c.start_line is not None and c.end_line is not None),
        tokens=sum(c.tokens or 0 for c in chunks), edits=len(ledger.edits),
        dropped_chunks=ledger.dropped, skipped_calls=dict(sorted(skipped.items())),
        skipped_steps=dict(sorted(skipped_at.items())),
        notes=[*trajectory.notes, *(f"{count} call(s): {note}" for note, count
                                    in sorted(noted.items()))])
    return attempt, report


def import_trajectories(sources: Sequence[str | Path], *, format_name: str, cases: CaseSet,
                        case_id: str | None = None, mapping: Mapping[str, str] | None = None,
                        roots: Sequence[str] = (), index: str | Path | None = None,
                        resolve: bool = False, unknown_cases: UnknownCases = "error",
                        ) -> ImportResult:
    """Attempts for the trajectories in ``sources`` (files or folders of them), scored
    later against ``cases``.

    A trajectory whose case ``cases`` does not hold is an InputError naming it (nothing
    is returned, so nothing half-written), or, with ``unknown_cases="skip"``, reported and
    left out. ``index`` (an index directory or a folder of them) gives each attempt the
    manifest of its case's revision; ``resolve`` also resolves every span against it.
    """
    if format_name not in FORMATS:
        raise InputError(f"unknown trajectory format {format_name!r}; expected one of "
                         f"{', '.join(FORMATS)}")
    mapping = dict(mapping or {})
    _check_mapping(format_name, mapping)
    if resolve and index is None:
        raise InputError("resolving spans needs the index of the cases' revision: give {index}",
                         settings=("index",))
    by_id = {case.id: case for case in cases.cases}
    if case_id is not None and case_id not in by_id:
        raise InputError(f"case {case_id!r} is not in {cases.path}")
    reader = FORMATS[format_name].read
    loaded: list[tuple[Trajectory, str]] = []
    empty: list[TrajectoryReport] = []
    for path in trajectory_files(sources, format_name):
        raw = read_bytes(path, "trajectory", limit=MAX_TRAJECTORY_BYTES)
        digest = hashlib.sha256(raw).hexdigest()
        notes: list[str] = []
        found = _read_one(reader, path, raw, notes, mapping, format_name)
        if not found:
            empty.append(TrajectoryReport(source=_shown(path), label=_shown(Path(path.name)),
                                          status="skipped",
                                          reason="; ".join(notes) or "no trajectory in the file"))
        for trajectory in found:
            if notes:
                trajectory = replace(trajectory, notes=(*notes, *trajectory.notes))
            loaded.append((trajectory, digest))
    if case_id is not None and len(loaded) != 1:
        raise InputError(f"{{case}} names the case of one trajectory; {len(loaded)} were given",
                         settings=("case",))
    matched: list[tuple[Trajectory, str, Case]] = []
    reports: list[TrajectoryReport] = list(empty)
    unknown: list[str] = []
    for trajectory, digest in loaded:
        wanted = _case_of(trajectory, case_id, mapping, format_name)
        case = by_id.get(wanted) if wanted is not None else None
        if case is None:
            reason = (f"case {wanted!r} is not in {cases.path}" if wanted is not None
                      else "the trajectory names no case")
            unknown.append(f"{trajectory.label} ({reason})")
            reports.append(TrajectoryReport(source=trajectory.source, label=trajectory.label,
                                            status="skipped", case_id=wanted, reason=reason))
            continue
        matched.append((trajectory, digest, case))
    if unknown and unknown_cases == "error":
        shown = "; ".join(unknown[:5]) + (f"; and {len(unknown) - 5} more" if len(unknown) > 5
                                          else "")
        raise InputError(f"{len(unknown)} trajectory(ies) match no case: {shown}. Name the "
                         "case with {case} ID (one trajectory) or {map} case=PATH, or pass "
                         "{skip_unknown} to leave them out",
                         settings=("case", "map", "skip_unknown"))
    attempts: list[Attempt] = []
    ids: set[str] = set()
    files_of = _RevisionFiles(index) if index is not None else None
    for trajectory, digest, case in matched:
        files = files_of.get(case.revision) if files_of is not None else None
        attempt, report = _attempt(trajectory, case, format_name, roots, digest, files)
        if attempt.attempt_id in ids:  # the same file under two folders
            serial = 2
            while f"{attempt.attempt_id}.{serial}" in ids:
                serial += 1
            attempt = msgspec.structs.replace(attempt, attempt_id=f"{attempt.attempt_id}.{serial}")
            report = msgspec.structs.replace(report, attempt_id=attempt.attempt_id)
        ids.add(attempt.attempt_id)
        attempts.append(attempt)
        reports.append(report)
    if index is not None:
        attempts = _with_index(attempts, by_id, index, resolve)
    attempts = [redact_struct(attempt) for attempt in attempts]
    reports.sort(key=lambda r: (r.source, r.label))
    # The report quotes the trajectories too (a call passed over is named by its program,
    # a label is a file name or instance id): redacted like the attempts.
    summary = redact_struct(ImportReport(
        trajectory_format=format_name, imported=len(attempts),
        skipped=len(reports) - len(attempts), trajectories=reports,
        index=str(index) if index is not None else None, resolved=resolve))
    return ImportResult(attempts=attempts, report=summary)


def _read_one(reader: Reader, path: Path, raw: bytes, notes: list[str],
              mapping: Mapping[str, str], format_name: str) -> list[Trajectory]:
    """``reader`` over one file; a file that is not of ``format_name`` (refused by its
    reader, or read as no call and no final) but looks like another format is refused
    naming that format."""
    shown = _shown(path)
    try:
        found = reader(shown, raw, notes, mapping)
    except SchemaError as err:
        if err.message.startswith("expected") and format_name != "mapped":
            other = _looks_like(raw, shown, format_name)
            if other is not None:
                raise SchemaError(f"{err.message}; it looks like the {other} format: "
                                  f"import it with {{format}} {other}", path=shown,
                                  settings=("format",)) from None
        raise
    if format_name != "mapped" and not any(t.calls or t.final for t in found):
        other = _looks_like(raw, shown, format_name)
        if other is not None:
            raise SchemaError(f"no {format_name} trajectory here: it looks like the {other} "
                              f"format; import it with {{format}} {other}", path=shown,
                              settings=("format",))
    return found


def _shown(path: Path) -> str:
    """``path`` as text an attempt can hold: a name that is not UTF-8 (its bytes kept as
    lone surrogates) spells them as ``\\xff``, as the label and chunk ids then do."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _looks_like(raw: bytes, path: str, format_name: str) -> str | None:
    try:
        data, _ = read_document(raw, path)
    except SchemaError:
        return None
    other = looks_like(data)
    return other if other != format_name else None


def _with_index(attempts: list[Attempt], by_id: Mapping[str, Case], index: str | Path,
                resolve: bool) -> list[Attempt]:
    """Each attempt with the manifest of its case's index (and its spans resolved)."""
    from codegold.index.catalog import IndexSet
    from codegold.index.store import read_manifest
    from codegold.resolve import AttemptResolver

    indexes = IndexSet.from_path(index)
    out: list[Attempt] = []
    with AttemptResolver(indexes) as resolver:
        for attempt in attempts:
            revision = by_id[attempt.case_id].revision
            index_dir = indexes.for_revision(revision)
            if index_dir is None:
                raise InputError(f"no index of revision {revision} (case {attempt.case_id!r}) "
                                 f"under {index}; indexes for: {indexes.describe()}")
            attempt = msgspec.structs.replace(attempt, manifest=read_manifest(index_dir))
            out.append(resolver.resolve(attempt, revision) if resolve else attempt)
    return out


class _RevisionFiles:
    """The paths of each revision's index, so that a search's file name is taken only
    when the revision has that file (None: no index of that revision). The lists of the
    last few revisions asked for are kept (trajectories come in any order)."""

    KEPT = 4

    def __init__(self, index: str | Path) -> None:
        from codegold.index.catalog import IndexSet

        self.indexes = IndexSet.from_path(index)
        self.kept: dict[str, frozenset[str] | None] = {}

    def get(self, revision: str) -> frozenset[str] | None:
        from codegold.index.store import IndexReader

        if revision not in self.kept:
            index_dir = self.indexes.for_revision(revision)
            found = None
            if index_dir is not None:
                with IndexReader.open(index_dir) as reader:
                    found = frozenset(entry.path for entry in reader.iter_inventory())
            while len(self.kept) >= self.KEPT:
                self.kept.pop(next(iter(self.kept)))
            self.kept[revision] = found
        return self.kept[revision]
