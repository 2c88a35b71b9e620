"""OpenHands event streams: ``action`` events (``read``, ``run``, ``edit``, ``write``,
``call_tool_mcp``, ``finish``) and the ``observation`` events they caused.

Accepted shapes: a JSON list of events (a saved trajectory), an object with ``history``
(an evaluation ``output.jsonl`` record, also one per line), and the older history of
``[action, observation]`` pairs. An observation is matched to its action by ``cause``
(else it follows it). A step is one model response: actions sharing
``tool_call_metadata.model_response.id`` share it. A ``read`` with the ACI editor prints
``cat -n`` numbered lines; the older reader prints lines ``start``+1.. (0-based start). The
working directory is the ``run`` observation's ``extras.metadata.working_dir``. The final
patch is ``test_result.git_patch`` (``git_patch``), else the ``finish`` action's text.
Older streams keep an event's fields on the event itself (no ``args``, no ids) and end a
shell output with the prompt (``root@host:/workspace #``, which names the directory);
``run_ipython`` cells calling one agentskills function (``open_file``, ``search_dir``,
``edit_file_by_replace``, ...) are read as that tool (windows ``12|text``). The OpenHands SDK's
events (``kind`` ``ActionEvent``/``ObservationEvent``, tools such as ``terminal`` and
``file_editor``) are read the same way, by tool name.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import replace
from typing import Any

from codegold.errors import SchemaError
from codegold.trajectories.formats._common import (
    as_args,
    clip,
    generic_call,
    mapping_at,
    read_document,
    stem,
    text_of,
)
from codegold.trajectories.records import ToolCall, Trajectory

NAME = "openhands"
SUFFIXES = (".json", ".jsonl")
# A prompt's user name starts where a word does: a match inside a word would have matched
# from its start too, and so no start inside a word is tried (linear in a line of words).
_TRAILER = re.compile(r"(?:\r?\n)*(?:\[(?:The command completed with exit code -?\d+\.|Command "
                      r"finished with exit code -?\d+|Python Interpreter: [^\]]*|Current working "
                      r"directory: [^\]]*)\]|(?<![\w.-])[\w.-]+@[\w.-]+:[^\n]*[#$]) ?\s*$", re.I)
_IGNORE = {"message", "system", "think", "recall", "agent_state_changed", "null", "browse",
           "browse_interactive", "delegate", "reject", "change_agent_state", "condensation",
           "mcp_list", "task_tracking"}


def _events(history: list[Any]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for item in history:
        if isinstance(item, list):
            events.extend(e for e in item if isinstance(e, dict))
        elif isinstance(item, dict):
            events.append(item)
    return events


_SHOWN_DIR = re.compile(r"[\w.-]+@[\w.-]+:(/[^\s#$]*) ?[#$] ?\s*$|\[(?:Jupyter current working "
                        r"directory|Current working directory): (/[^\]]*)\]")


_TAIL = 512  # the prompt or note ends the output: only its end is searched (linear time)


def _shown_dir(content: str) -> str | None:
    """The directory a shell prompt or a Jupyter note after the output names."""
    match = _SHOWN_DIR.search(content[-_TAIL:])
    return (match.group(1) or match.group(2)) if match else None


def _run_output(observation: dict[str, Any]) -> tuple[str, str | None, bool]:
    content = text_of(observation.get("content")) or ""
    extras = mapping_at(observation, "extras")
    metadata = mapping_at(extras, "metadata")
    where = metadata.get("working_dir") or _shown_dir(content)
    code = metadata.get("exit_code", extras.get("exit_code", observation.get("exit_code")))
    # Trailers are taken off the end one at a time by moving the end, never by rebuilding
    # the text (100,000 of them rebuilt it as many times: 36 s)
    end = len(content)
    while end:
        last = end  # the last line that is not blank: where a trailer most often is
        while last and content[last - 1] in " \t\r\n":
            last -= 1
        line = content.rfind("\n", max(0, last - _TAIL), last) + 1 or max(0, end - _TAIL)
        match = _TRAILER.search(content, line, end) or \
            _TRAILER.search(content, max(0, end - _TAIL), end)
        if match is None or match.start() >= end:
            break
        end = match.start()
    content = content[:end]
    return content, where if isinstance(where, str) else None, \
        isinstance(code, int) and code not in (0, -1)


_NAME = re.compile(r"\w+")
_QUOTED = re.compile(r"['\"]([^'\"]+)['\"]")


def _skill_parts(code: str) -> tuple[str, str | None, str] | None:
    """``NAME(ARGS)`` as ``(NAME, its first argument when a quoted string, what follows
    it)``, else None; read by hand in one pass (a backtracking pattern over a cell of
    quotes took about 15 s a megabyte)."""
    text = code.strip()
    name = _NAME.match(text)
    if name is None or not text.endswith(")") or text[name.end():name.end() + 1] != "(":
        return None
    inside = text[name.end() + 1:-1]
    args = inside.lstrip()
    quote = args[:1]
    if quote in ("'", '"'):
        close = args.find(quote, 1)
        if close >= 0:
            return name.group(), args[1:close], args[close + 1:]
    return name.group(), None, inside
_SKILL_WINDOWS = {"open_file", "goto_line", "scroll_down", "scroll_up"}
_SKILL_SEARCHES = {"search_file", "search_dir", "find_file"}
_SKILL_EDITS = {"edit_file_by_replace", "insert_content_at_line", "append_file", "create_file",
                "edit_file", "edit_file_by_line"}


def _skill_call(step: int, code: Any, output: str, cwd: str | None, failed: bool) -> ToolCall:
    """A ``run_ipython`` cell: one agentskills call (``open_file('/p')``,
    ``search_file('x', '/p')``, ``edit_file_by_replace('/p', ...)``) is read as that
    tool; any other code is unknown (a window or a ``cat -n`` view it printed still
    counts)."""
    text, clipped = clip(output)
    # one short call; longer cells are code, not a tool call
    parsed = _skill_parts(code) if isinstance(code, str) and len(code) < 4096 else None
    name, first, rest = parsed if parsed else ("", None, "")
    if name not in _SKILL_WINDOWS | _SKILL_SEARCHES | _SKILL_EDITS:
        name = "run_ipython"
    base = ToolCall(step=step, tool=name, handler="unknown", output=text, cwd=cwd,
                    failed=failed, clipped=clipped)
    if name in _SKILL_WINDOWS:
        return replace(base, handler="window")
    if name in _SKILL_SEARCHES:
        quoted = _QUOTED.findall(rest)
        return replace(base, handler="swe_search",
                       args={"command": name, "file": quoted[0] if quoted else None})
    if name in _SKILL_EDITS and first:
        return replace(base, handler="edit", args={"path": first,
                                                   "create": name == "create_file"})
    return base


def _ident(value: Any) -> str | int | None:
    """An event id, a cause or an action id as a key: a string or a number; anything else
    (a list, an object: not a key) is no id."""
    return value if isinstance(value, (str, int)) else None


def _turn(event: dict[str, Any]) -> str | None:
    metadata = event.get("tool_call_metadata")
    response = metadata.get("model_response") if isinstance(metadata, dict) else None
    ident = response.get("id") if isinstance(response, dict) else None
    return ident if isinstance(ident, str) else None


class _Answers:
    """Observations by the id of the action they answer (or the action they follow), each
    taken once, by the first action of that id before it. Ids repeat where two runs were
    joined (a resumed session numbers its events from the start again): the first
    answer to an id is not every later action's answer, or a failed ``cat b.py`` would
    show what an earlier ``cat a.py`` printed."""

    def __init__(self) -> None:
        self.queues: dict[Any, deque[int]] = {}
        self.events: dict[int, dict[str, Any]] = {}
        self.taken: set[int] = set()

    def add(self, key: Any, position: int, event: dict[str, Any]) -> None:
        self.queues.setdefault(key, deque()).append(position)
        self.events[position] = event

    def take(self, key: Any, after: int) -> dict[str, Any] | None:
        queue = self.queues.get(key)
        while queue:
            position = queue.popleft()
            if position > after and position not in self.taken:
                self.taken.add(position)
                return self.events[position]
        return None


def _trajectory(path: str, label: str, instance: str | None, history: list[Any],
                record: Any, notes: list[str]) -> Trajectory:
    events = _events(history)
    if any(e.get("kind") == "ActionEvent" for e in events):
        return _sdk_trajectory(path, label, instance, events, record)
    by_cause = _Answers()
    for position, event in enumerate(events):
        cause = _ident(event.get("cause"))
        if "observation" in event and cause is not None:
            by_cause.add(cause, position, event)
        elif "observation" in event and position > 0 and "action" in events[position - 1]:
            by_cause.add(("follows", position - 1), position, event)
    calls: list[ToolCall] = []
    cwd: str | None = None
    roots: list[str] = []
    final: str | None = None
    step = -1
    turns: dict[str, int] = {}
    for position, event in enumerate(events):
        action = event.get("action")
        if not isinstance(action, str) or event.get("source") not in (None, "agent"):
            continue
        if action in _IGNORE:
            if action == "message" and isinstance(event.get("message"), str):
                final = event["message"] if event.get("source") == "agent" else final
            continue
        turn = _turn(event)
        if turn is None or turn not in turns:
            step += 1
            if turn is not None:
                turns[turn] = step
        current = turns.get(turn, step) if turn is not None else step
        # older event streams keep the arguments on the event itself
        args = mapping_at(event, "args") or {k: v for k, v in event.items()
                                              if k not in ("action", "id", "source")}
        ident = _ident(event.get("id"))
        observation = by_cause.take(ident, position) if ident is not None else None
        observation = observation or by_cause.take(("follows", position), position) or {}
        content = text_of(observation.get("content")) or ""
        failed = observation.get("observation") == "error"
        if action == "finish":
            text = args.get("final_thought") or args.get("thought") or args.get("message")
            final = text if isinstance(text, str) and text else final
            continue
        if action == "run":
            output, where, bad = _run_output(observation)
            if cwd is None and where:
                roots.append(where)
            text, clipped = clip(output)
            calls.append(ToolCall(step=current, tool="run", handler="bash",
                                  args={"command": args.get("command")}, output=text,
                                  cwd=cwd or where, failed=bad or failed, clipped=clipped))
            cwd = where or cwd
            continue
        if action == "read" or (action == "edit" and args.get("command") == "view"):
            text, clipped = clip(content)
            view_range = args.get("view_range")
            start = None
            if args.get("impl_source") != "oh_aci":
                begin = args.get("start", 0)  # FileReadAction's default: 0 (the whole file)
                start = begin + 1 if isinstance(begin, int) and begin >= 0 else None
            if isinstance(view_range, list) and view_range and isinstance(view_range[0], int):
                start = view_range[0]
            calls.append(ToolCall(step=current, tool=action, handler="view",
                                  args={"path": args.get("path"), "style": "tab",
                                        "start": start}, output=text, cwd=cwd,
                                  failed=failed, clipped=clipped))
            continue
        if action in ("edit", "write"):
            start = args.get("insert_line")
            start = start + 1 if isinstance(start, int) else None
            if start is None and action == "edit" and isinstance(args.get("start"), int) \
                    and args["start"] >= 1 and args.get("content"):
                start = args["start"]
            # the editor reports an edit it refused in its output ("ERROR:\nNo replacement
            # was performed ..."), not as an error observation
            text, clipped = clip(content)
            calls.append(ToolCall(step=current, tool=f"{action} {args.get('command') or ''}"
                                  .strip(), handler="edit",
                                  args={"path": args.get("path"), "start": start,
                                        "end": start, "create": args.get("command") == "create"
                                        or action == "write"},
                                  output=text, clipped=clipped, cwd=cwd,
                                  failed=failed or content.lstrip().startswith("ERROR:")))
            continue
        if action == "run_ipython":
            where = _shown_dir(content)
            if cwd is None and where:
                roots.append(where)
            calls.append(_skill_call(current, args.get("code"), content, cwd or where, failed))
            continue
        if action == "call_tool_mcp":
            name = args.get("name")
            calls.append(generic_call(current, f"mcp:{name}", as_args(args.get("arguments")),
                                      content, cwd, failed=failed))
            continue
        calls.append(generic_call(current, action, args, content, cwd, failed=failed))
    patch = None
    if isinstance(record, dict):
        result = record.get("test_result")
        if isinstance(result, dict) and isinstance(result.get("git_patch"), str):
            patch = result["git_patch"]
        elif isinstance(record.get("git_patch"), str):  # the resolver's output records
            patch = record["git_patch"]
    return Trajectory(source=path, label=label, instance_id=instance, calls=tuple(calls),
                      final=patch or final, roots=tuple(roots), record=record,
                      notes=tuple(notes))


def _sdk_trajectory(path: str, label: str, instance: str | None, events: list[dict[str, Any]],
                    record: Any) -> Trajectory:
    """The OpenHands SDK's events (``kind`` ``ActionEvent`` / ``ObservationEvent``): the
    action's ``tool_name`` and ``action`` arguments, its observation by ``action_id`` (or
    ``tool_call_id``); a step is one ``llm_response_id``."""
    by_action = _Answers()
    for position, event in enumerate(events):
        if event.get("kind") == "ObservationEvent":
            for key in ("action_id", "tool_call_id"):
                if _ident(event.get(key)) is not None:
                    by_action.add((key, event[key]), position, event)
    calls: list[ToolCall] = []
    turns: dict[str, int] = {}
    step = -1
    final: str | None = None
    for position, event in enumerate(events):
        if event.get("kind") != "ActionEvent":
            continue
        turn = event.get("llm_response_id")
        turn = turn if isinstance(turn, str) else None
        if turn is None or turn not in turns:
            step += 1
            if turn is not None:
                turns[turn] = step
        current = turns.get(turn, step) if turn is not None else step
        name = str(event.get("tool_name") or mapping_at(event, "tool_call").get("name") or "?")
        args = {k: v for k, v in mapping_at(event, "action").items() if k != "kind"} or \
            as_args(mapping_at(event, "tool_call").get("arguments"))
        observed = by_action.take(("action_id", _ident(event.get("id"))), position) or \
            by_action.take(("tool_call_id", _ident(event.get("tool_call_id"))), position) or {}
        shown = mapping_at(observed, "observation")
        output = text_of(shown.get("content"))
        output = output if output is not None else text_of(shown.get("output"))
        if name == "finish":
            message = args.get("message")
            final = message if isinstance(message, str) and message else final
            continue
        calls.append(generic_call(current, name, args, output,
                                  failed=bool(shown.get("is_error") or shown.get("error"))))
    return Trajectory(source=path, label=label, instance_id=instance, calls=tuple(calls),
                      final=final, record=record)


def read(path: str, raw: bytes, notes: list[str]) -> list[Trajectory]:
    data, found = read_document(raw, path)
    notes.extend(found)
    name = stem(path, SUFFIXES)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise SchemaError("expected OpenHands events: a JSON list of events or records with "
                          "'history'", path=path)
    records = [r for r in data if isinstance(r, dict) and isinstance(r.get("history"), list)]
    if records:
        trajectories = []
        for number, record in enumerate(records, start=1):
            instance = record.get("instance_id")
            instance = str(instance) if isinstance(instance, (str, int)) else None
            label = f"{name}#{instance or number}" if len(records) > 1 else name
            trajectories.append(_trajectory(path, label, instance or name, record["history"],
                                            record, []))
        return trajectories
    if not any(isinstance(e, (dict, list)) for e in data):
        raise SchemaError("expected OpenHands events: found no event objects", path=path)
    return [_trajectory(path, name, name, data, None, [])]
