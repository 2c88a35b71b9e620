"""Byte rewriting shared by the languages whose grammars cannot read a preprocessor:
every rewrite keeps each row and byte offset of the file (what is dropped becomes blanks)."""

from __future__ import annotations

import re


def spaces(data: bytes) -> bytes:
    """``data`` as spaces, its newlines kept (rows stay put)."""
    return re.sub(rb"[^\n]", b" ", data)


def blank(match: re.Match[bytes], group: int | str = 0) -> bytes:
    """``match`` with ``group`` turned into spaces (newlines kept: rows stay put)."""
    start, end = match.span(group)
    text = match.group(0)
    offset = match.start(0)
    return (text[:start - offset] + spaces(text[start - offset:end - offset])
            + text[end - offset:])



_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elifdef|elifndef|elif|else|endif)\b")
_OPENING_DIRECTIVES = frozenset({b"if", b"ifdef", b"ifndef"})
_BRANCH_DIRECTIVES = frozenset({b"elif", b"elifdef", b"elifndef", b"else"})
# C-family literals whose braces are no block's: a verbatim string (``@"..."``, quotes
# doubled, over lines), a one-line string or character (an interpolated string's holes
# hold no unbalanced brace).
VERBATIM_STRING = rb'@"(?:[^"]|"")*"'
LINE_LITERAL = rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
# What a line's braces are counted without: strings, characters and line comments.
_NOT_BRACES = re.compile(VERBATIM_STRING + b"|" + LINE_LITERAL + rb"|//.*")


# A line of code after which a declaration goes on: a signature (``)``), a generic
# constraint or type (``where T : class``, ``>``).
_DECLARATION_GOES_ON = re.compile(rb"[)>\w]$")


def _body_follows(lines: list[bytes], index: int) -> bool:
    """Whether the first line of code after row ``index`` opens a body (``{``, ``=>``):
    the conditional that ends there holds alternative signatures."""
    for line in lines[index + 1:index + 50]:
        code = line.strip()
        if code and not code.startswith((b"//", b"#")):
            return code.startswith((b"{", b"=>"))
    return False


_ELSE = re.compile(rb"else\b")


def _else_follows(lines: list[bytes], index: int) -> bool:
    """Whether the first line of code after row ``index`` continues an ``if`` chain
    (``else``, ``else if``): the conditional that ends there sits inside that chain."""
    for line in lines[index + 1:index + 50]:
        code = line.strip()
        if code and not code.startswith((b"//", b"#")):
            return _ELSE.match(code) is not None
    return False


def first_branch_only(data: bytes, alternatives_only: bool = False,
                       declarations: bool = False, inside_blocks: bool = False) -> bytes:
    """Blank (rows and byte offsets kept) a conditional whose branches do not each close
    the braces they open (``#if X`` ``if (a) {`` ``#else`` ``var a = b;`` ``#endif``): the
    grammar reads a conditional as a node of complete statements, so such a one ends the
    enclosing class early. Its directive lines and every branch but the first become
    blank, and the first branch is read as plain code, as the compiler would read it with
    the condition set (with ``alternatives_only``, only a conditional with an ``#else`` or
    ``#elif``). Conditionals whose branches balance (members under ``#if`` and
    ``#else``) keep them all, except, with ``declarations`` (C#), one that continues a
    declaration or holds its alternative signatures, and except one inside an ``if``
    chain (a branch that starts with ``else``, or an ``else`` right after ``#endif``):
    a grammar cannot read an ``else`` as a statement of its own, and the class that holds
    it ended there (a C# class lost every method after such a conditional). With
    ``inside_blocks`` (C, C++), a conditional without an ``#else`` is read so too when it
    sits inside a block (a function's body): ``#ifdef X`` ``} else {`` ``#endif`` and,
    later, ``#ifdef X`` ``}`` ``#endif`` (jq's printer) close each other's blocks only
    read as plain code."""
    if b"#" not in data:
        return data
    lines = data.split(b"\n")
    # Per open conditional: its branches, each [directive line index, brace balance,
    # whether its first line of code is an ``else`` (1), is not (0), or is not read yet (-1)].
    frames: list[list[list[int]]] = []
    balance = [0]  # the brace balance of the innermost branch being read (outermost first)
    depths: list[int] = []  # per open conditional: the brace depth it opened at
    # Rows to blank as a difference array: +1 where a blank run starts, -1 past its end
    # (runs nest, so marking them row by row could cost rows times depth).
    marks = [0] * (len(lines) + 1)
    continued = False  # a line continuing a directive (C's `#define X \`)
    # Conditionals that continue a declaration (``void Write(...)`` ``#if X`` ``{ ... }``
    # ``#else`` ``;`` ``#endif``) or hold its alternative signatures (``#if X`` ``void
    # F(Span<T> a)`` ``#else`` ``void F(T[] a)`` ``#endif`` ``{``): the grammar reads
    # none of their branches as a member.
    continuing: set[int] = set()
    last_code = b";"  # the last line of code so far, stripped
    for index, line in enumerate(lines):
        directive = _DIRECTIVE.match(line)
        in_directive = continued or line.lstrip().startswith(b"#")
        continued = in_directive and line.rstrip().endswith(b"\\")
        if directive is None:
            if in_directive:  # a macro's braces are not the code's
                continue
            text = _NOT_BRACES.sub(b"", line)
            balance[-1] += text.count(b"{") - text.count(b"}")
            code = text.strip()
            if code and not code.startswith((b"#", b"/*", b"*")):
                last_code = code
                if frames and frames[-1][-1][2] < 0:
                    frames[-1][-1][2] = int(_ELSE.match(code) is not None)
            continue
        word = directive.group(1)
        if word in _OPENING_DIRECTIVES:
            if declarations and _DECLARATION_GOES_ON.search(last_code):
                continuing.add(len(frames))
            frames.append([[index, 0, -1]])
            depths.append((depths[-1] if depths else 0) + balance[-1])
            balance.append(0)
        elif not frames:
            continue  # a stray #else or #endif: nothing to pair it with
        elif word in _BRANCH_DIRECTIVES:
            frames[-1][-1][1] = balance[-1]
            frames[-1].append([index, 0, -1])
            balance[-1] = 0
        else:
            goes_on = declarations and (len(frames) - 1 in continuing
                                        or _body_follows(lines, index))
            continuing.discard(len(frames) - 1)
            branches = frames.pop()
            branches[-1][1] = balance.pop()
            in_block = inside_blocks and depths.pop() > 0
            in_chain = any(b[2] == 1 for b in branches) or _else_follows(lines, index)
            if goes_on or in_chain or (any(b[1] != 0 for b in branches)
                           and (len(branches) > 1 or not alternatives_only or in_block)):
                for row in (*(b[0] for b in branches[:2]), index):
                    marks[row] += 1
                    marks[row + 1] -= 1
                if len(branches) > 1:  # every later branch, its directives included
                    marks[branches[1][0]] += 1
                    marks[index] -= 1
            balance[-1] += branches[0][1]
    depth = 0
    blanked = False
    for row, mark in enumerate(marks[:-1]):
        depth += mark
        if depth > 0:
            lines[row] = b" " * len(lines[row])
            blanked = True
    return b"\n".join(lines) if blanked else data

