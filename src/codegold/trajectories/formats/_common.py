"""What every format reader shares: bounded JSON decoding and tool-name interpretation."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec

from codegold.errors import SchemaError
from codegold.model.io import MAX_DEPTH, check_depth
from codegold.plumbing.numbers import as_int, number
from codegold.plumbing.text import json_loads
from codegold.trajectories.records import ToolCall

MAX_OBSERVATION_CHARS = 1_000_000
"""Longest tool output read; the rest is cut (what is left still shows the output's first
lines, so it is read as far as it goes)."""


def decode_json(raw: bytes, path: str, line: int | None = None) -> Any:
    """One JSON document, depth-bounded; a broken one is a SchemaError naming the file."""
    try:
        value = msgspec.json.decode(raw)
    except RecursionError:
        raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=path, line=line) from None
    except msgspec.DecodeError as err:
        mended = _mend_escapes(raw) if b"\\u" in raw else raw
        if mended is not raw:
            return decode_json(mended, path, line)
        if "UTF-8" in str(err):  # where: the first byte that is not UTF-8
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as bad:
                where = f" at byte {bad.start} of the line" if line is not None else ""
                line = line if line is not None else raw.count(b"\n", 0, bad.start) + 1
                raise SchemaError(f"not valid JSON: not UTF-8 (byte 0x{raw[bad.start]:02x}"
                                  f"{where})", path=path, line=line) from None
        cut = "truncated" in str(err).lower()
        hint = " (the file looks truncated)" if cut and line is None else ""
        if line is None:  # where in the file: the byte msgspec names, or the end it reached
            offset = _BYTE_OFFSET.search(str(err))
            at = number(offset.group(1), digits=12) if offset else None
            if at is not None:
                if "trailing comma" in str(err):  # msgspec names the bracket after it
                    while at > 0 and raw[at - 1:at] in (b" ", b"\t", b"\r", b"\n"):
                        at -= 1
                line = raw.count(b"\n", 0, at) + 1
            elif cut:
                line = raw.rstrip().count(b"\n") + 1
        raise SchemaError(f"not valid JSON{hint}: {err}", path=path, line=line) from None
    check_depth(value, path, line)
    return value


_BYTE_OFFSET = re.compile(r"\(byte (\d+)\)")
# A lone UTF-16 surrogate escape (`"\ud83d"`: a tool output cut inside an emoji, Python's
# surrogateescape bytes written by json.dumps), which msgspec refuses (as "truncated")
# while JSON allows it; a pair stays whole. The backslashes before it are even (escaped
# backslashes), so `\\ud800` in a string (a backslash, then text) is left alone.
_LONE_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*+)(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                          rb"|\\u[dD][89a-fA-F][0-9a-fA-F]{2})")


def _mend_escapes(raw: bytes) -> bytes:
    """``raw`` with each lone surrogate escape as ``\\ufffd`` (``raw`` itself when none)."""
    count = 0

    def mend(match: re.Match[bytes]) -> bytes:
        nonlocal count
        if len(match.group(2)) == 12:
            return match.group()
        count += 1
        return match.group(1) + b"\\ufffd"

    mended = _LONE_ESCAPE.sub(mend, raw)
    return mended if count else raw


def decode_lines(raw: bytes, path: str) -> tuple[list[tuple[int, Any]], list[str]]:
    """JSON lines: ``(line number, value)`` each, and notes. A *last* line cut short is
    what a trajectory still being written ends with: it is skipped and noted. Any other
    broken line (one before the last, or a whole last line that is not JSON or not
    UTF-8) is an error naming its line."""
    pieces = [(n, line) for n, line in enumerate(raw.split(b"\n"), start=1) if line.strip()]
    values: list[tuple[int, Any]] = []
    notes: list[str] = []
    for position, (line_no, line) in enumerate(pieces):
        try:
            values.append((line_no, decode_json(line, path, line_no)))
        except SchemaError as err:
            cut = "truncated" in str(err) or not raw.rstrip(b" \t\r").endswith(b"\n")
            if position == len(pieces) - 1 and values and cut:
                notes.append(f"line {line_no} is cut short (a truncated file?) and was skipped")
                continue
            raise
    return values, notes


def read_document(raw: bytes, path: str) -> tuple[Any, list[str]]:
    """A JSON document, or, when the file is JSON lines, the list of its values."""
    text = raw.lstrip()
    if text[:1] in (b"{", b"["):
        try:
            return decode_json(raw, path), []
        except SchemaError:
            # JSON lines only when the first line is a document of its own; else the
            # error is the document's (a pretty-printed one broken on its line 3)
            first = text.split(b"\n", 1)[0]
            if b"\n" not in text.strip() or not _is_json(first):
                raise
    values, notes = decode_lines(raw, path)
    if len(values) == 1 and not notes:
        return values[0][1], notes
    return [value for _, value in values], notes


def _is_json(line: bytes) -> bool:
    try:
        msgspec.json.decode(_mend_escapes(line) if b"\\u" in line else line)
    except (msgspec.DecodeError, RecursionError):
        return False
    return True


def mapping_at(record: Any, key: str) -> dict[str, Any]:
    """``record[key]`` when it is a JSON object, else an empty one."""
    value = record.get(key) if isinstance(record, dict) else None
    return value if isinstance(value, dict) else {}


def clip(text: str) -> tuple[str, bool]:
    if len(text) > MAX_OBSERVATION_CHARS:
        return text[:MAX_OBSERVATION_CHARS], True
    return text, False


def text_of(value: Any) -> str | None:
    """Text of a message content: a string, or the text parts of a list of parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [str(p["text"]) for p in value if isinstance(p, dict)
                 and isinstance(p.get("text"), str)]
        parts += [p for p in value if isinstance(p, str)]
        return "\n".join(parts) if parts else None
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    return None


def stem(path: str | Path, suffixes: tuple[str, ...]) -> str:
    name = Path(path).name
    for suffix in suffixes:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return Path(path).stem


def as_args(value: Any) -> dict[str, Any]:
    """Tool arguments: a mapping, or a JSON object in a string."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            decoded = json_loads(value)
        except (ValueError, RecursionError):
            return {}
        return decoded if isinstance(decoded, dict) else {}
    return {}


_READ = {"read", "read_file", "view", "view_file", "open_file", "cat", "get_file", "readfile",
         "file_read", "read_text_file", "get_file_contents", "fetch_file", "show_file"}
_SEARCH = {"grep", "search", "search_code", "code_search", "ripgrep", "rg", "find_in_files",
           "grep_search", "codebase_search", "search_text", "search_for_pattern", "text_search"}
_LIST = {"glob", "find", "find_files", "list_files", "file_search", "find_file", "search_files"}
_SHELL = {"bash", "shell", "terminal", "run", "execute_command", "run_command", "exec",
          "run_terminal_cmd", "execute_bash", "run_shell_command", "cmd", "local_shell"}
_EDIT = {"edit", "edit_file", "write", "write_file", "create_file", "str_replace", "replace",
         "insert", "multiedit", "notebookedit", "apply_diff", "replace_in_file",
         "str_replace_based_edit_tool", "write_to_file", "search_replace"}
_CREATE = {"write", "write_file", "create_file", "write_to_file"}
_EDIT_ERRORS = ("ERROR:", "Error:", "<tool_use_error>")
_PATCH = {"apply_patch", "patch"}
_IGNORE = {"todowrite", "todo_write", "think", "webfetch", "websearch", "web_search",
           "exitplanmode", "task", "ls", "list_directory", "list_dir", "finish", "submit"}
_PATH_KEYS = ("file_path", "path", "file", "filename", "target_file", "absolute_path",
              "filepath", "notebook_path", "uri")
_LINE_HINTS = (("start_line", "end_line"), ("line_start", "line_end"), ("start", "end"),
               ("startLine", "endLine"), ("from_line", "to_line"))
_DOC_PATH_KEYS = ("file", "path", "file_path", "filePath", "filename", "source", "uri")
_SPAN_IN_ID = re.compile(r"(.+?)(?::|#L)(\d+)(?:-L?(\d+))?$")
_ARROW = re.compile(r"^[ \t]*\d+\u2192", re.M)
_TAB = re.compile(r"^[ \t]*\d+\t", re.M)
_COLON_WINDOW = re.compile(r"^\[File: .+ \(\d+ lines total\)\]", re.M)


def _first(args: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in args and args[key] not in (None, ""):
            return args[key]
    return None


def documents_in(value: Any, depth: int = 0) -> list[dict[str, Any]]:
    """Code-search results in a decoded JSON result: dicts naming a file (and lines)."""
    if depth > 6:
        return []
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        if any(value.get(key) for key in ("error", "errors", "is_error", "isError")):
            return []  # `{"error": "not found", "path": "src/a.py"}` shows no file
        path = _first(value, _DOC_PATH_KEYS)
        if isinstance(path, str) and path.strip():
            start = as_int(_first(value, ("start_line", "line_start", "startLine", "start",
                                        "line", "line_number", "lineNumber")))
            end = as_int(_first(value, ("end_line", "line_end", "endLine", "end")))
            text = _first(value, ("content", "text", "snippet", "code", "match", "preview"))
            found.append({"path": path, "start": start, "end": end,
                          "text": text if isinstance(text, str) else ""})
            return found
        for child in value.values():
            found.extend(documents_in(child, depth + 1))
    elif isinstance(value, list):
        for child in value:
            found.extend(documents_in(child, depth + 1))
    return found


def document_from_id(identifier: str) -> dict[str, Any] | None:
    """``src/a.py:10-20`` or ``src/a.py#L10-L20`` as a document (a file and lines)."""
    match = _SPAN_IN_ID.match(identifier.strip())
    start = number(match.group(2)) if match else None
    if match and start is not None:
        end = number(match.group(3)) if match.group(3) else start
        return {"path": match.group(1), "start": start, "end": end, "text": ""}
    return None


def generic_call(step: int, tool: str, args: Mapping[str, Any], output: str | None,
                 cwd: str | None = None, *, failed: bool = False) -> ToolCall:
    """A call of a tool known only by its name and arguments (Claude Code's MCP tools,
    OpenTelemetry ``execute_tool`` spans, mapped JSON): a read, a search, a listing, a
    shell command or an edit by its name; else results that name files (JSON), or views
    its output shows."""
    text, clipped = clip(output) if output is not None else (None, False)
    name = tool.rsplit("__", 1)[-1].rsplit(".", 1)[-1].lower()
    base = ToolCall(step=step, tool=tool, handler="unknown", output=text, cwd=cwd,
                    failed=failed, clipped=clipped)
    path = _first(args, _PATH_KEYS)
    path = path if isinstance(path, str) else None
    command = args.get("command")
    if name in ("str_replace_editor", "file_editor", "text_editor") and isinstance(command, str):
        name = "view" if command == "view" else "edit"
    if name in _SHELL and isinstance(_first(args, ("command", "cmd", "script")), str):
        return replace(base, handler="bash", args={"command": _first(args, ("command", "cmd",
                                                                       "script"))})
    if name in _READ or (name == "view" and path):
        return _read_call(base, args, path, text if text is not None else "")
    if name in _EDIT:
        refused = (text or "").lstrip().startswith(_EDIT_ERRORS)
        return replace(base, handler="edit", failed=failed or refused,
                       args={"path": path, "create": name in _CREATE or command == "create",
                             **_edit_lines(args)})
    if name in _PATCH:
        patch = _first(args, ("patch", "input", "diff", "content"))
        return replace(base, handler="patch", args={"patch": patch if isinstance(patch, str) else ""})
    if name in _IGNORE:
        return replace(base, handler="ignore")
    if name in _SEARCH or name in _LIST:
        documents = _json_documents(text)
        if documents:
            return replace(base, handler="documents", args={"documents": documents})
        if name in _LIST:
            return replace(base, handler="paths")
        return replace(base, handler="search_lines", args={"numbers": True})
    documents = _json_documents(text)
    if documents:
        return replace(base, handler="documents", args={"documents": documents})
    if path and text:
        # a tool known by neither name nor kind that names a file (`git_log(path=...)`,
        # `run_tests(path=...)`) printed something about it, not its lines: only a view
        # numbered line by line is read
        call = _read_call(base, args, path, text)
        return replace(call, args={**call.args, "numbered_only": True})
    if any(word in name for word in _SEARCHY) and text:
        # a code-search tool known by its name only: results as "path:line:text" lines
        return replace(base, handler="search_lines", args={"numbers": True})
    return replace(base, handler="unknown")


def _json_documents(text: str | None) -> list[dict[str, Any]]:
    if not text or text.lstrip()[:1] not in ("{", "["):
        return []
    try:
        value = json_loads(text)
    except (ValueError, RecursionError):
        return []
    return documents_in(value)


def _edit_lines(args: Mapping[str, Any]) -> dict[str, Any]:
    insert = as_int(args.get("insert_line"))
    if insert is not None:
        return {"start": insert + 1, "end": insert + 1}
    for start_key, end_key in _LINE_HINTS:
        start = as_int(args.get(start_key))
        if start is not None:
            return {"start": start, "end": as_int(args.get(end_key))}
    return {}


def _read_call(base: ToolCall, args: Mapping[str, Any], path: str | None,
               text: str) -> ToolCall:
    if _COLON_WINDOW.search(text):
        return replace(base, handler="window")
    style = "arrow" if _ARROW.search(text) and not _TAB.search(text) else "tab"
    start: int | None = None
    end: int | None = None
    view_range = args.get("view_range")
    if isinstance(view_range, list) and len(view_range) == 2:
        start, end = as_int(view_range[0]), as_int(view_range[1])
    for start_key, end_key in _LINE_HINTS:
        if start is None and as_int(args.get(start_key)) is not None:
            start, end = as_int(args.get(start_key)), as_int(args.get(end_key))
    if start is None and "offset" in args:
        start = as_int(args.get("offset"))
    if start is None and not args.get("view_range"):
        start = 1
    return replace(base, handler="view", args={"path": path, "style": style, "start": start,
                                               "end": end})


_SEARCHY = ("search", "grep", "find", "symbol", "reference", "definition", "lookup", "query")
