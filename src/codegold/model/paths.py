"""Repository paths and path patterns: one :func:`normalize_path`, one :class:`PathPattern`.

A pattern has one of four named modes, and each use names the rule that picks it, so a
difference between two uses is visible where it is made:

=================  ==========================================  ==========================
use                rule                                        constructor
=================  ==========================================  ==========================
target ``file``    ``glob`` when it holds ``*``, ``?`` or      :meth:`PathPattern.target`
                   ``[``, else ``exact``
``forbidden``      ``glob`` when it holds ``*``, ``?`` or      :meth:`PathPattern.forbidden`
                   ``[``, else a literal string ``prefix``
path filters       always ``gitignore``                        :meth:`PathPattern.path_filter`
(index policy,
retriever
``exclude``,
category patterns)
=================  ==========================================  ==========================

Glob syntax (``glob`` and ``gitignore``): ``*`` and ``?`` stay inside one path segment,
``**`` as a whole segment spans zero or more segments (``a/**/b`` also matches ``a/b``;
a trailing ``a/**`` needs at least one segment below ``a``), ``**`` inside a segment is
``*``, and ``[abc]``, ``[a-z]``, ``[!abc]`` / ``[^abc]`` are character classes (never
matching ``/``). A ``[`` without its ``]`` is a literal ``[``; write ``[[]``, ``[*]`` or
``[?]`` for a literal ``[``, ``*`` or ``?``. A reversed range such as ``[z-a]`` is an
:class:`~codegold.errors.InputError` naming the pattern. A ``glob`` also matches the path
spelled exactly like it (``pages/[id].tsx`` names that file), and a ``glob`` ending in
``/`` matches what lies under the folders it names (``src/legacy*/``).

``gitignore`` adds gitignore's placement rules: a pattern without ``/`` (other than a
trailing one) matches at any depth, a pattern with ``/`` matches from the repository root,
a plain name matches that file or folder and everything under it (``src/legacy`` matches
``src/legacy/x.py``, never ``src/legacy_old.py``), and a trailing ``/`` matches only what
lies under the folder.

Matching takes time polynomial in the lengths of pattern and path, never exponential:
consecutive ``**`` collapse, and each ``*`` or ``**`` commits to its leftmost fit (atomic
groups), which is exact because every piece between two wildcards has a fixed length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Literal

from codegold.errors import InputError

_GLOB_CHARS = frozenset("*?[")
MAX_PATTERN_LENGTH = 4096  # PATH_MAX: no repository path is longer


class PatternMode(StrEnum):
    EXACT = "exact"          # the path equals the pattern
    PREFIX = "prefix"        # the path starts with the pattern, as a string
    GLOB = "glob"            # the glob matches the whole path
    GITIGNORE = "gitignore"  # gitignore's rules: placement, folders and what lies under them


def is_glob(pattern: str) -> bool:
    """Whether ``pattern`` holds a glob character (``*``, ``?`` or ``[``)."""
    return not _GLOB_CHARS.isdisjoint(pattern)


def is_canonical(path: str) -> bool:
    """Whether ``path`` is already in repository form (:func:`normalize_path` keeps it)."""
    return "\\" not in path and "//" not in path and "/." not in path \
        and not path.startswith(("/", "."))


_SLASH_SLASH_OR_DOT = re.compile(r"/[/.]")


def all_canonical(paths: list[str]) -> bool:
    """Whether every one of ``paths`` is in repository form (:func:`is_canonical` of each),
    tested in two scans of them joined by a line break and a ``/``: a later path that
    starts with ``/`` or ``.`` then shows ``//`` or ``/.``, and no two paths run into each
    other."""
    joined = "\n/".join(paths)
    return "\\" not in joined and _SLASH_SLASH_OR_DOT.search(joined) is None \
        and not (paths and paths[0].startswith(("/", ".")))


def normalize_path(path: str) -> str:
    """Repository form of a path: ``/`` separators, no empty or ``.`` segments, ``..``
    folded into the folder before it, no leading ``/``.

    Every path a retriever or a file names goes through here before it is matched, so
    ``/src/legacy/a.py``, ``src//legacy/a.py``, ``src/./legacy/a.py`` and
    ``src/x/../legacy/a.py`` all read as ``src/legacy/a.py``. A ``..`` that would climb
    above the repository root is kept at the front (``../a.py``): such a path names no
    repository file, so it matches no target and no repository pattern. A dotfile keeps
    its dot (``./.eslintrc.js`` becomes ``.eslintrc.js``), and a trailing ``/`` (a folder
    in a pattern) is kept.
    """
    if is_canonical(path):
        return path
    return _canonical(path)


@lru_cache(maxsize=65536)
def _canonical(path: str) -> str:
    path = path.replace("\\", "/")
    folder = path.endswith("/")
    kept: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == ".." and kept and kept[-1] != "..":
            kept.pop()
        else:
            kept.append(segment)
    out = "/".join(kept)
    return out + "/" if folder and out else out


def _pattern_text(text: str) -> str:
    if "\\" in text:
        text = text.replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text


def escapes_root(path: str) -> bool:
    """Whether ``path`` climbs above the repository root (its repository form starts
    with ``..``): it names nothing inside the repository."""
    canonical = normalize_path(path)
    return canonical == ".." or canonical.startswith("../")


@dataclass(frozen=True, slots=True)
class PathPattern:
    """One path pattern in one named mode; ``str()`` gives its (normalized) text.

    Build it with the constructor for its use (:meth:`target`, :meth:`forbidden`,
    :meth:`path_filter`) or directly with a mode. A malformed glob raises
    :class:`~codegold.errors.InputError` when the pattern is built, never later.
    """

    text: str
    mode: PatternMode
    _regex: re.Pattern[str] | None = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        # A pattern's own spelling is its author's (``/x`` anchors a gitignore pattern,
        # ``.`` and ``//`` mean what the glob rules say); only separators and a leading
        # ``./`` are folded. The paths matched against it are made canonical.
        text = _pattern_text(self.text)
        if text is not self.text:
            object.__setattr__(self, "text", text)
        if type(self.mode) is not PatternMode:
            object.__setattr__(self, "mode", PatternMode(self.mode))
        if not self.text:
            raise InputError("an empty path pattern names no path; expected a path or glob")
        compiled = None
        if self.mode in (PatternMode.GLOB, PatternMode.GITIGNORE):
            compiled = _compile(self.text, self.mode)
        object.__setattr__(self, "_regex", compiled)

    @classmethod
    def of(cls, text: str, mode: PatternMode) -> PathPattern:
        """The pattern ``text`` in ``mode`` (cached: call it freely in loops)."""
        return _cached(text, mode)

    @classmethod
    def target(cls, text: str) -> PathPattern:
        """A target's ``file``: a glob when it holds glob characters, else an exact path."""
        return _cached(text, PatternMode.GLOB if is_glob(text) else PatternMode.EXACT)

    @classmethod
    def forbidden(cls, text: str) -> PathPattern:
        """A ``forbidden`` entry: a glob when it holds glob characters, else a string prefix.

        The prefix is literal: ``src/legacy`` also forbids ``src/legacy_old.py``, while
        ``src/legacy/`` forbids only what lies in the folder.
        """
        return _cached(text, PatternMode.GLOB if is_glob(text) else PatternMode.PREFIX)

    @classmethod
    def path_filter(cls, text: str) -> PathPattern:
        """A path filter (index policy, retriever ``exclude``, category patterns): gitignore."""
        return _cached(text, PatternMode.GITIGNORE)

    @property
    def regex(self) -> str:
        """A regular expression that matches (with ``re.match``, ``re.DOTALL``) what this does."""
        if self._regex is not None:
            if self.mode is PatternMode.GLOB:
                return f"{self._regex.pattern}|{re.escape(self.text)}\\Z"
            return self._regex.pattern
        if self.mode is PatternMode.EXACT:
            return re.escape(self.text) + r"\Z"
        return re.escape(self.text)

    def matches(self, path: str) -> bool:
        """Whether ``path`` (normalized here) matches this pattern."""
        path = normalize_path(path)
        mode = self.mode
        if mode is PatternMode.EXACT:
            return path == self.text
        if mode is PatternMode.PREFIX:
            return path.startswith(self.text)
        assert self._regex is not None  # set for both glob modes in __post_init__
        if self._regex.match(path) is not None:
            return True
        return mode is PatternMode.GLOB and path == self.text

    def __str__(self) -> str:
        return self.text


@lru_cache(maxsize=8192)
def _cached(text: str, mode: PatternMode) -> PathPattern:
    return PathPattern(text, mode)


@lru_cache(maxsize=8192)
def _compile(text: str, mode: PatternMode) -> re.Pattern[str]:
    if len(text) > MAX_PATTERN_LENGTH:
        raise InputError(f"path pattern {text[:60]!r}... is {len(text)} characters long; "
                         f"expected at most {MAX_PATTERN_LENGTH}")
    tail: Literal["end", "below", "self_or_below"] = "end"
    segments = text.split("/")
    if text.endswith("/") and text.strip("/"):
        # No file path ends in "/": a glob that does names folders, and matches what is in them.
        segments, tail = text.rstrip("/").split("/"), "below"
    if mode is PatternMode.GITIGNORE:
        directory = text.endswith("/")
        core = text.rstrip("/")
        anchored = "/" in core
        core = core.lstrip("/")
        if not core:
            raise InputError(f"path pattern {text!r} names no path; expected a file or "
                             "folder name or a glob")
        segments = core.split("/") if anchored else ["**", *core.split("/")]
        tail = "below" if directory else "self_or_below"
    return re.compile(_glob_regex(text, segments, tail), re.DOTALL)


def _glob_regex(text: str, segments: list[str],
                tail: Literal["end", "below", "self_or_below"]) -> str:
    """The expression for whole segments; ``tail`` says what may follow the last one."""
    collapsed: list[str] = []
    for segment in segments:
        if segment == "**" and collapsed and collapsed[-1] == "**":
            continue
        collapsed.append(segment)
    # Runs of ordinary segments between the ``**`` segments.
    runs: list[list[str]] = [[]]
    for segment in collapsed:
        if segment == "**":
            runs.append([])
        else:
            runs[-1].append(_segment_regex(text, segment))
    after = {"end": "", "below": "/.+", "self_or_below": "(?:/.*)?"}[tail]
    if len(runs) == 1:
        return "/".join(runs[0]) + after + r"\Z"
    head, *middle, last = runs
    out = ["/".join(head) + "/"] if head else []
    for run in middle:
        # Leftmost fit, committed: skipping whole segments cannot make a later run fail
        # that would have matched after a later fit of this one.
        out.append(f"(?>(?:[^/]*/)*?{'/'.join(run)}/)")
    if last:
        out.append(f"(?:[^/]*/)*?{'/'.join(last)}")
    else:
        out.append("[^/]+" if tail == "below" else ".+")  # a trailing ``**``: 1+ segments
    return "".join(out) + after + r"\Z"


def _segment_regex(text: str, segment: str) -> str:
    """One segment: fixed-length pieces separated by ``*`` (consecutive ``*`` are one)."""
    pieces: list[list[str]] = [[]]
    i, n = 0, len(segment)
    while i < n:
        ch = segment[i]
        if ch == "*":
            while i < n and segment[i] == "*":
                i += 1
            pieces.append([])
            continue
        if ch == "?":
            pieces[-1].append("[^/]")
        elif ch == "[":
            parsed = _class_regex(text, segment, i)
            if parsed is not None:
                pieces[-1].append(parsed[0])
                i = parsed[1]
                continue
            pieces[-1].append(re.escape(ch))
        else:
            pieces[-1].append(re.escape(ch))
        i += 1
    parts = ["".join(piece) for piece in pieces]
    if len(parts) == 1:
        return parts[0]
    middle = "".join(f"(?>[^/]*?{part})" for part in parts[1:-1])
    return f"(?>{parts[0]}{middle}[^/]*{parts[-1]}(?![^/]))"


def _class_regex(text: str, segment: str, start: int) -> tuple[str, int] | None:
    """The class opening at ``segment[start]`` and the index past its ``]``; None if unclosed."""
    i = start + 1
    negate = i < len(segment) and segment[i] in "!^"
    if negate:
        i += 1
    first = i
    if i < len(segment) and segment[i] == "]":
        i += 1  # a ``]`` first in the class is a member
    end = segment.find("]", i)
    if end == -1:
        return None
    body = segment[first:end]
    items: list[str] = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            low, high = body[k], body[k + 2]
            if low > high:
                raise InputError(
                    f"path pattern {text!r}: character range '{low}-{high}' is reversed; "
                    f"expected low to high ('{high}-{low}'), or '[[]' for a literal '['")
            items.append(f"{re.escape(low)}-{re.escape(high)}")
            k += 3
        else:
            items.append(re.escape(body[k]))
            k += 1
    inner = "".join(items)
    return (f"[^/{inner}]" if negate else f"(?!/)[{inner}]"), end + 1
