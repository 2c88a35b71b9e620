"""What a shell command showed the model: file reads and searches deduced from the
command and the length of its output.

Only commands whose output can be attributed are read: one command that prints (``cd``,
``export`` and the like may precede it), optionally piped through line filters. A file
source is ``cat [-n] F``, ``nl [-ba] F``, ``head -n N F``, ``tail -n +K F`` (``tail -n N F``
when the file's length is known), ``sed -n 'a,bp' F``, ``awk 'NR>=a && NR<=b' F``, ``git show REV:PATH``; the
filters after it are ``head``, ``tail`` (``-n N`` only with the length known: a range's
end is a cap, the file may end sooner), ``sed -n 'a,bp'`` and, for numbered output (``cat -n``, ``nl -ba``), anything
that keeps lines whole (``grep``). Numbered output is read by its numbers; otherwise the
lines are those of the range the command names, as many as were printed. Searches are
``grep``/``egrep``/``rg``/``git grep`` (hits with lines when ``-n`` was given), ``find``.
Changes are ``sed -i``, a redirection into a file, ``tee``, ``git apply``/``patch`` of a
here-document, ``mv``/``cp``/``rm``/``touch`` of a file.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise

from codegold.plumbing.numbers import number
from codegold.trajectories.outputs import NUMBERED, grep_lines, path_list, split_lines
from codegold.trajectories.records import Change, Findings, Seen

_QUIET = {"cd", "export", "set", "source", ".", "true", ":", "unset", "alias", "pushd",
          "popd", "mkdir", "clear", "shopt", "ulimit", "umask", "trap"}
_WRAPPERS = {"sudo", "command", "builtin", "exec", "time", "nice", "nohup"}
_SEPARATORS = {"&&", "||", ";", "\n", "&", ";;"}
_SED_RANGE = re.compile(r"\s*(\d+)\s*(?:,\s*(\+?\d+|\$))?\s*p\s*;?\s*")
_SED_ADDRESS = re.compile(r"\s*(\d+)\s*(?:,\s*(\d+|\$))?")
_ERROR_LINE = re.compile(r"(cat|head|tail|sed|nl|grep|rg|git|find|ls|awk): ")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_DIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.M)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.M)
_GREP_VALUE_OPTIONS = set("ABCefmd") | {"--max-count", "--context", "--after-context",
                                         "--before-context", "--include", "--exclude",
                                         "--exclude-dir", "-g", "--glob", "-t", "--type",
                                         "-T", "--type-not", "-M", "--max-columns"}


LengthOf = Callable[[str, "str | None"], "int | None"]


@dataclass
class Stage:
    """One command of a pipeline: its words and where its stdout goes."""

    argv: list[str]
    stdout_to: str | None = None
    appends: bool = False


@dataclass
class Segment:
    stages: list[Stage] = field(default_factory=list)


@dataclass(frozen=True)
class Range:
    """Lines a file source prints: ``first``..``last`` (None: to the end)."""

    first: int
    last: int | None = None
    from_end: int | None = None  # tail -n N: the last N lines


def _unfold(text: str) -> str:
    """``text`` with unquoted newlines as ``;``, comments (``#`` starting a word) dropped
    and backslash-newline continuations joined, as bash reads a script."""
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\" and quote == '"' and index + 1 < len(text):
                out.append(text[index:index + 2])
                index += 2
                continue
            if char == quote:
                quote = ""
            out.append(char)
        elif char == "\\" and index + 1 < len(text):
            if text[index + 1] != "\n":
                out.append(text[index:index + 2])
            index += 2
            continue
        elif char in "'\"":
            quote = char
            out.append(char)
        elif char == "\n":
            out.append(" ; ")
        elif char == "#" and (not out or out[-1][-1:] in (" ", "\t", ";", "|", "&", "(")):
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
            continue
        else:
            out.append(char)
        index += 1
    return "".join(out)


def split_command(command: str) -> tuple[list[Segment], str]:
    """Segments (``a && b; c``) of pipelines of stages, and the here-document body."""
    head, body = command, ""
    heredoc = _HEREDOC.search(command)
    if heredoc:
        newline = command.find("\n", heredoc.end())
        if newline >= 0:
            head, body = command[:newline], command[newline + 1:]
    lexer = shlex.shlex(_unfold(head), posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    tokens = list(lexer)
    segments: list[Segment] = [Segment()]
    stage = Stage(argv=[])
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in _SEPARATORS or token == "|":
            segments[-1].stages.append(stage)
            stage = Stage(argv=[])
            if token != "|":
                segments.append(Segment())
        elif token in (">", ">>", ">|", "&>", "&>>", ">&"):
            target = tokens[index + 1] if index + 1 < len(tokens) else ""
            fd = stage.argv.pop() if stage.argv and stage.argv[-1] in ("1", "2") else "1"
            index += 1
            if target.startswith("&") or token == ">&":
                if target in ("&", "&1", "&2") and index + 1 < len(tokens) \
                        and tokens[index + 1].isdigit():
                    index += 1
            elif fd == "1" or token.startswith("&"):
                stage.stdout_to, stage.appends = target, token.endswith(">>")
        elif token in ("<", "<<", "<<<", "<<-"):
            index += 1  # the input file or here-document word
        else:
            stage.argv.append(token)
        index += 1
    segments[-1].stages.append(stage)
    kept = []
    for segment in segments:
        segment.stages = [s for s in segment.stages if s.argv or s.stdout_to]
        if segment.stages:
            kept.append(segment)
    return kept, body


def _program(argv: list[str]) -> list[str]:
    """``argv`` without ``sudo``/``env X=1``/``timeout 5`` wrappers and assignments."""
    words = list(argv)
    while words:
        first = posixpath.basename(words[0])
        if first in _WRAPPERS:
            words = words[1:]
        elif first == "env":
            words = words[1:]
            while words and ("=" in words[0] or words[0].startswith("-")):
                words = words[1:]
        elif first == "timeout":
            words = words[1:]
            while words and words[0].startswith("-"):
                words = words[1:]
            words = words[1:]
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
            words = words[1:]
        else:
            break
    if words:
        words[0] = posixpath.basename(words[0])
    return words


def _count(value: str) -> int | None:
    return number(value)


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
        elif word.startswith("-") and word != "-":
            pass
        else:
            files.append(word)
        if value is not None:
            plus = value.startswith("+")
            count = _count(value.lstrip("+-"))
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
            script = words[index + 1] if index + 1 < len(words) else ""
            index += 1
        elif re.fullmatch(r"-[nEr]+e?", word):
            quiet = quiet or "n" in word
            if word.endswith("e") and index + 1 < len(words):
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
    match = _SED_RANGE.fullmatch(script)
    if not match:
        return None
    first = number(match.group(1))
    last = match.group(2)
    end: int | None = first
    if last == "$":
        end = None
    elif last is not None and last.startswith("+"):  # GNU: a,+N is a..a+N
        plus = number(last[1:])
        end = first + plus if first is not None and plus is not None else 0
    elif last:
        end = number(last) or 0
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
            return Source(files[0], Range(1, count), numbered=False)
        if plus:
            return Source(files[0], Range(max(count, 1)), numbered=False)
        return Source(files[0], Range(1, None, from_end=count), numbered=False)
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


_AWK_RANGE = re.compile(r"\s*NR\s*>=?\s*(\d+)\s*&&\s*NR\s*<=?\s*(\d+)\s*"
                        r"(?:\{\s*print(?:\s+\$0)?\s*;?\s*\})?\s*")
_AWK_LINE = re.compile(r"\s*NR\s*==\s*(\d+)\s*(?:\{\s*print(?:\s+\$0)?\s*;?\s*\})?\s*")


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
            top = current.first + count - 1
            return Range(current.first, top if current.last is None else min(top, current.last))
        if plus:
            return Range(current.first + max(count, 1) - 1, current.last)
        if total is None:
            return None
        end = total if current.last is None else min(current.last, total)
        return Range(max(current.first, end - count + 1), end)
    if name == "sed":
        printed = _sed_print(words)
        if printed is None or printed[0] is None or printed[1]:
            return None
        inner = printed[0]
        first = current.first + inner.first - 1
        last = None if inner.last is None else current.first + inner.last - 1
        if current.last is not None:
            last = current.last if last is None else min(last, current.last)
        return Range(first, last)
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
    return name in ("sort", "uniq", "cat", "less", "more")


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
    if name in ("rg", "ag"):
        with_numbers = bool(options & {"-n", "--line-number", "--vimgrep"}) \
            and not options & {"-N", "--no-line-number"}
        if name == "ag":
            with_numbers = not options & {"--nonumbers"}
        single = len(files) == 1 and "/" not in files[0][-1:] and "." in posixpath.basename(files[0])
        with_names = not single and not options & {"-I", "--no-filename"}
        if options & {"-H", "--with-filename"}:
            with_names = True
    elif name == "git-grep":
        with_numbers = bool(options & {"-n", "--line-number"})
        with_names = not options & {"-h"}
        single = False
    else:
        with_numbers = bool(options & {"-n", "--line-number"})
        single = len(files) == 1 and not recursive
        with_names = (recursive or len(files) > 1 or bool(options & {"-H", "--with-filename"})) \
            and not options & {"-h", "--no-filename"}
    context = bool(options & {"-A", "-B", "-C", "--context", "--after-context",
                              "--before-context"})
    return Search(name.replace("git-grep", "git grep"), with_names, with_numbers, only_names,
                  files[0] if single and files else None, context)


def _changes(words: list[str], stage: Stage, body: str, cwd: str | None) -> list[Change]:
    """Files a stage writes: ``sed -i``, ``> FILE``, ``tee``, patches, ``mv``/``cp``/..."""
    changes: list[Change] = []
    if stage.stdout_to and stage.stdout_to not in ("/dev/null", "/dev/stdout", "/dev/stderr"):
        changes.append(Change(stage.stdout_to, cwd=cwd))
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
        changes.extend(Change(w, cwd=cwd) for w in words[1:] if not w.startswith("-"))
    elif name in ("patch",) or (name == "git" and len(words) > 1 and words[1] == "apply"):
        changes.extend(patch_changes(body, cwd))
    elif name in ("mv", "cp", "rm", "touch", "truncate", "chmod", "ln"):
        operands = [w for w in words[1:] if not w.startswith("-")]
        targets = operands[-1:] if name in ("mv", "cp", "ln") else operands
        changes.extend(Change(w, cwd=cwd) for w in targets)
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


def interpret(command: str, output: str | None, cwd: str | None, *,
              length_of: LengthOf) -> Findings:
    """What ``command`` showed (from ``output``) and changed. ``length_of(path, cwd)`` is
    a file's length when the trajectory showed it earlier (for ``tail -n N``). Output cut
    at its end (too long) still shows its first lines, so it is placed as it is: every
    range here is anchored at its first line."""
    found = Findings()
    try:
        segments, body = split_command(command)
    except ValueError:
        found.skipped.append("shell command codegold cannot split (unbalanced quotes)")
        return found
    printers: list[tuple[list[list[str]], str | None]] = []
    for segment in segments:
        for stage in segment.stages:
            words = _program(stage.argv)
            found.changes.extend(_changes(words, stage, body, cwd))
        words = _program(segment.stages[0].argv) if segment.stages else []
        if words and words[0] == "cd":
            target = words[1] if len(words) > 1 else None
            if target and target != "-":
                cwd = posixpath.normpath(posixpath.join(cwd or "", target)) if not \
                    target.startswith("/") else posixpath.normpath(target)
            continue
        if not words or words[0] in _QUIET:
            continue
        if segment.stages[-1].stdout_to:
            continue  # its output went to a file, not to the model
        if words[0] == "sed" and any(w.startswith("-i") for w in words[1:]):
            continue
        printers.append(([_program(s.argv) for s in segment.stages], cwd))
    if output is None or not output.strip() or not printers:
        return found
    if len(printers) > 1:
        found.skipped.append("output of several commands that cannot be told apart")
        return found
    pipeline, cwd = printers[0]
    lines = split_lines(output)
    if lines and _ERROR_LINE.match(lines[0]):
        found.skipped.append(f"{pipeline[0][0]} reported an error")
        return found
    source = _file_source(pipeline[0]) if pipeline[0] else None
    if source is not None:
        where = None if source.from_root else cwd
        runs = _numbered(lines) if source.numbered else []
        if runs and all(_lines_keep_numbers(w) for w in pipeline[1:] if w):
            found.seen.extend(Seen(path=source.path, kind="read", start=start, lines=texts,
                                   cwd=where) for start, texts in runs)
            return found
        source = Source(source.path, source.range, numbered=False, from_root=source.from_root)
        placed = _lines_of(source, lines, length_of, cwd, [w for w in pipeline[1:] if w])
        if isinstance(placed, str):
            found.skipped.append(placed)
            return found
        first, texts = placed
        if texts:
            found.seen.append(Seen(path=source.path, kind="read", start=first,
                                   lines=tuple(texts), cwd=where))
            if source.range == Range(1) and len(pipeline) == 1:  # the whole file
                found.lengths.append((source.path, where, len(texts)))
        return found
    search = _search(pipeline[0]) if pipeline[0] else None
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
            found.seen.extend(path_list(output, cwd))
        else:
            found.seen.extend(grep_lines(output, with_names=search.with_names,
                                         with_numbers=search.with_numbers,
                                         only_names=search.only_names,
                                         single_file=search.single_file,
                                         context=search.context, cwd=cwd))
        return found
    if pipeline[0]:
        found.skipped.append(f"output of `{pipeline[0][0]}` is not a file read or search")
    return found


def _keeps_search_lines(words: list[str]) -> bool:
    name = words[0]
    if name in ("head", "tail"):
        return _head_tail_count(words)[0] is not None
    if name in ("grep", "egrep", "fgrep"):
        options, _ = _options_and_files(words)
        return not options & {"-c", "-o", "--count"}
    return name in ("sort", "uniq", "cat")


def _numbered(lines: list[str]) -> list[tuple[int, tuple[str, ...]]]:
    from codegold.trajectories.outputs import numbered_runs

    return [(run.start, run.lines) for run in numbered_runs(lines, "tab")]


__all__ = ["NUMBERED", "interpret", "patch_changes", "split_command"]
