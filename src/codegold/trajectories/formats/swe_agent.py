"""SWE-agent ``.traj`` files: ``trajectory`` steps of ``action``/``observation``/``state``.

The action is the command line the agent issued: the windowed viewer (``open``, ``goto``,
``scroll_up``, ``scroll_down``, ``set_cursors``), the searches (``search_dir``, ``search_file``,
``find_file``), the editors (``edit``, ``insert``, ``create``, ``str_replace_editor``) or
any shell command. ``state`` (recorded after the action) names the working directory and
the open file (in ``history`` only, the ``(Open file: F)`` ``(Current directory: D)``
footer after each observation says it). The instance id is the file name (``astropy__astropy-12907.traj``); the
final patch is ``info.submission``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import replace
from typing import Any

from codegold.errors import SchemaError
from codegold.plumbing.numbers import number
from codegold.plumbing.text import json_loads
from codegold.trajectories.formats._common import clip, read_document, stem, text_of
from codegold.trajectories.records import ToolCall, Trajectory

NAME = "swe-agent"
SUFFIXES = (".traj",)
_WINDOW = {"open", "goto", "scroll_up", "scroll_down", "set_cursors"}
_SEARCH = {"search_dir", "search_file", "find_file"}
_IGNORE = {"submit", "exit_forfeit", "exit_cost", "exit_context", "exit_error", "exit_format",
           "skip", "filemap", "view_image"}
_BAD_ROOTS = {"/", "/root", "/tmp", "/home"}
_FOOTER = re.compile(r"\r?\n?\(Open file: ([^\n]*)\)\r?\n\(Current directory: ([^\n]*)\)\r?\n?"
                     r"(?:bash-\$|\$)?\s*$")
# an edit the linter refused (or that matched nothing) changed nothing
_REFUSED = ("Your proposed edit has introduced new syntax error", "No replacement was performed",
            "Error: ", "Usage: ")


def _state(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json_loads(value)
        except (ValueError, RecursionError):
            return {}
    return value if isinstance(value, dict) else {}


def _words(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def _editor_call(step: int, words: list[str], action: str, output: str, clipped: bool,
                 cwd: str | None) -> ToolCall:
    """``str_replace_editor view PATH [--view_range A B]`` and its editing commands."""
    sub = words[1] if len(words) > 1 else ""
    path = words[2] if len(words) > 2 else None
    base = ToolCall(step=step, tool=f"str_replace_editor {sub}".strip(), handler="unknown",
                    output=output, cwd=cwd, clipped=clipped,
                    failed=output.lstrip().startswith(_REFUSED))
    if sub == "view":
        return replace(base, handler="view", args={"path": path, "style": "tab"})
    start = None
    if "--insert_line" in words:
        position = words.index("--insert_line") + 1
        line = number(words[position]) if position < len(words) else None
        if line is not None:
            start = line + 1
    return replace(base, handler="edit", args={"path": path, "start": start, "end": start,
                                               "create": sub == "create"})


def _call(step: int, action: str, observation: str, cwd: str | None,
          open_file: str | None) -> ToolCall:
    output, clipped = clip(observation)
    first_line = action.strip().split("\n", 1)[0]
    words = _words(first_line)
    command = words[0] if words else ""
    refused = command in ("edit", "insert", "append", "str_replace_editor") and \
        output.lstrip().startswith(_REFUSED)
    base = ToolCall(step=step, tool=command or "bash", handler="unknown", output=output, cwd=cwd,
                    clipped=clipped, failed=refused)
    if command in _WINDOW:
        return replace(base, handler="window")
    if command in _SEARCH:
        target = words[2] if command == "search_file" and len(words) > 2 else open_file
        return replace(base, handler="swe_search", args={"command": command, "file": target})
    if command == "str_replace_editor":
        return _editor_call(step, words, action, output, clipped, cwd)
    if command == "create":
        return replace(base, handler="edit", args={"path": words[1] if len(words) > 1 else None,
                                                   "create": True})
    if command in ("edit", "insert", "append"):
        start = end = None
        if len(words) > 1 and ":" in words[1]:
            low, _, high = words[1].partition(":")
            if number(low) is not None and number(high) is not None:
                start, end = number(low), number(high)
        elif command == "insert" and len(words) > 2 and number(words[-1]) is not None:
            start = end = (number(words[-1]) or 0) + 1
        return replace(base, handler="edit", args={"path": open_file, "start": start, "end": end})
    if command in _IGNORE:
        return replace(base, handler="ignore")
    return replace(base, handler="bash", args={"command": action.strip()}, tool="bash")


def _strip_footer(observation: str) -> tuple[str, dict[str, Any]]:
    """An observation without the ``(Open file: F)`` ``(Current directory: D)`` prompt
    footer the model is shown after it, and the state that footer names."""
    offset = max(0, len(observation) - 4096)  # the footer ends it: search the end only
    match = _FOOTER.search(observation, offset)
    if not match:
        return observation, {}
    state = {"open_file": match.group(1), "working_dir": match.group(2)}
    return observation[:match.start()], state


def _steps_from_history(history: list[Any]) -> list[dict[str, Any]]:
    """``trajectory``-like steps from ``history`` messages (an action, then its observation)."""
    steps: list[dict[str, Any]] = []
    for message in history:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant" and isinstance(message.get("action"), str):
            steps.append({"action": message["action"], "observation": ""})
        elif steps and message.get("message_type") == "observation":
            steps[-1]["observation"] = text_of(message.get("content")) or ""
    return steps


def read(path: str, raw: bytes, notes: list[str]) -> list[Trajectory]:
    data, found = read_document(raw, path)
    notes.extend(found)
    if not isinstance(data, dict):
        raise SchemaError("expected a SWE-agent trajectory: a JSON object with 'trajectory' "
                          "(or 'history')", path=path)
    steps: Any = data.get("trajectory")
    if not isinstance(steps, list):
        history = data.get("history")
        if not isinstance(history, list):
            raise SchemaError("expected a SWE-agent trajectory: no 'trajectory' or 'history' "
                              "list", path=path)
        steps = _steps_from_history(history)
    instance = stem(path, SUFFIXES)
    roots: list[str] = []
    calls: list[ToolCall] = []
    cwd: str | None = None
    submitted: str | None = None
    for step, item in enumerate(steps):
        if not isinstance(item, dict) or not isinstance(item.get("action"), str):
            notes.append(f"step {step} has no action and was skipped")
            continue
        observation = item.get("observation")
        observation = observation if isinstance(observation, str) else ""
        observation, shown_state = _strip_footer(observation)
        state = _state(item.get("state")) or shown_state
        after = state.get("working_dir") if isinstance(state.get("working_dir"), str) else None
        if cwd is None and after and after not in _BAD_ROOTS:
            roots.append(after)
        open_file = state.get("open_file")
        if item["action"].strip().split(" ", 1)[0] == "submit" and "diff --git" in observation:
            submitted = observation.strip("\r\n") + "\n"
        calls.append(_call(step, item["action"], observation, cwd or after,
                           open_file if isinstance(open_file, str) and open_file != "n/a"
                           else None))
        cwd = after or cwd
    if "__" in instance:
        roots.append("/" + instance.rsplit("-", 1)[0])
    info = data.get("info")
    submission = info.get("submission") if isinstance(info, dict) else None
    return [Trajectory(source=path, label=instance, instance_id=instance, calls=tuple(calls),
                       final=submission if isinstance(submission, str) and submission
                       else submitted,
                       roots=tuple(roots), record=data)]
