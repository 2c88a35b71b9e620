"""Reading what a tool printed: numbered file views and search result lists.

Every parser here reads the text exactly as the model was shown it and trusts only what
it shows: a view's line numbers come from the numbers printed beside the lines, never
from the range that was asked for (a view can be clipped, a file shorter than asked).
Lines are split on ``\\n`` only (a file's own ``\\f`` or ``\\u2028`` is not a line break
for ``cat -n``), and a ``\\r`` before it (terminal output) is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codegold.plumbing.numbers import number
from codegold.trajectories.records import Kind, Seen

# "12:text" (SWE-agent's windowed viewer), "    12\ttext" (cat -n, nl -ba, the
# str_replace_editor's view), "    12→text" (Claude Code's Read).
NUMBERED = {
    "colon": re.compile(r"(\d+):(.*)"),
    # the windowed viewers: SWE-agent "12:text", OpenHands' agentskills "12|text"
    "window": re.compile(r"(\d+)[:|](.*)"),
    "tab": re.compile(r"\s*(\d+)\t(.*)"),
    "arrow": re.compile(r"\s*(\d+)\u2192(.*)"),
    # the str_replace_editor's abbreviated view of a large Python file ("{:6d} {line}")
    "space": re.compile(r"\s*(\d+) (.*)"),
}
ABBREVIATED = "Showing abbreviated version"
_ELIDED = re.compile(r"\s*\d+ \.\.\. eliding lines \d+-\d+ \.\.\.")
_WINDOW_HEADER = re.compile(r"\[File: (.+?) \((\d+) lines total\)\]")
_MORE = re.compile(r"\((\d+) more lines (above|below)\)|\(this is the (beginning|end) of the file\)")
_CURSOR = re.compile(r"<<<<< (START|END) CURSOR >>>>>")
_FOUND = re.compile(r'Found (\d+) matches for "(.*)" in (.+?):?$')
_SEARCH_DIR_LINE = re.compile(r"(.+) \((\d+) matches\)")
_SEARCH_DIR_HIT = re.compile(r"(.+) \(Line (\d+)\): ?(.*)")  # OpenHands' agentskills
_SEARCH_FILE_LINE = re.compile(r"Line (\d+):(.*)")
_CAT_N_HEADER = re.compile(r"Here's the result of running `cat -n` on (.+?):\s*$")
BINARY_SHARE = 0.1


def split_lines(text: str) -> list[str]:
    """Output lines as shown: split on ``\\n``, a trailing ``\\r`` dropped, the empty piece
    after a final newline not counted."""
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def looks_binary(text: str) -> bool:
    """NUL bytes, or more than a tenth control or undecodable characters."""
    if "\x00" in text:
        return True
    sample = text[:65536]
    if not sample:
        return False
    odd = sum(1 for ch in sample if (ord(ch) < 32 and ch not in "\t\n\r\f\v\x1b\x08")
              or ch == "\ufffd")
    return odd > BINARY_SHARE * len(sample)


@dataclass(frozen=True)
class Run:
    """Consecutive numbered lines: the first number and the texts."""

    start: int
    lines: tuple[str, ...]


def numbered_runs(lines: list[str], style: str, *, skip: re.Pattern[str] | None = None) -> list[Run]:
    """Runs of consecutively numbered lines (a jump in the numbers starts a new run).

    Lines that do not carry a number end the current run, except those ``skip`` matches
    (SWE-agent's cursor markers), which are ignored. An ``... eliding lines a-b ...``
    entry (an abbreviated view) shows nothing and ends the run.
    """
    pattern = NUMBERED[style]
    runs: list[Run] = []
    start = previous = 0
    texts: list[str] = []
    for line in lines:
        if skip is not None and skip.fullmatch(line.strip()):
            continue
        match = None if _ELIDED.fullmatch(line) else pattern.fullmatch(line)
        line_no = (number(match.group(1)) or 0) if match else 0
        if match and line_no >= 1:
            if texts and line_no == previous + 1:
                texts.append(match.group(2))
            else:
                if texts:
                    runs.append(Run(start, tuple(texts)))
                start, texts = line_no, [match.group(2)]
            previous = line_no
            continue
        if texts:
            runs.append(Run(start, tuple(texts)))
            texts = []
    if texts:
        runs.append(Run(start, tuple(texts)))
    return runs


def view_seen(path: str, runs: list[Run], cwd: str | None, kind: Kind = "read") -> list[Seen]:
    return [Seen(path=path, kind=kind, start=run.start, lines=run.lines, cwd=cwd) for run in runs]


def swe_window(output: str, cwd: str | None) -> list[Seen]:
    """SWE-agent's windowed viewer: ``[File: PATH (N lines total)]``, then ``(K more lines
    above)``, the numbered window ``12:text``, ``(M more lines below)``. Several windows
    may follow each other (one per header). OpenHands' agentskills viewer is the same with
    ``12|text`` and ``(this is the beginning/end of the file)``."""
    seen: list[Seen] = []
    path: str | None = None
    block: list[str] = []

    def flush() -> None:
        if path is not None:
            seen.extend(view_seen(path, numbered_runs(block, "window", skip=_CURSOR), cwd))

    for line in split_lines(output):
        text = line.strip()
        header = _WINDOW_HEADER.fullmatch(text) if len(text) < HEADER_CHARS else None
        if header:
            flush()
            path, block = header.group(1), []
        elif path is not None and not _MORE.fullmatch(line.strip()):
            block.append(line)
    flush()
    return seen


HEADER_CHARS = 4096
"""Longest line read as a window header (a path and a count): longer ones are text."""


def window_lengths(output: str) -> dict[str, int]:
    """``{path: total lines}`` from SWE-agent window headers (used to place ``tail -n N``)."""
    found: dict[str, int] = {}
    for line in output.split("\n"):
        text = line.strip()
        header = _WINDOW_HEADER.fullmatch(text) if len(text) < HEADER_CHARS else None
        total = number(header.group(2)) if header else None
        if header and total is not None:
            found[header.group(1)] = total
    return found


def cat_n_view(output: str, fallback_path: str | None, cwd: str | None) -> list[Seen]:
    """A ``cat -n`` style view (``    12\\ttext``), as the str_replace_editor and OpenHands
    print it after ``Here's the result of running `cat -n` on PATH:``."""
    lines = split_lines(output)
    path = fallback_path
    for index, line in enumerate(lines[:3]):
        header = _CAT_N_HEADER.match(line) if len(line) < HEADER_CHARS else None
        if header:
            path = path or header.group(1)
            lines = lines[index + 1:]
            break
    if path is None:
        return []
    if any(ABBREVIATED in line for line in lines[:3]):
        return view_seen(path, numbered_runs(lines, "space"), cwd)
    return view_seen(path, numbered_runs(lines, "tab"), cwd)


def swe_search(output: str, command: str, target: str | None, cwd: str | None) -> list[Seen]:
    """SWE-agent's ``search_dir`` (files with match counts), ``search_file`` (``Line N:text``
    in one file) and ``find_file`` (paths) result lists."""
    lines = split_lines(output)
    seen: list[Seen] = []
    where: str | None = None
    for line in lines:
        text = line.strip()
        if text.startswith("[") and text.endswith("]"):  # OpenHands' agentskills brackets
            text = text[1:-1].strip()
        found = _FOUND.match(text)
        if found:
            where = found.group(3)
            continue
        if where is None or not text or text.startswith("End of matches"):
            continue
        if command == "search_file":
            hit = _SEARCH_FILE_LINE.match(line)
            if hit and number(hit.group(1)) is not None:
                seen.append(Seen(path=target or where, kind="search_hit",
                                 start=number(hit.group(1)), lines=(hit.group(2),), cwd=cwd))
        elif command == "search_dir":
            hit = _SEARCH_DIR_LINE.fullmatch(text)
            line_hit = None if hit else _SEARCH_DIR_HIT.fullmatch(text)
            if hit:
                seen.append(Seen(path=hit.group(1), kind="search_hit", cwd=cwd))
            elif line_hit and number(line_hit.group(2)) is not None:
                seen.append(Seen(path=line_hit.group(1), kind="search_hit",
                                 start=number(line_hit.group(2)), lines=(line_hit.group(3),),
                                 cwd=cwd))
        elif command == "find_file":
            seen.append(Seen(path=text, kind="search_hit", cwd=cwd))
    return seen
