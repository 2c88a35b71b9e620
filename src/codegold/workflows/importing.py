"""The import workflow: other tools' records brought in as codegold files (agent
trajectories as attempts). The caller has guarded every output against overwriting an
input."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from codegold.errors import InputError
from codegold.model import encode_attempt, load_cases
from codegold.plumbing.fieldpaths import parse_field_map
from codegold.plumbing.outputs import write_bytes_atomic, write_text_atomic
from codegold.trajectories import ImportReport
from codegold.trajectories import import_trajectories as read_trajectories
from codegold.trajectories.formats.mapped import FIELDS


@dataclass(frozen=True)
class TrajectoriesRequest:
    sources: tuple[str, ...]  # trajectory files or folders of them
    format: str  # the agent that wrote them (codegold.trajectories.FORMATS)
    cases: str  # the gold cases they worked on
    output: str  # attempts.jsonl to write
    case_id: str | None = None  # the case of a single trajectory that records none
    mappings: tuple[str, ...] = ()  # FIELD=PATH
    roots: tuple[str, ...] = ()  # where the agent saw the repository
    index: str | None = None  # attach each case's index manifest
    resolve: bool = False  # also resolve every span against that index
    skip_unknown: bool = False  # leave out trajectories of cases not in ``cases``
    report: str | None = None  # write the import report here (JSON)
    replace: bool = False  # an output that already holds attempts may be replaced


def import_trajectories(request: TrajectoriesRequest) -> ImportReport:
    """Write one attempt per trajectory to ``request.output`` (and the report, when asked);
    return what was imported and passed over, per trajectory.

    An output that already holds attempts is refused unless ``replace`` (as ``run``
    refuses one unless it resumes), and an import of nothing writes nothing: both are an
    InputError.
    """
    if not request.replace:
        _refuse_filled(request.output)
    mapping = parse_field_map(request.mappings, FIELDS, example="tool=name")
    result = read_trajectories(
        request.sources, format_name=request.format, cases=load_cases(request.cases),
        case_id=request.case_id, mapping=mapping, roots=request.roots, index=request.index,
        resolve=request.resolve, unknown_cases="skip" if request.skip_unknown else "error")
    if not result.attempts:
        raise InputError(f"no trajectory was imported, nothing written: {_why_none(result.report)}")
    write_bytes_atomic(request.output, (encode_attempt(a) + b"\n" for a in result.attempts))
    if request.report is not None:
        write_text_atomic(request.report, report_json(result.report) + "\n")
    return result.report


def _refuse_filled(output: str) -> None:
    path = Path(output)
    try:
        filled = path.is_file() and path.stat().st_size > 0
    except OSError:
        filled = False  # the write says why, with the path
    if filled:
        raise InputError("output already holds attempts; pass {replace} to replace them or "
                         "choose another file", path=output, settings=("replace",))


def _why_none(report: ImportReport) -> str:
    skipped = [item for item in report.trajectories if item.status == "skipped"]
    if not skipped:
        return "no trajectory was found"
    shown = "; ".join(f"{item.label} ({item.reason})" for item in skipped[:3])
    more = f"; and {len(skipped) - 3} more" if len(skipped) > 3 else ""
    return f"{len(skipped)} skipped: {shown}{more}"


def report_json(report: ImportReport) -> str:
    """The import report as indented JSON (the --report file and --json print it)."""
    return msgspec.json.format(msgspec.json.encode(report), indent=2).decode()
