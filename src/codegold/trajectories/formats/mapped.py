"""Any other JSON shape, read through ``--map FIELD=PATH`` dotted field paths.

The document (a JSON object, a list, or JSON lines) holds a list of tool-call events at
``events`` (the document itself when it is a list). In each event, ``tool`` names the
tool, ``arguments`` its arguments (an object or a JSON string), ``output`` what it
returned, and ``command``, ``file``, ``start_line``, ``end_line``, ``step`` and ``cwd``,
when mapped, override what the arguments say. ``case`` (in the document, else in the
first event) is the case id and ``final`` the patch or answer. A call with a command is
a shell command; one with a file is a read (numbered output read by its numbers, else
lines from ``start_line``), or an edit when the tool's name says so; the rest are read
by the tool's name, as OpenTelemetry tool spans are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codegold.errors import InputError, SchemaError
from codegold.plumbing.fieldpaths import dig
from codegold.trajectories.formats._common import as_args, generic_call, read_document, stem
from codegold.trajectories.records import ToolCall, Trajectory

NAME = "mapped"
SUFFIXES = (".json", ".jsonl")
FIELDS = ("events", "case", "step", "tool", "arguments", "output", "command", "file",
          "start_line", "end_line", "cwd", "final")


def _pick(event: Any, mapping: Mapping[str, str], name: str) -> Any:
    return dig(event, mapping[name]) if name in mapping else None


def _call(position: int, event: Any, mapping: Mapping[str, str]) -> ToolCall:
    step = _pick(event, mapping, "step")
    step = step if isinstance(step, int) and not isinstance(step, bool) and step >= 0 \
        else position
    tool = _pick(event, mapping, "tool")
    tool = tool if isinstance(tool, str) and tool else "tool"
    args = dict(as_args(_pick(event, mapping, "arguments")))
    output = _pick(event, mapping, "output")
    text = output if isinstance(output, str) else None
    cwd = _pick(event, mapping, "cwd")
    cwd = cwd if isinstance(cwd, str) else None
    command = _pick(event, mapping, "command")
    if isinstance(command, str) and command.strip():
        return generic_call(step, "bash", {"command": command}, text, cwd)
    file = _pick(event, mapping, "file")
    if isinstance(file, str) and file.strip():
        args["path"] = file
        for field, key in (("start_line", "start_line"), ("end_line", "end_line")):
            value = _pick(event, mapping, field)
            if value is not None:
                args[key] = value
        lowered = tool.lower()
        if not any(word in lowered for word in ("edit", "write", "replace", "create",
                                                "insert", "patch")):
            tool_name = tool if tool != "tool" else "read"
            call = generic_call(step, "read", args, text, cwd)
            return ToolCall(step=call.step, tool=tool_name, handler=call.handler,
                            args=call.args, output=call.output, cwd=cwd,
                            clipped=call.clipped)
    return generic_call(step, tool, args, text, cwd)


def read_mapped(path: str, raw: bytes, notes: list[str],
                mapping: Mapping[str, str]) -> list[Trajectory]:
    if "tool" not in mapping and "command" not in mapping and "file" not in mapping:
        raise InputError("{format} mapped needs {map} for at least one of tool, command, "
                         "file (e.g. {map} events=steps {map} tool=name {map} "
                         "arguments=args {map} output=result)", settings=("format", "map"))
    data, found = read_document(raw, path)
    notes.extend(found)
    events = dig(data, mapping["events"]) if "events" in mapping else data
    if not isinstance(events, list):
        raise SchemaError(f"expected a list of events at {mapping.get('events', 'the top')!r}",
                          path=path)
    calls = [_call(position, event, mapping) for position, event in enumerate(events)
             if isinstance(event, dict)]
    case = dig(data, mapping["case"]) if "case" in mapping and isinstance(data, dict) else None
    if case is None and "case" in mapping and events:
        case = dig(events[0], mapping["case"])
    final = dig(data, mapping["final"]) if "final" in mapping else None
    name = stem(path, SUFFIXES)
    return [Trajectory(source=path, label=name,
                       instance_id=str(case) if isinstance(case, (str, int)) else None,
                       calls=tuple(calls), final=final if isinstance(final, str) else None,
                       record=data)]
