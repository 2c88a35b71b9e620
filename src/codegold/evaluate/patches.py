"""What a final patch changes: its files, and whether it changes code in each.

An agent's ``final`` is a patch when it holds unified-diff headers (``diff --git``,
``---`` / ``+++``). A file's change is a *code* change when, once whitespace is taken out
of every line and comment-only lines are set aside, the lines it removes and the lines it
adds differ: re-indenting, re-wrapping or adding a comment changes no code. Comment-only
lines are told by the file's language (``#`` in Python, Ruby, shell, YAML, TOML; ``//``,
``/*``, ``*`` in the C family, JavaScript, Go, Rust, Java, Swift, Kotlin; ``--`` in SQL;
all of those for a language codegold does not know, where ``#`` starts no C preprocessor
line), and a changed documentation or plain-text file changes no code either.

Each hunk is read by the line counts of its ``@@ -a,b +c,d @@`` header, so a removed
line that reads ``-- x`` is not mistaken for a file header.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from codegold.model.languages import BY_NAME, language_of
from codegold.model.paths import normalize_path
from codegold.plumbing.git import unquote_git_path

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_GIT_HEADER = re.compile(r"^diff --git a/(\S+) b/(\S+)")
_HASH = ("#",)
_SLASH = ("//", "/*", "*", "*/")
_COMMENTS: dict[str, tuple[str, ...]] = {
    **{name: _HASH for name in ("python", "ruby", "shell", "yaml", "toml")},
    **{name: _SLASH for name in ("typescript", "tsx", "javascript", "go", "java", "rust", "c",
                                 "cpp", "csharp", "kotlin", "swift")},
    "php": (*_SLASH, "#"),
    "sql": ("--",),
}
_UNKNOWN_COMMENTS = (*_SLASH, "#", "--")


@dataclass
class _FileChange:
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


def _path(text: str) -> str | None:
    text = text.strip()
    # a name git quoted (it holds a quote, a backslash or a control character), else one
    # git ended with a tab because it holds a space
    text = unquote_git_path(text) if text.startswith('"') else text.split("\t", 1)[0]
    if text in ("/dev/null", ""):
        return None
    return normalize_path(text[2:] if text[:2] in ("a/", "b/") else text)


def _read(final: str) -> dict[str, _FileChange] | None:
    """Per changed file its removed and added lines; None when ``final`` is no patch."""
    files: dict[str, _FileChange] = {}
    current: _FileChange | None = None
    old_left = new_left = 0
    # newlines only: a form feed or U+2028 inside a line is part of it, and counting it as
    # a break would end the hunk early (its last changed lines read as nothing)
    lines = [line.removesuffix("\r") for line in final.split("\n")]
    for index, line in enumerate(lines):
        if old_left > 0 or new_left > 0:
            if line.startswith("\\"):
                continue  # "\ No newline at end of file"
            if line.startswith("-"):
                old_left -= 1
                if current is not None:
                    current.removed.append(line[1:])
            elif line.startswith("+"):
                new_left -= 1
                if current is not None:
                    current.added.append(line[1:])
            else:  # context (an empty line is a context line whose space was stripped)
                old_left -= 1
                new_left -= 1
            continue
        git = _GIT_HEADER.match(line)
        if git:
            path = normalize_path(git.group(2))
            current = files.setdefault(path, _FileChange())
            continue
        if line.startswith("--- ") and index + 1 < len(lines) and lines[index + 1].startswith("+++ "):
            named = _path(lines[index + 1][4:]) or _path(line[4:])
            if named is not None:
                current = files.setdefault(named, _FileChange())
            continue
        hunk = _HUNK.match(line)
        if hunk and current is not None:
            old_left = 1 if hunk.group(1) is None else int(hunk.group(1))
            new_left = 1 if hunk.group(2) is None else int(hunk.group(2))
    return files or None


def _code_lines(path: str, lines: list[str]) -> Counter[str]:
    """The lines that are code, without their whitespace (comment-only lines left out)."""
    language = language_of(path)
    markers = _COMMENTS.get(language or "", _UNKNOWN_COMMENTS)
    block = "/*" in markers
    kept: Counter[str] = Counter()
    in_block = False
    for line in lines:
        squashed = "".join(line.split())
        if in_block:
            if "*/" in squashed:
                in_block = False
                rest = squashed.split("*/", 1)[1]
                if rest and not rest.startswith(markers):
                    kept[rest] += 1
            continue
        if not squashed:
            continue
        if block and squashed.startswith("/*") and "*/" not in squashed[2:]:
            in_block = True
            continue
        if squashed.startswith(markers):
            continue
        kept[squashed] += 1
    return kept


def _changes_code(path: str, change: _FileChange) -> bool:
    language = language_of(path)
    if language is not None and BY_NAME[language].kind in ("docs", "text"):
        return False
    return _code_lines(path, change.removed) != _code_lines(path, change.added)


def patch_files(final: str) -> set[str] | None:
    """The files a patch changes; None when ``final`` is not a patch."""
    files = _read(final)
    return None if files is None else set(files)


def code_changed_files(final: str) -> set[str] | None:
    """The files in which a patch changes code (module docstring); None when ``final`` is
    not a patch, an empty set when it changes no code at all."""
    files = _read(final)
    if files is None:
        return None
    return {path for path, change in files.items() if _changes_code(path, change)}
