"""Untrusted text made safe for a terminal, for rich, and for Markdown.

Case ids, queries, file paths, excerpts and repository text come from people and tools
codegold does not control. On a terminal an escape sequence in them can recolour the
screen, set the window title or write the clipboard (OSC 52); a bidi override can make a
line read differently from what it holds. In rich output ``[/bold]`` is markup (and a
crash when unbalanced). In Markdown ``![](url)`` loads an image and ``|`` opens a cell.

:func:`terminal_safe` shows every such character as a visible escape (``\\x1b``,
``\\u202e``), :func:`rich_safe` also escapes rich markup, and the ``md_*`` functions are
the one Markdown escaper every page codegold writes goes through. :func:`json_loads`
reads JSON found inside untrusted text (a tool's result, arguments in a string) without
the lone surrogates UTF-8 cannot write.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.text import Text

# Characters a terminal or a renderer acts on instead of showing: C0 and C1 controls and
# DEL (Cc), format characters such as bidi overrides and zero-width marks (Cf), line and
# paragraph separators (Zl, Zp) and lone surrogates (Cs, from undecodable bytes). The
# list is checked against unicodedata in the tests.
_C0_LINE = "\x00-\x1f"
_C0_BLOCK = "\x00-\x08\x0b-\x1f"  # keeps tab and newline
_OTHER_INVISIBLE = (
    "\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_UNSAFE_LINE = re.compile(f"[{_C0_LINE}{_OTHER_INVISIBLE}]")
_UNSAFE_BLOCK = re.compile(f"[{_C0_BLOCK}{_OTHER_INVISIBLE}]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def terminal_safe(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control, escape, bidi and invisible format character shown as
    a visible escape (ESC becomes ``\\x1b``, U+202E becomes ``\\u202e``).

    With ``multiline`` newlines and tabs are kept (an excerpt, a chunk's text); otherwise
    they are escaped too, so one value stays on one line.
    """
    pattern = _UNSAFE_BLOCK if multiline else _UNSAFE_LINE
    if multiline:
        text = text.replace("\r\n", "\n")
    return pattern.sub(_visible, text)


def html_text(text: str) -> str:
    """``text`` for an HTML page: controls, bidi overrides and invisible format characters
    shown as visible escapes (as :func:`terminal_safe` does, newlines and tabs kept), then
    ``&``, ``<``, ``>`` and quotes escaped. A character reference would not do: the
    browser turns ``&#x202e;`` back into the override."""
    from html import escape

    return escape(terminal_safe(text, multiline=True))


def json_visible(raw_json: str) -> str:
    """JSON text whose strings show every invisible or bidi character as its visible
    escape once decoded (``\\u202e`` in the source decodes to the six characters
    ``\u202e``); for JSON a page's script renders as text. ASCII controls are already
    escaped by any JSON encoder; the non-ASCII ones are written raw and handled here."""
    return _UNSAFE_BLOCK.sub(lambda match: "\\" + _visible(match), raw_json)


# What rich reads as a tag (rich.markup.RE_TAGS), with the backslashes before it.
_RICH_TAG = re.compile(r"(\\*)(\[[a-zA-Z#/@][^[]*?])")
_BACKSLASHED_BRACKET = re.compile(r"(\\+)\[")


def rich_safe(text: str, *, multiline: bool = False) -> str:
    """:func:`terminal_safe` text made literal for ``console.print`` markup strings.

    rich reads ``[word]`` as a tag (n backslashes before it print n // 2 backslashes and,
    when n is odd, the tag as text), drops one backslash before any other ``[``, and lets
    trailing backslashes escape whatever markup follows: each of the three is undone here
    (``rich.markup.escape`` handles only the first).
    """
    text = terminal_safe(text, multiline=multiline)
    out: list[str] = []
    position = 0
    for match in _RICH_TAG.finditer(text):
        out.append(_BACKSLASHED_BRACKET.sub(r"\1\\[", text[position:match.start()]))
        out.append("\\" * (2 * len(match.group(1)) + 1) + match.group(2))
        position = match.end()
    tail = _BACKSLASHED_BRACKET.sub(r"\1\\[", text[position:])
    kept = tail.rstrip("\\")
    out.append(kept + "\\" * (2 * (len(tail) - len(kept))))
    return "".join(out)


def rich_text(text: str, *, multiline: bool = False, style: str = "") -> Text:
    """A ``rich.text.Text`` of untrusted text: never parsed as markup, controls visible."""
    from rich.text import Text

    return Text(terminal_safe(text, multiline=multiline), style=style)


# --- Markdown ---------------------------------------------------------------------------

_MD_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
# ASCII punctuation CommonMark or GitHub gives a meaning to anywhere in a line: emphasis,
# code, links and images, headings, tables, strikethrough, math. List and quote markers
# only count at the start of a line: see _LINE_START. Parentheses are left as they are: a
# link's destination opens only right after a ``]``, which is escaped.
_MD_SPECIAL = re.compile(r"[\\`*_{}\[\]#|!~$<>&]")
_LINE_START = re.compile(r"^(\s*\d{0,9})([-+=.)])(?=\s|$|[-=\s]*$)")


def md_text(text: str) -> str:
    """Untrusted text as inline Markdown, also safe inside a table cell.

    Renders as the literal text: no emphasis, code, link, image, HTML tag, heading, list
    or new cell; newlines become spaces; controls are shown as escapes.
    """
    text = terminal_safe(text.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    lead = ""
    marker = _LINE_START.match(text)
    if marker:  # a list or setext marker at the start ("- ", "+ ", "1. ", "2) ", "==")
        lead = marker.group(1) + "\\" + marker.group(2)
        text = text[marker.end():]
    return lead + _MD_SPECIAL.sub(_md_escape, text)


def _md_escape(match: re.Match[str]) -> str:
    ch = match.group()
    return _MD_ENTITIES.get(ch) or "\\" + ch


def md_code(text: str, *, cell: bool = False) -> str:
    """Untrusted text as an inline code span, whatever backticks it holds.

    The delimiter is one backtick longer than the longest run inside, padded with a space
    when the text starts or ends with a backtick. Inside a table (``cell``) a ``|`` is
    written ``\\|``, which GitHub tables require even in code spans.
    """
    text = terminal_safe(text.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    if not text:
        return "` `"
    # CommonMark strips one space from each end when both ends have one: pad to keep them.
    pad = " " if (text[0] == "`" or text[-1] == "`"
                  or (text[0] == " " and text[-1] == " " and text.strip())) else ""
    if cell:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


def md_cell(text: str) -> str:
    """Untrusted text in a Markdown table cell (same as :func:`md_text`)."""
    return md_text(text)


def md_fence(text: str, *, info: str = "") -> str:
    """Untrusted multi-line text as a fenced code block it cannot close early.

    The fence is longer than any backtick run inside; controls (other than newline and
    tab) are shown as escapes.
    """
    text = terminal_safe(text, multiline=True)
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{md_text(info) if info else ''}\n{text}\n{fence}"


def plain_table(headers: tuple[str, ...], rows: list[tuple[str, ...]], *,
                indent: str = "") -> list[str]:
    """Rows in aligned columns for a terminal: no Markdown, each value :func:`terminal_safe`
    (one line each), a column as wide as its widest value."""
    cells = [tuple(terminal_safe(value) for value in row) for row in rows]
    widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(headers)]
    out = []
    for row in (headers, *cells):
        out.append((indent + "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True))
                    ).rstrip())
    return out


_MD_UNESCAPE = re.compile(r"\\([\\`*_{}\[\]()#|!~$<>&+=.)-])")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_RULE_ROW = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")
_TAGS = re.compile(r"</?(details|summary|sub)>")


def _plain_md(text: str) -> str:
    text = _MD_UNESCAPE.sub(r"\1", text.replace("**", ""))
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def markdown_for_terminal(text: str) -> str:
    """Markdown that codegold wrote (headings, tables, escaped text) as a terminal shows
    it: tables in aligned columns, no escapes, entities, emphasis or HTML tags. What the
    Markdown escaped was already :func:`terminal_safe`, so nothing unsafe comes back."""
    out: list[str] = []
    table: list[tuple[str, ...]] = []

    def flush() -> None:
        if table:
            width = max(len(row) for row in table)
            rows = [row + ("",) * (width - len(row)) for row in table]
            out.extend(plain_table(rows[0], rows[1:]))
            table.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|"):
            if not _RULE_ROW.match(stripped):
                cells = _CELL_SPLIT.split(stripped[1:-1])
                table.append(tuple(_plain_md(cell.strip()) for cell in cells))
            continue
        flush()
        line = _TAGS.sub("", line)
        if line.lstrip().startswith("#"):
            line = line.lstrip().lstrip("#").strip()
        out.append(_plain_md(line))
    flush()
    return "\n".join(out).rstrip("\n") + "\n"


# JSON may spell a lone UTF-16 surrogate (``"\ud83d"``: a tool output cut inside an emoji,
# bytes a Python program decoded with surrogateescape), which Python's reader keeps as a
# code point UTF-8 cannot write: a value read so and written into an attempt would stop
# the whole output with a UnicodeEncodeError.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def mend_surrogates(text: str) -> str:
    """``text`` with each lone surrogate as U+FFFD, the replacement character."""
    return LONE_SURROGATE.sub("\ufffd", text) if LONE_SURROGATE.search(text) else text


def json_loads(text: str) -> Any:
    """``json.loads`` of untrusted text (its errors too), lone surrogates in the strings
    and keys of the value it decodes mended (:func:`mend_surrogates`)."""
    value = json.loads(text)
    if _SURROGATE_ESCAPE.search(text) is None and LONE_SURROGATE.search(text) is None:
        return value
    return mend_json(value)


def mend_json(value: Any) -> Any:
    """A decoded JSON value (dicts, lists, strings, numbers) with every string mended,
    walked without recursion (a value nested as deep as a reader allows is walked too)."""
    if isinstance(value, str):
        return mend_surrogates(value)
    if not isinstance(value, dict | list):
        return value
    root: list[Any] = [value]
    pending: list[tuple[Any, Any]] = [(root, 0)]  # (container, key) whose value to mend
    while pending:
        holder, key = pending.pop()
        item = holder[key]
        if isinstance(item, str):
            holder[key] = mend_surrogates(item)
        elif isinstance(item, list):
            pending.extend((item, index) for index in range(len(item)))
        elif isinstance(item, dict):
            mended = {mend_surrogates(k) if isinstance(k, str) else k: v
                      for k, v in item.items()}
            holder[key] = mended
            pending.extend((mended, name) for name in mended)
    return root[0]
