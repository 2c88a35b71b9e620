"""mini-swe-agent ``.traj.json`` files: ``messages`` of a chat, shell commands only.

Each assistant message is one step; its command is ``extra.actions[].command`` (tool
calling) or the one fenced ``bash`` block of its text. The messages after it, up to the
next assistant message, are the observations: ``extra.raw_output`` when recorded, else
the ``<output>`` of the rendered ``<returncode>…</returncode><output>…</output>`` text
(or the ``output`` of the JSON ``{"returncode": …, "output": …}`` one)
(a long output is read from its ``<output_head>`` only: the tail after the elision
cannot be placed). The instance id is
``instance_id``, else the file name; the final patch is ``info.submission`` (else what
the submitting ``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` command printed, or the
``exit`` message's submission).
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any

from codegold.errors import SchemaError
from codegold.plumbing.numbers import number
from codegold.trajectories.formats._common import as_args, clip, read_document, stem, text_of
from codegold.trajectories.records import ToolCall, Trajectory

NAME = "mini-swe-agent"
SUFFIXES = (".traj.json", ".traj")
_LANGUAGES = ("", "bash", "sh", "mswea_bash_command")
_TAG = ("<mswea_bash_command>", "</mswea_bash_command>")
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")

_SUBMIT = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")


def _commands(message: dict[str, Any]) -> list[tuple[str, str | None]]:
    """``(command, tool call id)`` of an assistant message."""
    extra = message.get("extra")
    actions = extra.get("actions") if isinstance(extra, dict) else None
    if isinstance(actions, list) and actions:
        return [(a["command"], a.get("tool_call_id") if isinstance(a.get("tool_call_id"), str)
                 else None) for a in actions
                if isinstance(a, dict) and isinstance(a.get("command"), str)]
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        found = []
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                command = as_args(function.get("arguments")).get("command")
                if isinstance(command, str):
                    found.append((command, call.get("id") if isinstance(call.get("id"), str)
                                  else None))
        return found
    text = text_of(message.get("content")) or ""
    blocks = _blocks(text)
    return [(blocks[0], None)] if len(blocks) == 1 else []


class _Pending:
    """The commands of an assistant message not yet answered: the one a tool message's
    ``tool_call_id`` names, else the first. Both found in constant time (a message of
    40,000 actions answered in reverse order was quadratic by a scan)."""

    def __init__(self, commands: list[tuple[str, str | None]] | None = None) -> None:
        self._commands = commands or []
        self._order: deque[int] = deque(range(len(self._commands)))
        self._by_id: dict[str, deque[int]] = {}
        for position, (_, ident) in enumerate(self._commands):
            if ident is not None:
                self._by_id.setdefault(ident, deque()).append(position)
        self._taken: set[int] = set()

    def __bool__(self) -> bool:
        return len(self._taken) < len(self._commands)

    def take(self, ident: str | None) -> str:
        """The command ``ident`` answers (else the first one pending); call only when
        something is pending."""
        named = self._by_id.get(ident) if ident is not None else None
        while named:
            position = named.popleft()
            if position not in self._taken:
                self._taken.add(position)
                return self._commands[position][0]
        while self._order[0] in self._taken:
            self._order.popleft()
        position = self._order.popleft()
        self._taken.add(position)
        return self._commands[position][0]


def _blocks(text: str) -> list[str]:
    """The shell blocks of a message: fenced (```bash … ```) or tagged, found in linear time."""
    blocks: list[str] = []
    pieces = text.split("```")
    for inside in pieces[1:-1:2]:  # between an opening and a closing fence
        language, newline, body = inside.partition("\n")
        if newline and language.strip() in _LANGUAGES:
            blocks.append(body.rstrip("\n").strip())
    start = text.find(_TAG[0])
    while start >= 0:
        end = text.find(_TAG[1], start)
        if end < 0:
            break
        blocks.append(text[start + len(_TAG[0]):end].strip())
        start = text.find(_TAG[0], end)
    return blocks


def _between(text: str, opening: str, closing: str) -> str | None:
    """The text from the first ``opening`` tag to the last ``closing`` one (what the
    command printed may itself hold the tag), without the newline after the opening."""
    start = text.find(opening)
    end = text.rfind(closing)
    if start < 0 or end < start + len(opening):
        return None
    inner = text[start + len(opening):end]
    return inner[1:] if inner.startswith("\n") else inner


def _observation(message: dict[str, Any]) -> tuple[str, bool, bool]:
    """``(output, clipped, failed)`` of an observation message."""
    extra = message.get("extra")
    content = text_of(message.get("content")) or ""
    code_match = _RETURNCODE.search(content)
    code: Any = number(code_match.group(1), signed=True) if code_match else None
    if isinstance(extra, dict) and isinstance(extra.get("raw_output"), str):
        code = extra.get("returncode", code)
        output, clipped = clip(extra["raw_output"])
        return output, clipped, isinstance(code, int) and code != 0
    failed = isinstance(code, int) and code != 0
    rendered = as_args(content.strip())  # the JSON observation template
    if isinstance(rendered.get("output"), str) or isinstance(rendered.get("output_head"), str):
        code = rendered.get("returncode")
        bad = isinstance(code, int) and not isinstance(code, bool) and code != 0
        if isinstance(rendered.get("output"), str):
            output, clipped = clip(rendered["output"])
            return output, clipped, bad
        return clip(rendered["output_head"])[0], True, bad
    whole = _between(content, "<output>", "</output>")
    if whole is not None:
        output, clipped = clip(whole)
        return output, clipped, failed
    head = _between(content, "<output_head>", "</output_head>")
    if head is not None:
        return clip(head)[0], True, failed
    output, clipped = clip(content)
    return output, clipped, failed


def read(path: str, raw: bytes, notes: list[str]) -> list[Trajectory]:
    data, found = read_document(raw, path)
    notes.extend(found)
    messages = data.get("messages") if isinstance(data, dict) else data
    if not isinstance(messages, list):
        raise SchemaError("expected a mini-swe-agent trajectory: a JSON object with "
                          "'messages' (or a list of messages)", path=path)
    record = data if isinstance(data, dict) else {}
    info = record.get("info") if isinstance(record.get("info"), dict) else {}
    config = info.get("config") if isinstance(info, dict) else None
    environment = config.get("environment") if isinstance(config, dict) else None
    cwd = environment.get("cwd") if isinstance(environment, dict) else None
    cwd = cwd if isinstance(cwd, str) and cwd not in ("", "/") else None
    instance = record.get("instance_id")
    instance = instance if isinstance(instance, str) else stem(path, SUFFIXES)
    calls: list[ToolCall] = []
    step = -1
    pending = _Pending()
    submitted: str | None = None
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "exit":
            extra = message.get("extra")
            value = extra.get("submission") if isinstance(extra, dict) else None
            submitted = value if isinstance(value, str) and value else submitted
            continue
        if role == "assistant":
            step += 1
            pending = _Pending(_commands(message))
            continue
        if role not in ("user", "tool") or not pending or step < 0:
            continue
        wanted = message.get("tool_call_id")
        command = pending.take(wanted if isinstance(wanted, str) else None)
        output, clipped, failed = _observation(message)
        if any(marker in command for marker in _SUBMIT):
            # the submission: what the final command printed (the patch), not context
            submitted = output.strip("\n") + "\n" if output.strip() else submitted
            continue
        calls.append(ToolCall(step=step, tool="bash", handler="bash",
                              args={"command": command}, output=output, cwd=cwd,
                              failed=failed, clipped=clipped))
    submission = info.get("submission") if isinstance(info, dict) else None
    final = submission if isinstance(submission, str) and submission else submitted
    return [Trajectory(source=path, label=instance, instance_id=instance, calls=tuple(calls),
                       final=final, roots=(cwd,) if cwd else (), record=record)]
