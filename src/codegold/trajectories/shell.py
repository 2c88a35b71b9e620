"""What a shell command showed the model: file reads and searches deduced from the
command and the length of its output.

The command is read from its parse (:mod:`codegold.trajectories.bash`). Only output that
can be attributed is read: that of one pipeline, the others printing nothing (``cd``,
``cp``, ``grep -q``, ``git apply``, a redirection into a file), or several told apart by
the known output of ``echo`` of plain words between them. A file source is ``cat [-n]
F``, ``nl [-ba] F``, ``head -n N F``, ``tail -n +K F`` (``tail -n N F`` when the file's
length is known), ``sed -n 'a,bp' F``, ``awk 'NR>=a && NR<=b' F``, ``git show REV:PATH``;
the filters after it are ``head``, ``tail`` (``-n N`` only with the length known: a
range's end is a cap, the file may end sooner), ``sed -n 'a,bp'`` and, for numbered
output (``cat -n``, ``nl -ba``), anything that keeps lines whole (``grep``). Numbered
output is read by its numbers; otherwise the lines are those of the range the command
names, as many as were printed. Searches are ``grep``/``egrep``/``rg``/``git grep``
(hits with lines when ``-n`` was given; :mod:`codegold.trajectories.searches` reads
them), ``find`` (and the grep its ``-exec`` runs). Changes are ``sed -i``, a redirection
into a file, ``tee``, ``git apply``/``patch`` of a here-document, ``mv``/``cp``/``rm``/
``touch`` of a file, inside loops and conditions too.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise

from codegold.plumbing.numbers import number
from codegold.trajectories.bash import Segment, Stage, Unreadable, parse_command
from codegold.trajectories.outputs import NUMBERED, split_lines
from codegold.trajectories.records import Change, Findings, Seen
from codegold.trajectories.searches import (
    AtRevision,
    heading_hits,
    listed_paths,
    rg_json_hits,
    search_hits,
)

_QUIET = {"cd", "export", "set", "source", ".", "true", ":", "unset", "alias", "pushd",
          "popd", "mkdir", "clear", "shopt", "ulimit", "umask", "trap",
          # print nothing when they succeed (an error goes to stderr and shows as one)
          "cp", "mv", "rm", "touch", "chmod", "ln", "sleep", "wait"}
_FILE_COMMANDS = {"cp", "mv", "rm", "touch", "chmod", "ln", "mkdir"}
_WRAPPERS = {"sudo", "command", "builtin", "exec", "time", "nice", "nohup"}
# possessive quantifiers: a script of many spaces must not make the match backtrack
_SED_RANGE = re.compile(r"(\d++)\s*+(?:,\s*+(\+?\d++|\$)\s*+)?p\s*+;?+")
_SED_ADDRESS = re.compile(r"\s*+(\d++)\s*+(?:,\s*+(\d++|\$))?")
# What a failed file source prints instead of the file: the program's complaint (named by
# its path too: `/bin/cat: a.py: No such file`), the shell's about a `cd` before it that
# failed (`bash: cd: src: No such file`, `/bin/sh: 1: cd: can't cd to src`, zsh's `cd: no
# such file`), and git's (`fatal: path 'a.py' does not exist in 'HEAD'`) for `git show`.
_ERROR_LINE = re.compile(r"(?:/[^\s:]*/)?(?:cat|head|tail|sed|nl|awk|gawk|mawk|git|cd|bash|sh"
                         r"|dash|zsh|ksh)(?:: line \d+|: \d+)?: ")
_GIT_ERROR_LINE = re.compile(r"(?:fatal|error): ")
_DIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.M)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.M)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*+=.*", re.S)
_GREP_VALUE_OPTIONS = set("ABCefmd") | {"--max-count", "--context", "--after-context",
                                         "--before-context", "--include", "--exclude",
                                         "--exclude-dir", "-g", "--glob", "-t", "--type",
                                         "-T", "--type-not", "-M", "--max-columns"}


LengthOf = Callable[[str, "str | None"], "int | None"]


@dataclass(frozen=True)
class Range:
    """Lines a file source prints: ``first``..``last`` (None: to the end)."""

    first: int
    last: int | None = None
    from_end: int | None = None  # tail -n N: the last N lines
    # `head -n -K` left lines off the end: where the printed lines end is not known, even
    # with the file's length (a `tail -n N` after it cannot be placed)
    short: bool = False


def _program(argv: list[str]) -> list[str]:
    """``argv`` without ``sudo``/``env X=1``/``timeout 5`` wrappers and assignments."""
    at = 0
    while at < len(argv):  # an index, not a copy of the words per word dropped
        first = posixpath.basename(argv[at])
        if first in _WRAPPERS:
            at += 1
        elif first == "env":
            at += 1
            while at < len(argv) and ("=" in argv[at] or argv[at].startswith("-")):
                at += 1
        elif first == "timeout":
            at += 1
            while at < len(argv) and argv[at].startswith("-"):
                at += 1
            at += 1
        elif _ASSIGNMENT.fullmatch(argv[at]):
            at += 1
        else:
            break
    words = argv[at:]
    if words:
        words[0] = posixpath.basename(words[0])
    return words


BEYOND_ANY_FILE = 10**9
"""A line count or number written with more digits than a line number has (`head -n
99999999999`, `sed -n '1,999999999999p'`): past the end of any file."""


def _count(value: str) -> int | None:
    found = number(value)
    if found is None and value.isascii() and value.isdigit():
        return BEYOND_ANY_FILE
    return found


def _head_tail_count(argv: list[str]) -> tuple[int | None, bool, list[str]]:
    """``(N, plus, files)`` of ``head``/``tail``: ``-n N``, ``-N``, ``-nN``, ``--lines=N``,
    ``-n +K`` (plus); 10 when not given."""
    count: int | None = 10
    plus = False
    files: list[str] = []
    words = argv[1:]
    index = 0
    while index < len(words):
        word = words[index]
        value: str | None = None
        if word in ("-n", "--lines"):
            value = words[index + 1] if index + 1 < len(words) else ""
            index += 1
        elif word.startswith("--lines="):
            value = word.split("=", 1)[1]
        elif word.startswith("-n"):
            value = word[2:]
        elif re.fullmatch(r"-\d+", word):
            value = word[1:]
        elif word in ("-c", "--bytes") or word.startswith(("-c", "--bytes=")):
            return None, False, []
        elif word in ("-v", "--verbose", "-z", "--zero-terminated"):
            return None, False, []  # a `==> a.py <==` header line; NUL-ended "lines"
        elif word.startswith("-") and word != "-":
            pass
        else:
            files.append(word)
        if value is not None:
            plus = value.startswith("+")
            count = _count(value.lstrip("+-"))
            if count is not None and value.startswith("-"):
                count = -count  # `head -n -5`: all but the last 5 (tail reads it as 5)
        index += 1
    return count, plus, files


def _sed_print(argv: list[str]) -> tuple[Range | None, list[str]] | None:
    """``sed -n 'a,bp' FILE``: its range and files (None: not a print of one range)."""
    quiet = False
    script: str | None = None
    files: list[str] = []
    words = argv[1:]
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("-n", "--quiet", "--silent"):
            quiet = True
        elif word in ("-e", "--expression"):
            if script is not None:
                return None  # several scripts print several ranges
            script = words[index + 1] if index + 1 < len(words) else ""
            index += 1
        elif re.fullmatch(r"-[nEr]+e?", word):
            quiet = quiet or "n" in word
            if word.endswith("e") and index + 1 < len(words):
                if script is not None:
                    return None
                script = words[index + 1]
                index += 1
        elif word.startswith("-"):
            return None
        elif script is None:
            script = word
        else:
            files.append(word)
        index += 1
    if not quiet or script is None:
        return None
    match = _SED_RANGE.fullmatch(script.strip())
    if not match:
        return None
    first = number(match.group(1))
    last = match.group(2)
    end: int | None = first
    if last == "$":
        end = None
    elif last is not None and last.startswith("+"):  # GNU: a,+N is a..a+N
        plus = _count(last[1:])
        end = first + plus if first is not None and plus is not None else 0
    elif last:
        end = _count(last) or 0
    if first is None or first < 1 or (end is not None and end < first):
        return None
    return Range(first, end), files


def _options_and_files(argv: list[str]) -> tuple[set[str], list[str]]:
    options: set[str] = set()
    files: list[str] = []
    for word in argv[1:]:
        if word.startswith("--"):
            options.add(word)
        elif word.startswith("-") and word != "-":
            options.update("-" + ch for ch in word[1:])
        else:
            files.append(word)
    return options, files


@dataclass(frozen=True)
class Source:
    """A command that prints (part of) one file."""

    path: str
    range: Range
    numbered: bool      # the output carries the file's line numbers (cat -n, nl -ba)
    from_root: bool = False  # the path is relative to the repository root (git show REV:PATH)


def _file_source(words: list[str]) -> Source | None:
    name = words[0]
    if name == "cat":
        options, files = _options_and_files(words)
        if len(files) != 1 or files[0] == "-" or options - {"-n", "-b", "-s", "-A", "-v"}:
            return None
        if "-s" in options or "-b" in options:
            return None  # squeezed or nonblank-numbered lines are not the file's
        return Source(files[0], Range(1), numbered="-n" in options)
    if name == "nl":
        body_all = False
        files = []
        index = 1
        while index < len(words):
            word = words[index]
            if word == "-b":
                body_all = index + 1 < len(words) and words[index + 1] == "a"
                index += 1
            elif word.startswith("-b"):
                body_all = word[2:] == "a"
            elif word.startswith("--body-numbering="):
                body_all = word.split("=", 1)[1] == "a"
            elif word in ("-w", "-s", "-n", "-v", "-i", "-h", "-f", "-d", "-l"):
                index += 1
            elif not word.startswith("-"):
                files.append(word)
            index += 1
        if len(files) != 1:
            return None
        # nl prints every line (numbering only some), so its output is positional too
        return Source(files[0], Range(1), numbered=body_all)
    if name in ("head", "tail"):
        count, plus, files = _head_tail_count(words)
        if count is None or len(files) != 1:
            return None
        if name == "head":
            if count < 0:
                return Source(files[0], Range(1, None, short=True), numbered=False)
            return Source(files[0], Range(1, count), numbered=False)
        if plus:
            return Source(files[0], Range(max(count, 1)), numbered=False)
        return Source(files[0], Range(1, None, from_end=abs(count)), numbered=False)
    if name == "sed":
        printed = _sed_print(words)
        if printed is None or printed[0] is None or len(printed[1]) != 1:
            return None
        return Source(printed[1][0], printed[0], numbered=False)
    if name == "git" and len(words) == 3 and words[1] == "show" and ":" in words[2]:
        revision, _, path = words[2].partition(":")
        if revision and path and not revision.startswith("-"):
            return Source(path, Range(1), numbered=False,
                          from_root=not path.startswith(("./", "../")))
        return None
    if name in ("awk", "gawk", "mawk") and len(words) == 3:
        span = _awk_range(words[1])
        return Source(words[2], span, numbered=False) if span is not None else None
    return None


_AWK_PRINT = r"(?:\{\s*+print(?:\s++\$0)?+\s*+;?+\s*+\})?+"
_AWK_RANGE = re.compile(r"\s*+NR\s*+>=?+\s*+(\d++)\s*+&&\s*+NR\s*+<=?+\s*+(\d++)\s*+"
                        + _AWK_PRINT + r"\s*+")
_AWK_LINE = re.compile(r"\s*+NR\s*+==\s*+(\d++)\s*+" + _AWK_PRINT + r"\s*+")


def _awk_range(script: str) -> Range | None:
    """``awk 'NR>=a && NR<=b' FILE`` (``>``/``<`` too, ``{print}`` optional), ``NR==a``."""
    match = _AWK_RANGE.fullmatch(script)
    if match:
        low, high = number(match.group(1)), number(match.group(2))
        if low is None or high is None:
            return None
        low += 0 if ">=" in script else 1
        high -= 0 if "<=" in script else 1
        return Range(low, high) if 1 <= low <= high else None
    single = _AWK_LINE.fullmatch(script)
    line = number(single.group(1)) if single else None
    return Range(line, line) if line is not None and line >= 1 else None


def _filter(words: list[str], current: Range, total: int | None) -> Range | None:
    """The range left after a line filter, relative to the lines ``current`` printed.

    ``current.last`` is a cap (the file may end sooner), so ``tail -n N`` after it is
    placed only when the file's length ``total`` is known."""
    name = words[0]
    if name in ("head", "tail"):
        count, plus, files = _head_tail_count(words)
        if count is None or files:
            return None
        if name == "head":
            if count < 0:  # all but the last lines: from the first, to an end unknown
                return Range(current.first, current.last, short=True)
            top = current.first + count - 1
            return Range(current.first, top if current.last is None else min(top, current.last),
                         short=current.short)
        if plus:
            return Range(current.first + max(count, 1) - 1, current.last, short=current.short)
        if total is None or current.short:
            return None
        end = total if current.last is None else min(current.last, total)
        return Range(max(current.first, end - abs(count) + 1), end)
    if name == "sed":
        printed = _sed_print(words)
        if printed is None or printed[0] is None or printed[1]:
            return None
        inner = printed[0]
        first = current.first + inner.first - 1
        last = None if inner.last is None else current.first + inner.last - 1
        if current.last is not None:
            last = current.last if last is None else min(last, current.last)
        return Range(first, last, short=current.short)
    return None


def _lines_keep_numbers(words: list[str]) -> bool:
    """A filter after numbered output that keeps each printed line whole."""
    name = words[0]
    if name in ("head", "tail"):
        return _head_tail_count(words)[0] is not None
    if name == "sed":
        printed = _sed_print(words)
        return printed is not None and not printed[1]
    if name in ("grep", "egrep", "fgrep"):
        options, _ = _options_and_files(words)
        return not options & {"-c", "-o", "-l", "-L", "--count"}
    return _passes_lines(words) or name in ("less", "more")


def _passes_lines(words: list[str]) -> bool:
    """``cat``, ``sort``, ``uniq`` passing each line through whole: no ``cat -n`` (numbers
    of its own), ``uniq -c`` (counts), no file of their own to add (``cat - b.py``)."""
    name = words[0]
    if name == "sort":  # the values of its options are not files
        words = [w for w, before in zip(words, ["", *words[:-1]], strict=True)
                 if before not in ("-k", "-t", "-S", "-T", "--key", "--field-separator")]
    options, operands = _options_and_files(words)
    if operands and operands != ["-"]:
        return False
    if name == "cat":
        return not options - {"--"}
    if name == "uniq":
        return not options & {"-c", "--count"}
    return name == "sort" and not options & {"-o", "--output"}


@dataclass(frozen=True)
class Search:
    """A search command and how its output lines look."""

    tool: str
    with_names: bool
    with_numbers: bool
    only_names: bool
    single_file: str | None
    context: bool
    listing: bool = False  # find: one path a line
    messages: bool = False  # rg --json: one JSON message a line
    # `grep -r X a.py`: the one operand may be a file (GNU grep then prints no name)
    maybe_file: str | None = None


def _search(words: list[str]) -> Search | None:
    name = words[0]
    if name == "git" and len(words) > 1 and words[1] == "grep":
        words = ["git-grep", *words[2:]]
        name = "git-grep"
    if name == "find":
        if any(w == "-type" and n != "f" for w, n in pairwise(words)):
            return None  # directories (or links) listed, not files
        return Search("find", True, False, True, None, False, listing=True)
    if name not in ("grep", "egrep", "fgrep", "rg", "git-grep", "ag"):
        return None
    options: set[str] = set()
    operands: list[str] = []
    pattern_given = False
    index = 1
    while index < len(words):
        word = words[index]
        if word == "--":
            operands.extend(words[index + 1:])
            break
        if word.startswith("--"):
            key = word.split("=", 1)[0]
            options.add(key)
            if key in ("--regexp", "--file"):
                pattern_given = True
            if "=" not in word and key in _GREP_VALUE_OPTIONS | {"--regexp", "--file"}:
                index += 1
        elif word.startswith("-") and len(word) > 1 and not word[1:].isdigit():
            letters = word[1:]
            for position, letter in enumerate(letters):
                options.add("-" + letter)
                if letter in ("e", "f"):
                    pattern_given = True
                if letter in _GREP_VALUE_OPTIONS or (name == "rg" and letter in "gtTM"):
                    if position == len(letters) - 1:
                        index += 1
                    break
        elif word.startswith("-") and word[1:].isdigit():
            options.add("-C")
        else:
            operands.append(word)
        index += 1
    files = operands if pattern_given else operands[1:]
    only_names = bool(options & {"-l", "--files-with-matches", "-L", "--files-without-match",
                                 "--files"})
    if options & {"-c", "--count", "--count-matches", "-o", "--only-matching"} - {"-o"}:
        return None
    recursive = bool(options & {"-r", "-R", "--recursive", "--dereference-recursive"})
    # an operand the shell expands (`src/*.py`) may name several files: their names show
    globbed = len(files) == 1 and any(mark in files[0] for mark in "*?[")
    maybe_file = None
    if name in ("rg", "ag"):
        with_numbers = bool(options & {"-n", "--line-number", "--vimgrep"}) \
            and not options & {"-N", "--no-line-number"}
        if name == "ag":
            with_numbers = not options & {"--nonumbers"}
        single = len(files) == 1 and "/" not in files[0][-1:] and "." in posixpath.basename(files[0]) \
            and not globbed
        with_names = not single and not options & {"-I", "--no-filename"}
        if options & {"-H", "--with-filename"}:
            with_names = True
    elif name == "git-grep":
        with_numbers = bool(options & {"-n", "--line-number"})
        with_names = not options & {"-h"}
        single = False
    else:
        with_numbers = bool(options & {"-n", "--line-number"})
        single = len(files) == 1 and not recursive and not globbed
        with_names = (recursive or len(files) > 1 or globbed
                      or bool(options & {"-H", "--with-filename"})) \
            and not options & {"-h", "--no-filename"}
        named = posixpath.basename(files[0]) if len(files) == 1 else ""
        if recursive and with_numbers and with_names and not globbed \
                and "." in named.strip(".") and not files[0].endswith("/") \
                and not options & {"-H", "--with-filename"}:
            maybe_file = files[0]  # a name with an extension: a file, most likely
    context = bool(options & {"-A", "-B", "-C", "--context", "--after-context",
                              "--before-context"})
    if name == "rg" and "--json" in options:
        return Search("rg", True, True, False, None, context, messages=True)
    return Search(name.replace("git-grep", "git grep"), with_names, with_numbers, only_names,
                  files[0] if single and files else None, context, maybe_file=maybe_file)


def _changes(words: list[str], stage: Stage, cwd: str | None) -> list[Change]:
    """Files a stage writes: ``sed -i``, ``> FILE``, ``tee``, patches, ``mv``/``cp``/...
    A file written from nothing (``> FILE``, not ``>>``; ``tee`` without ``-a``; the
    target of ``cp``/``mv``; ``touch``) is ``created``: whether it is new to
    the repository the ledger decides (nothing showed or changed it before)."""
    changes: list[Change] = []
    if stage.stdout_to and stage.stdout_to not in ("/dev/null", "/dev/stdout", "/dev/stderr"):
        changes.append(Change(stage.stdout_to, cwd=cwd, created=not stage.appends))
    if not words:
        return changes
    name = words[0]
    if name == "sed" and any(w == "-i" or w.startswith(("-i", "--in-place")) or
                             (w.startswith("-") and not w.startswith("--") and "i" in w)
                             for w in words[1:]):
        operands = [w for w in words[1:] if not w.startswith("-")]
        script, files = (operands[0], operands[1:]) if operands else ("", [])
        address = _SED_ADDRESS.match(script)
        start = number(address.group(1)) if address and address.group(1) else None
        last = address.group(2) if address else None
        end = start if last is None else (None if last == "$" else number(last))
        for path in files:
            changes.append(Change(path, start, end if start is not None else None, cwd=cwd))
    elif name == "tee":
        whole = not {"-a", "--append"} & set(words[1:])
        changes.extend(Change(w, cwd=cwd, created=whole) for w in words[1:]
                       if not w.startswith("-"))
    elif name in ("patch",) or (name == "git" and len(words) > 1 and words[1] == "apply"):
        changes.extend(patch_changes(stage.stdin or "", cwd))
    elif name in ("mv", "cp", "rm", "touch", "truncate", "chmod", "ln"):
        operands = [w for w in words[1:] if not w.startswith("-")]
        targets = operands[-1:] if name in ("mv", "cp", "ln") else operands
        whole = name == "touch" or (name in ("mv", "cp") and len(operands) >= 2)
        changes.extend(Change(w, cwd=cwd, created=whole) for w in targets)
    return changes


def patch_changes(text: str, cwd: str | None) -> list[Change]:
    """Files and old-side line spans a unified diff changes."""
    changes: list[Change] = []
    for block in re.split(r"^(?=\+\+\+ )", text, flags=re.M)[1:]:
        header = _DIFF_FILE.match(block)
        if not header or header.group(1) == "/dev/null":
            continue
        hunks = list(_HUNK.finditer(block))
        if not hunks:
            changes.append(Change(header.group(1), cwd=cwd))
        for hunk in hunks:
            start = number(hunk.group(1)) or 0
            length = (number(hunk.group(2)) or 0) if hunk.group(2) is not None else 1
            if start >= 1 and length >= 1:
                changes.append(Change(header.group(1), start, start + length - 1, cwd=cwd))
            else:
                changes.append(Change(header.group(1), cwd=cwd))
    return changes


def _lines_of(source: Source, lines: list[str], length_of: LengthOf, cwd: str | None,
              filters: list[list[str]]) -> tuple[int, list[str]] | str:
    """``(first line, texts)`` the output shows of the source file, or why not known."""
    current = source.range
    total = length_of(source.path, cwd)
    if current.from_end is not None:
        if total is None:
            return "tail -n N of a file whose length the trajectory never showed"
        current = Range(max(1, total - current.from_end + 1), total)
    for words in filters:
        narrowed = _filter(words, current, total)
        if narrowed is None:
            return f"{words[0]} after {source.path} changes which lines are shown"
        current = narrowed
    if current.last is not None and len(lines) > current.last - current.first + 1:
        return "more lines printed than the command asks for"
    return current.first, lines


@dataclass(frozen=True)
class _Printer:
    """A pipeline whose output reaches the model, and the directory it ran in."""

    pipeline: list[list[str]]
    cwd: str | None
    echoed: str | None = None  # what it prints, when that is known (echo of literal words)
    compound: str | None = None  # a loop or condition (its output is not attributed)
    lost: bool = False  # it ran in a directory the shell expanded (`cd $DIR`)
    prior: tuple[Change, ...] = ()  # what the commands before it changed


def _where(path: str, cwd: str | None) -> str:
    return posixpath.normpath(path if path.startswith("/") else posixpath.join(cwd or "", path))


def _echoed(stage: Stage, words: list[str]) -> str | None:
    """The output of ``echo`` of literal words (``-n``: without the newline)."""
    if not words or words[0] != "echo" or not stage.literal:
        return None
    rest = words[1:]
    newline = "\n"
    while rest and rest[0] in ("-n", "-e", "-E", "-ne", "-en"):
        if "e" in rest[0] and any("\\" in w for w in rest[1:]):
            return None  # escapes interpreted
        newline = "" if "n" in rest[0] else newline
        rest = rest[1:]
    return " ".join(rest) + newline


def _pieces(printers: list[_Printer], output: str) -> list[tuple[_Printer, str]] | None:
    """Each printer's part of ``output``, told apart by the known output of the ``echo``
    commands between them (``echo '--- a.py'; cat a.py; echo '--- b.py'; cat b.py``);
    None when two printers of unknown output follow each other, or an echo is not where
    it must be."""
    pieces: list[tuple[_Printer, str]] = []
    at = 0
    for index, printer in enumerate(printers):
        if printer.echoed is not None:
            if not output.startswith(printer.echoed, at):
                return None
            at += len(printer.echoed)
            continue
        following = printers[index + 1] if index + 1 < len(printers) else None
        if following is None:
            pieces.append((printer, output[at:]))
            at = len(output)
            continue
        if following.echoed is None or not following.echoed.strip():
            return None
        # the marker starts a line: the printer's output ends with a newline before it
        if output.startswith(following.echoed, at):
            end = at
        else:
            end = output.find("\n" + following.echoed, at) + 1
            if end <= 0:
                return None
        pieces.append((printer, output[at:end]))
        at = end
    return pieces if output[at:].strip() == "" else None


def _collect(segments: list[Segment], cwd: str | None, found: Findings) -> list[_Printer]:
    """The changes every command makes (into ``found``) and the pipelines that print."""
    printers: list[_Printer] = []
    scopes: list[tuple[str | None, bool]] = []
    lost = False  # after `cd $DIR`: where relative paths lead is not known
    for segment in segments:
        if segment.scope:
            if segment.scope > 0:
                scopes.append((cwd, lost))
            elif scopes:
                cwd, lost = scopes.pop()  # a subshell's cd ends with it
            continue
        prior = tuple(found.changes)
        for stage in segment.stages:
            for part in [stage, *stage.inner]:
                found.changes.extend(_changes(_program(part.argv), part, cwd))
        first = segment.stages[0]
        last = segment.stages[-1]
        if last.stdout_to:
            continue  # its output went to a file, not to the model
        if first.compound is not None:
            printers.append(_Printer([[]], cwd, compound=first.compound))
            continue
        words = _program(first.argv)
        if words and words[0] in ("cd", "pushd"):
            target = words[1] if len(words) > 1 else None
            if target and target != "-" and first.literal and not target.startswith("~"):
                cwd = posixpath.normpath(posixpath.join(cwd or "", target)) if not \
                    target.startswith("/") else posixpath.normpath(target)
                lost = False
            else:
                # `cd`, `cd ~/x` (home), `cd -` (the directory before) or `cd $DIR`: the
                # shell knows where that is, the trajectory does not
                lost = True
            continue
        if not words or (words[0] in _QUIET and not _verbose(words)) or _silent(words):
            continue
        pipeline = [_program(s.argv) for s in segment.stages]
        echoed = _echoed(first, words) if len(segment.stages) == 1 else None
        printers.append(_Printer(pipeline, cwd, echoed, lost=lost, prior=prior))
    return printers


def _verbose(words: list[str]) -> bool:
    """``cp -v``, ``rm --verbose``, ``mkdir -pv``: a quiet command told to say what it did."""
    return words[0] in _FILE_COMMANDS and any(
        w == "--verbose" or (w.startswith("-") and not w.startswith("--") and "v" in w)
        for w in words[1:])


def _silent(words: list[str]) -> bool:
    """``sed -i``, ``grep -q`` and ``git apply`` print nothing (when they succeed)."""
    if words[0] == "git":
        reports = {"--stat", "--numstat", "--summary", "-v", "--verbose", "-n", "--dry-run"}
        return len(words) > 1 and words[1] in ("apply", "add") and not reports & set(words)
    if words[0] == "sed":
        return any(w.startswith("-i") or w.startswith("--in-place") for w in words[1:])
    if words[0] in ("grep", "egrep", "fgrep"):
        options, _ = _options_and_files(words)
        return bool(options & {"-q", "--quiet", "--silent"})
    return False


def interpret(command: str, output: str | None, cwd: str | None, *,
              length_of: LengthOf, at_revision: AtRevision | None = None) -> Findings:
    """What ``command`` showed (from ``output``) and changed. ``length_of(path, cwd)`` is
    a file's length when the trajectory showed it earlier (for ``tail -n N``);
    ``at_revision(path, cwd)`` whether a file a search named is at the revision (None:
    not known). Output cut at its end (too long) still shows its first lines, so it is
    placed as it is: every range here is anchored at its first line."""
    found = Findings()
    try:
        segments = parse_command(command)
    except Unreadable as unreadable:
        found.skipped.append(str(unreadable))
        return found
    printers = _collect(segments, cwd, found)
    if output is None or not output.strip():
        return found
    if all(p.echoed is not None for p in printers):
        if printers:
            found.skipped.append("output of `echo` is not a file read or search")
        return found
    if len(printers) == 1:
        pieces: list[tuple[_Printer, str]] | None = [(printers[0], output)]
    else:
        pieces = _pieces(printers, output)
    if pieces is None:
        found.skipped.append("output of several commands that cannot be told apart")
        return found
    for printer, piece in pieces:
        if piece.strip():
            shown = len(found.seen)
            _read(printer, piece, found, length_of, at_revision)
            if printer.prior:
                changed = {_where(change.path, change.cwd) for change in printer.prior}
                found.seen[shown:] = [replace(seen, edited=True)
                                      if _where(seen.path, seen.cwd) in changed else seen
                                      for seen in found.seen[shown:]]
    return found


def _read(printer: _Printer, output: str, found: Findings, length_of: LengthOf,
          at_revision: AtRevision | None) -> None:
    """What one printing pipeline showed, from its part of the output."""
    pipeline, cwd = printer.pipeline, printer.cwd
    if printer.compound is not None:
        found.skipped.append(f"output of a {printer.compound} statement")
        return
    if printer.lost:
        found.skipped.append("output after a cd to a directory the shell expands")
        return
    lines = split_lines(output)
    source = _file_source(pipeline[0]) if pipeline[0] else None
    if lines and source is not None and (
            _ERROR_LINE.match(lines[0])
            or (pipeline[0][0] == "git" and _GIT_ERROR_LINE.match(lines[0]))):
        # a search's complaints (`grep: x.bin: binary file matches`) sit among its hits
        # and are left out line by line where the hits are read
        found.skipped.append(f"{pipeline[0][0]} reported an error")
        return
    if source is not None and _expands(source.path):
        found.skipped.append(f"{pipeline[0][0]} of a path the shell expands")
        return
    if source is not None:
        where = None if source.from_root else cwd
        runs = _numbered(lines) if source.numbered else []
        if runs and all(_lines_keep_numbers(w) for w in pipeline[1:] if w):
            found.seen.extend(Seen(path=source.path, kind="read", start=start, lines=texts,
                                   cwd=where) for start, texts in runs)
            return
        source = Source(source.path, source.range, numbered=False, from_root=source.from_root)
        placed = _lines_of(source, lines, length_of, cwd, [w for w in pipeline[1:] if w])
        if isinstance(placed, str):
            found.skipped.append(placed)
            return
        first, texts = placed
        if texts:
            found.seen.append(Seen(path=source.path, kind="read", start=first,
                                   lines=tuple(texts), cwd=where))
            if source.range == Range(1) and len(pipeline) == 1:  # the whole file
                found.lengths.append((source.path, where, len(texts)))
        return
    search = _search(pipeline[0]) if pipeline[0] else None
    if search is not None and search.listing:
        executed = _find_exec(pipeline[0])
        if isinstance(executed, str):
            found.skipped.append(executed)
            return
        search = executed or search
    xargs = next((i for i, w in enumerate(pipeline) if w and w[0] == "xargs"), None)
    if xargs is not None and xargs > 0:
        # find ... | xargs grep -n X: the grep's output, file names included
        words = [w for w in pipeline[xargs][1:] if not w.startswith("-") or w in ("-0",)]
        grep = pipeline[xargs][pipeline[xargs].index(words[0]):] if words else []
        found_grep = _search([*grep[:1], "-H", *grep[1:]]) if grep else None
        search = found_grep if found_grep is not None and not found_grep.listing else None
        pipeline = [pipeline[0], *pipeline[xargs + 1:]]
    if search is not None and all(_keeps_search_lines(w) for w in pipeline[1:] if w):
        if search.listing:
            found.seen.extend(listed_paths(output, cwd, at_revision))
        elif search.messages:
            found.seen.extend(rg_json_hits(output, cwd, at_revision))
        else:
            # rg and ag on a terminal (an agent's shell in tmux) print each file's name above
            # its numbered lines, with or without -n: read as such when every group is so
            headed = search.tool in ("rg", "ag") and search.with_names \
                and not search.only_names
            hits = heading_hits(output, cwd, at_revision) if headed else []
            if not hits:
                hits = search_hits(output, with_names=search.with_names,
                                   with_numbers=search.with_numbers,
                                   only_names=search.only_names,
                                   single_file=search.single_file, context=search.context,
                                   cwd=cwd, at_revision=at_revision)
            if not hits and search.maybe_file is not None and not search.only_names:
                # `grep -rn X a.py` of a file prints `12:text`, as for one file searched
                hits = search_hits(output, with_names=False, with_numbers=search.with_numbers,
                                   only_names=False, single_file=search.maybe_file,
                                   context=search.context, cwd=cwd, at_revision=at_revision)
            found.seen.extend(hits)
        return
    if pipeline[0]:
        found.skipped.append(f"output of `{pipeline[0][0][:60]}` is not a file read or search")


def _expands(path: str) -> bool:
    return any(mark in path for mark in ("$", "`", "*", "?"))


_FIND_ACTIONS = {"-print", "-print0", "-printf", "-ls", "-fprint", "-fprintf", "-fls",
                 "-ok", "-okdir", "-delete"}


def _find_exec(words: list[str]) -> Search | str | None:
    """The search ``find … -exec grep … {} \\;`` (or ``{} +``) runs: its output is the
    grep's; None without ``-exec``; why not, when the output cannot be read."""
    starts = [i for i, w in enumerate(words) if w in ("-exec", "-execdir")]
    if not starts:
        return None
    if len(starts) > 1 or _FIND_ACTIONS & set(words):
        return "find with several actions: their output cannot be told apart"
    begin = starts[0] + 1
    end = next((i for i in range(begin, len(words)) if words[i] in (";", "+")), len(words))
    executed = _program(words[begin:end])
    batched = end < len(words) and words[end] == "+"
    if not executed or "{}" not in executed:
        return f"find -exec {executed[0][:60] if executed else ''} is not a search"
    arguments = [w for w in executed if w != "{}"]
    if words[starts[0]] == "-execdir":
        return "find -execdir names files relative to each directory"
    search = _search([*arguments[:1], *(["-H"] if batched else []), *arguments[1:]])
    if search is None or search.listing:
        return f"find -exec {executed[0][:60]} is not a search"
    if not search.with_names and not search.only_names:
        return "find -exec grep prints no file names (one file at a time, without -H)"
    return search


def _keeps_search_lines(words: list[str]) -> bool:
    name = words[0]
    if name in ("head", "tail"):
        return _head_tail_count(words)[0] is not None
    if name in ("grep", "egrep", "fgrep"):
        options, _ = _options_and_files(words)
        return not options & {"-c", "-o", "--count"}
    return _passes_lines(words)


def _numbered(lines: list[str]) -> list[tuple[int, tuple[str, ...]]]:
    from codegold.trajectories.outputs import numbered_runs

    return [(run.start, run.lines) for run in numbered_runs(lines, "tab")]


__all__ = ["NUMBERED", "interpret", "patch_changes"]
