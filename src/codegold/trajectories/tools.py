"""Interpreters of tool calls, registered by the handler name a format reader assigns.

A format reader knows its agent's tool names and arguments; it hands each call on with
one of these handlers and the arguments they read (a path, a line range, a command), so
what a view, a search or a shell command showed is worked out in one place for every
format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from codegold.plumbing.numbers import as_int
from codegold.trajectories.outputs import (
    cat_n_view,
    looks_binary,
    numbered_runs,
    split_lines,
    swe_search,
    swe_window,
    view_seen,
    window_lengths,
)
from codegold.trajectories.paths import PathPlacer
from codegold.trajectories.records import Change, Findings, Seen, ToolCall
from codegold.trajectories.searches import listed_paths, search_hits
from codegold.trajectories.shell import interpret, patch_changes


class Context:
    """What earlier calls of the trajectory told about files: their lengths in lines, by
    the path relative to the repository (so ``/testbed/a.py`` and ``a.py`` agree); and,
    when known, the files of the revision (``files``, paths from the repository root)."""

    def __init__(self, placer: PathPlacer, files: frozenset[str] | None = None) -> None:
        self.placer = placer
        self.lengths: dict[str, int] = {}
        self.files = files

    def remember(self, path: str, cwd: str | None, total: int) -> None:
        self.lengths[self.placer.place(path, cwd)[0]] = total

    def forget(self, path: str, cwd: str | None) -> None:
        """An edit may have changed the file's length."""
        self.lengths.pop(self.placer.place(path, cwd)[0], None)

    def length_of(self, path: str, cwd: str | None) -> int | None:
        return self.lengths.get(self.placer.place(path, cwd)[0])

    def at_revision(self, path: str, cwd: str | None) -> bool | None:
        """Whether a file a search named is at the revision (or outside the repository,
        where the revision says nothing); None when its files are not known."""
        if self.files is None:
            return None
        placed, outside = self.placer.place(path, cwd)
        return outside or placed in self.files


Handler = Callable[[ToolCall, Context], Findings]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


MAX_LINE = 999_999_999
"""Largest line number read from a tool's arguments or results (nine digits, as a printed
one is read); a larger number is no line number."""
MAX_PLACED_LINES = 20_000
"""Most lines one span placed by numbers alone (no text shown) covers; a longer one is cut
(and noted), and a file whose length is known cuts it at its end."""


def _int(value: Any) -> int | None:
    found = as_int(value, signed=True)
    return found if found is not None and -MAX_LINE <= found <= MAX_LINE else None


def _placed_end(context: Context, path: str, cwd: str | None, start: int, end: int,
                found: Findings) -> int | None:
    """``end`` of a span placed by numbers alone, cut at the file's known length and at
    :data:`MAX_PLACED_LINES` (noted in ``found``); None when the span starts past the
    file's end (passed over)."""
    length = context.length_of(path, cwd)
    if length is not None:
        if start > length:
            found.skipped.append("span past the end of the file")
            return None
        end = min(end, length)
    if end - start + 1 > MAX_PLACED_LINES:
        found.notes.append(f"span placed by numbers alone cut to {MAX_PLACED_LINES} lines")
        end = start + MAX_PLACED_LINES - 1
    return end


def _bash(call: ToolCall, context: Context) -> Findings:
    command = _text(call.args.get("command"))
    if command is None:
        return Findings(skipped=["shell call without a command"])
    found = interpret(command, call.output, call.cwd, length_of=context.length_of,
                      at_revision=context.at_revision)
    if not call.clipped:  # a cut output is not the whole file
        for path, cwd, total in found.lengths:
            context.remember(path, cwd, total)
    return found


def _window(call: ToolCall, context: Context) -> Findings:
    output = call.output or ""
    for path, total in window_lengths(output).items():
        context.remember(path, call.cwd, total)
    return Findings(seen=swe_window(output, call.cwd))


def _swe_search(call: ToolCall, context: Context) -> Findings:
    command = _text(call.args.get("command")) or ""
    return Findings(seen=swe_search(call.output or "", command, _text(call.args.get("file")),
                                    call.cwd))


def _view(call: ToolCall, context: Context) -> Findings:
    """A file view: numbered lines read by their numbers (``style`` tab or arrow); else,
    when the tool reports the first line (``start``), the printed lines from there."""
    path = _text(call.args.get("path"))
    output = call.output or ""
    style = _text(call.args.get("style")) or "tab"
    total = _int(call.args.get("total_lines"))
    if path is not None and total is not None:
        context.remember(path, call.cwd, total)
    seen = []
    for tried in dict.fromkeys((style, "tab", "arrow")):  # the given style first
        if tried == "tab":
            seen = cat_n_view(output, path, call.cwd)
        elif path is not None:
            seen = view_seen(path, numbered_runs(split_lines(output), tried), call.cwd)
        if seen:
            break
    if seen or path is None:
        return Findings(seen=seen) if seen else Findings(skipped=["view of no file"])
    if call.args.get("numbered_only"):
        return Findings(skipped=[f"unknown tool {call.tool[:60]!r}"])
    start = _int(call.args.get("start"))
    end = _int(call.args.get("end"))
    content = _text(call.args.get("content"))
    if call.output is None and start is not None and end is not None and 1 <= start <= end:
        # the trace recorded the call but not its result (content capture off): the
        # span asked for is all there is to go by
        found = Findings(notes=["read placed by its arguments (no output recorded)"])
        last = _placed_end(context, path, call.cwd, start, end, found)
        if last is not None:
            found.seen.append(Seen(path=path, kind="read", start=start,
                                   count=last - start + 1, cwd=call.cwd))
        return found
    if start is not None and start >= 1:
        lines = split_lines(content if content is not None else output)
        if content is None and len(lines) <= 2 and lines and _COMPLAINT.search(lines[0]):
            # a read tool that says so in its text instead of flagging an error
            return Findings(skipped=["the call reported an error"])
        if lines:
            return Findings(seen=[Seen(path=path, kind="read", start=start, lines=tuple(lines),
                                       cwd=call.cwd)])
    return Findings(skipped=["view whose lines cannot be placed"])


# What a read tool prints instead of the file when it reports no error (`Error: file not
# found`, `ENOENT: no such file or directory`): a line or two, never read as the file's.
_COMPLAINT = re.compile(r"^\s*+(?:error\b|\[error\])|no such file|not found|does not exist|"
                        r"\bENOENT\b|permission denied|is a directory|"
                        r"(?:cannot|can't|could not|unable to|failed to) (?:open|read|find)",
                        re.IGNORECASE)


def _search_lines(call: ToolCall, context: Context) -> Findings:
    """``path:line:text`` search output (Claude Code's Grep, code-search tools)."""
    output = call.output or ""
    names_only = bool(call.args.get("names_only"))
    numbers = bool(call.args.get("numbers", True))
    single = _text(call.args.get("single_file"))
    context_lines = bool(call.args.get("context"))
    seen = search_hits(output, with_names=single is None, with_numbers=numbers,
                       only_names=names_only, single_file=single, context=context_lines,
                       cwd=call.cwd, at_revision=context.at_revision)
    fallback = _text(call.args.get("fallback_file"))
    if not seen and fallback is not None and single is None:
        # one file searched: the tool printed "12:text" without the file name
        seen = search_hits(output, with_names=False, with_numbers=numbers, only_names=False,
                           single_file=fallback, context=context_lines, cwd=call.cwd,
                           at_revision=context.at_revision)
    return Findings(seen=seen)


def _paths(call: ToolCall, context: Context) -> Findings:
    listed = call.args.get("paths")
    if isinstance(listed, list):
        return Findings(seen=[Seen(path=p, kind="search_hit", cwd=call.cwd,
                                   outside=context.at_revision(p, call.cwd) is False)
                              for p in listed if isinstance(p, str) and p.strip()])
    return Findings(seen=listed_paths(call.output or "", call.cwd, context.at_revision))


def _edit(call: ToolCall, context: Context) -> Findings:
    path = _text(call.args.get("path"))
    if path is None:
        return Findings(skipped=["edit of no file"])
    start, end = _int(call.args.get("start")), _int(call.args.get("end"))
    if start is not None and start < 1:
        start = None
    if start is None or end is None or end < start:
        end = start
    return Findings(changes=[Change(path, start, end, cwd=call.cwd,
                                    created=bool(call.args.get("create")))])


def _patch(call: ToolCall, context: Context) -> Findings:
    return Findings(changes=patch_changes(_text(call.args.get("patch")) or "", call.cwd))


def _documents(call: ToolCall, context: Context) -> Findings:
    """Retrieved documents: ``{path, start, end, text}`` each (a code-search result)."""
    found = Findings()
    documents = call.args.get("documents")
    for document in documents if isinstance(documents, list) else []:
        if not isinstance(document, dict) or not isinstance(document.get("path"), str):
            found.skipped.append("retrieved document without a file path")
            continue
        start, end = _int(document.get("start")), _int(document.get("end"))
        text = _text(document.get("text")) or ""
        if start is not None and start >= 1:
            lines = split_lines(text)
            count = len(lines) or 1
            if end is not None and end >= start:
                last = _placed_end(context, document["path"], call.cwd, start, end, found)
                if last is None:
                    continue
                count = last - start + 1
            found.seen.append(Seen(path=document["path"], kind="search_hit", start=start,
                                   lines=tuple(lines[:count]), count=count, cwd=call.cwd))
        else:
            found.seen.append(Seen(path=document["path"], kind="search_hit", cwd=call.cwd))
    return found


def _ignore(call: ToolCall, context: Context) -> Findings:
    return Findings()


def _unknown(call: ToolCall, context: Context) -> Findings:
    """A tool codegold does not know: a window or a ``cat -n`` view it printed still
    counts; anything else is reported as an unknown tool."""
    output = call.output or ""
    if "[File: " in output:
        seen = swe_window(output, call.cwd)
        if seen:
            return Findings(seen=seen)
    if "Here's the result of running `cat -n` on " in output:
        seen = cat_n_view(output, None, call.cwd)
        if seen:
            return Findings(seen=seen)
    return Findings(skipped=[f"unknown tool {call.tool[:60]!r}"])


HANDLERS: dict[str, Handler] = {
    "bash": _bash,
    "window": _window,
    "swe_search": _swe_search,
    "view": _view,
    "search_lines": _search_lines,
    "paths": _paths,
    "edit": _edit,
    "patch": _patch,
    "documents": _documents,
    "ignore": _ignore,
    "unknown": _unknown,
}


# Where an agent framework cut a long output and what follows is no longer the start of
# it (a note, or the output's tail): everything from here on is left out.
CUT_MARKERS = ("<response clipped>", "[... Observation truncated due to length ...]",
               "<elided_chars>", "Observations should not exceeded")


# Colours and line erasing a tool printed (`grep --color=always`, a terminal's `rg`):
# they sit inside a line's path and number, and change neither the lines nor their order.
_COLOURS = re.compile(r"\x1b\[[0-9;]*+[mK]")


def _cut(call: ToolCall) -> ToolCall:
    output = call.output
    if output is None:
        return call
    if "\x1b[" in output:
        output = _COLOURS.sub("", output)
        call = replace(call, output=output)
    at = min((i for i in (output.find(m) for m in CUT_MARKERS) if i >= 0), default=-1)
    return call if at < 0 else replace(call, output=output[:at], clipped=True)


def interpret_call(call: ToolCall, context: Context) -> Findings:
    """What ``call`` showed and changed; binary output shows nothing."""
    if call.output is not None and looks_binary(call.output) and call.handler != "edit":
        return Findings(skipped=["binary output"])
    call = _cut(call)
    if call.failed:
        return Findings(skipped=[_failure(call)])
    return HANDLERS.get(call.handler, _unknown)(call, context)


_ERROR_PREFIXES = ("ERROR:", "Error:", "error:", "<tool_use_error>")
_REASON_END = re.compile(r"[,;(<\n]|\.(?:\s|$)")
REASON_CHARS = 80
"""Longest reason quoted from a failed edit's message (its first clause)."""


def _failure(call: ToolCall) -> str:
    """Why a failed call was passed over: an edit (by an editing tool, or a shell command
    that would have changed files) is a ``failed edit`` with the first clause of its
    message (``No replacement was performed``); anything else reported an error."""
    editing = call.handler in ("edit", "patch")
    if call.handler == "bash" and isinstance(call.args.get("command"), str):
        editing = bool(interpret(call.args["command"], None, call.cwd,
                                 length_of=lambda path, cwd: None).changes)
    if not editing:
        return "the call reported an error"
    text = (call.output or "").strip()
    for prefix in _ERROR_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):].strip()
            break
    clause = _REASON_END.split(text[:REASON_CHARS * 4], maxsplit=1)[0].strip().rstrip(".")
    return f"failed edit: {clause[:REASON_CHARS]}" if clause else "failed edit"
