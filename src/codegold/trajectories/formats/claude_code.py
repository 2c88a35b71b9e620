"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

One JSON object a line: ``type`` ``assistant`` lines carry ``message.content[]`` parts,
``tool_use`` ones with ``id``, ``name`` and ``input``; ``user`` lines carry the
``tool_result`` parts (``tool_use_id``, ``content``, ``is_error``) and the structured
``toolUseResult`` (for ``Read``: ``file.filePath``, ``startLine``, ``numLines``,
``totalLines``). A step is one model response (assistant lines sharing ``message.id``).
``cwd`` is the session's directory (the repository root); subagent (``isSidechain``)
lines are another context and are skipped. ``Read`` output is numbered ``   12→text``;
``Grep`` prints ``path:12:text`` in content mode and file names otherwise; ``Glob`` lists
files; ``Edit``/``MultiEdit``/``Write``/``NotebookEdit`` are edits (lines from
``structuredPatch``); ``Bash`` is a shell command; other tools (MCP ones included) are read
by their name and result. The final answer is the last assistant text.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from codegold.errors import SchemaError
from codegold.trajectories.formats._common import (
    clip,
    generic_call,
    mapping_at,
    read_document,
    stem,
    text_of,
)
from codegold.trajectories.records import ToolCall, Trajectory

NAME = "claude-code"
SUFFIXES = (".jsonl",)


def _edit_span(detail: dict[str, Any]) -> tuple[int | None, int | None]:
    hunks = detail.get("structuredPatch")
    if not isinstance(hunks, list) or not hunks:
        return None, None
    first, last = hunks[0], hunks[-1]
    if not isinstance(first, dict) or not isinstance(last, dict):
        return None, None
    start, old_start, old_lines = first.get("oldStart"), last.get("oldStart"), last.get("oldLines")
    if isinstance(start, int) and isinstance(old_start, int) and isinstance(old_lines, int) \
            and start >= 1:
        return start, max(start, old_start + old_lines - 1)
    return None, None


def _call(step: int, use: dict[str, Any], result: dict[str, Any] | None,
          found: Any, cwd: str | None) -> ToolCall:
    name = str(use["name"]) if isinstance(use.get("name"), str) else "?"
    args: dict[str, Any] = mapping_at(use, "input")
    output = text_of(result.get("content")) if result else None
    failed = bool(result.get("is_error")) if result else False
    detail: dict[str, Any] = found if isinstance(found, dict) else {}
    text, clipped = clip(output) if output is not None else (None, False)
    base = ToolCall(step=step, tool=name, handler="unknown", output=text, cwd=cwd,
                    failed=failed, clipped=clipped)
    path = args.get("file_path") or args.get("notebook_path")
    if name == "Read":
        file = mapping_at(detail, "file")
        return replace(base, handler="view", args={
            "path": path, "style": "arrow", "start": file.get("startLine"),
            "content": file.get("content") if isinstance(file.get("content"), str) else None,
            "total_lines": file.get("totalLines")})
    if name == "Grep":
        mode = args.get("output_mode") or detail.get("mode") or "files_with_matches"
        if mode == "content":
            content = detail.get("content") if isinstance(detail.get("content"), str) else text
            return replace(base, handler="search_lines", args={
                "numbers": args.get("-n", True) is not False,
                "context": any(args.get(k) for k in ("-A", "-B", "-C")),
                "fallback_file": args.get("path")}, output=content)
        return replace(base, handler="paths", args={"paths": detail.get("filenames")} if
                        isinstance(detail.get("filenames"), list) else {})
    if name == "Glob":
        return replace(base, handler="paths", args={"paths": detail.get("filenames")} if
                        isinstance(detail.get("filenames"), list) else {})
    if name in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
        start, end = _edit_span(detail)
        # Write reports whether it made the file ("create") or replaced it ("update")
        made = name == "Write" and detail.get("type") != "update"
        return replace(base, handler="edit", args={"path": path, "start": start, "end": end,
                                                   "create": made})
    if name == "Bash":
        stdout = detail.get("stdout") if isinstance(detail.get("stdout"), str) else None
        shown = text if text is not None else stdout
        return replace(base, handler="bash", args={"command": args.get("command")}, output=shown)
    if name in ("LS", "TodoWrite", "Task", "WebFetch", "WebSearch", "ExitPlanMode",
                "BashOutput", "KillShell", "SlashCommand", "Agent"):
        return replace(base, handler="ignore")
    return generic_call(step, name, args, output, cwd, failed=failed)


def read(path: str, raw: bytes, notes: list[str]) -> list[Trajectory]:
    data, found = read_document(raw, path)
    notes.extend(found)
    lines = data if isinstance(data, list) else [data]
    if not any(isinstance(line, dict) and line.get("type") in ("user", "assistant")
               for line in lines):
        raise SchemaError("expected a Claude Code transcript: JSON lines with type 'user' or "
                          "'assistant'", path=path)
    uses: list[tuple[int, dict[str, Any], str | None]] = []
    results: dict[str, tuple[dict[str, Any] | None, Any]] = {}
    turns: dict[str, int] = {}
    root: str | None = None
    final: str | None = None
    session: str | None = None
    sidechain = 0
    step = -1
    for line in lines:
        if not isinstance(line, dict) or line.get("type") not in ("user", "assistant"):
            continue
        if line.get("isSidechain"):
            sidechain += 1
            continue
        cwd = line.get("cwd") if isinstance(line.get("cwd"), str) else None
        root = root or cwd
        session = session or (line.get("sessionId") if isinstance(line.get("sessionId"), str)
                              else None)
        message: dict[str, Any] = mapping_at(line, "message")
        content = message.get("content")
        parts = content if isinstance(content, list) else []
        if line["type"] == "assistant":
            ident = message.get("id") if isinstance(message.get("id"), str) else None
            if ident is None or ident not in turns:
                step += 1
                if ident is not None:
                    turns[ident] = step
            current = turns.get(ident, step) if ident is not None else step
            for part in parts:
                if not isinstance(part, dict):
                    continue
                if part.get("type") == "tool_use" and isinstance(part.get("id"), str):
                    uses.append((current, part, cwd))
                elif part.get("type") == "text" and isinstance(part.get("text"), str) \
                        and part["text"].strip():
                    final = part["text"]
            continue
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "tool_result" \
                    and isinstance(part.get("tool_use_id"), str):
                results.setdefault(part["tool_use_id"], (part, line.get("toolUseResult")))
    if sidechain and not uses and step < 0:
        # a subagent's own transcript (subagents/agent-*.jsonl): not the session's context
        notes.append("only subagent (sidechain) lines: a subagent's context, not a session")
        return []
    if sidechain:
        notes.append(f"{sidechain} subagent (sidechain) line(s) skipped: another context")
    calls = []
    for current, use, cwd in uses:
        result, detail = results.get(use["id"], (None, None))
        calls.append(_call(current, use, result, detail, cwd))
    name = stem(path, SUFFIXES)
    return [Trajectory(source=path, label=name, instance_id=None, calls=tuple(calls),
                       final=final, roots=(root,) if root else (), record=lines)]
