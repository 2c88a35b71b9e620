"""The import workflow: other tools' records brought in as codegold files (agent
trajectories as attempts). The caller has guarded every output against overwriting an
input."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

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


def import_trajectories(request: TrajectoriesRequest) -> ImportReport:
    """Write one attempt per trajectory to ``request.output`` (and the report, when asked);
    return what was imported and passed over, per trajectory."""
    mapping = parse_field_map(request.mappings, FIELDS, example="tool=name")
    result = read_trajectories(
        request.sources, format_name=request.format, cases=load_cases(request.cases),
        case_id=request.case_id, mapping=mapping, roots=request.roots, index=request.index,
        resolve=request.resolve, unknown_cases="skip" if request.skip_unknown else "error")
    write_bytes_atomic(request.output, (encode_attempt(a) + b"\n" for a in result.attempts))
    if request.report is not None:
        write_text_atomic(request.report, report_json(result.report) + "\n")
    return result.report


def report_json(report: ImportReport) -> str:
    """The import report as indented JSON (the --report file and --json print it)."""
    return msgspec.json.format(msgspec.json.encode(report), indent=2).decode()
