"""Chunkers for documents and configuration: Markdown/reST by heading, YAML/TOML/JSON by
top-level key. Both cut oversized sections with :func:`codegold.index.drafts.windows`.

Every heading and every top-level key (a TOML table included) is also recorded as a
definition (:class:`codegold.index.structure.SymbolSpan`), held by the part holding its
line, so the symbol table knows every name a chunk carries: span resolution and
``cases check`` read the symbol table only. A heading's span is its section (to the next
heading), a key's to the next key or table, a table's to the next table.
"""

from __future__ import annotations

import re

from codegold.index.drafts import Draft, Lines, clip_header, fits, windows
from codegold.index.holding import HEADER_OVERLAP, overlap
from codegold.index.structure import SymbolSpan

_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_RST_UNDERLINE = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")
CONFIG_SECTION_LINES = 80


def _sections(lines: Lines, headings: list[tuple[int, str]], kind: str, role: str
              ) -> list[Draft]:
    """One draft per heading's section (a preamble before the first heading included)."""
    starts = [(0, None)] if not headings or headings[0][0] > 0 else []
    bounds: list[tuple[int, str | None]] = [*starts, *headings]
    drafts: list[Draft] = []
    for index, (start, title) in enumerate(bounds):
        end = bounds[index + 1][0] - 1 if index + 1 < len(bounds) else len(lines) - 1
        if end < start:
            continue
        if not lines.text(start, end).strip():
            continue
        symbols = (title,) if title else ()
        defines = (SymbolSpan(title, title, "heading", role, start, end, start),) if title else ()
        group = len(drafts)
        if fits(lines, start, end):
            drafts.append(Draft(start=start, end=end, kind=kind, symbol=title, symbols=symbols,
                                role=role, text=lines.text(start, end), has_signature=True,
                                group=group, defines=defines))
            continue
        heading = clip_header(lines.items[start])
        for part, (s, e, text) in enumerate(windows(lines, start, end)):
            drafts.append(Draft(
                start=s, end=e, kind=kind, symbol=title, symbols=symbols, role=role,
                text=text if part == 0 else f"{heading}\n{text}", has_signature=True,
                group=group, defines=defines if part == 0 else ()))
    return drafts


def markdown_drafts(lines: Lines) -> list[Draft]:
    headings: list[tuple[int, str]] = []
    in_fence = False
    for row, line in enumerate(lines.items):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        atx = _ATX.match(line)
        if atx:
            headings.append((row, atx.group(2) or atx.group(1)))
            continue
        if (row > 0 and _SETEXT.match(line) and lines.items[row - 1].strip()
                and not _ATX.match(lines.items[row - 1])
                and (not headings or headings[-1][0] != row - 1)):
            headings.append((row - 1, lines.items[row - 1].strip()))
    return _sections(lines, headings, "section", "docs")


def rest_drafts(lines: Lines) -> list[Draft]:
    headings: list[tuple[int, str]] = []
    items = lines.items
    for row in range(1, len(items)):
        title = items[row - 1].rstrip()
        if (_RST_UNDERLINE.match(items[row]) and title.strip()
                and not _RST_UNDERLINE.match(title)
                and len(items[row].rstrip()) >= len(title.strip())):
            has_overline = row >= 2 and _RST_UNDERLINE.match(items[row - 2]) is not None
            headings.append((row - 2 if has_overline else row - 1, title.strip()))
    headings = sorted(dict(headings).items())
    return _sections(lines, headings, "section", "docs")


_YAML_KEY = re.compile(r"^([A-Za-z0-9_.\-\"']+)\s*:")
# A header is the whole line (a comment aside): `["mypy"],` inside an array is not one.
_TOML_TABLE = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-\s\"']+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'")
_TOML_KEY = re.compile(r"^([A-Za-z0-9_.\-\"']+)\s*=")
_JSON_KEY = re.compile(r'^\s{0,4}"([^"]+)"\s*:')


def config_drafts(lines: Lines, language: str | None) -> list[Draft]:
    """Config files: whole when small; otherwise cut at top-level keys (YAML/JSON) or
    tables (TOML). Symbols are the top-level keys a chunk holds."""
    keys: list[tuple[int, str]] = []
    # Where a chunk may start. A TOML table header stays with its keys: after the first
    # header only headers cut (a key inside a table is never the first line of a chunk,
    # so a header is never the last line of the chunk before its keys).
    cuts: set[int] = {0}
    tables: dict[int, str] = {}  # rows of TOML table headers, and their text
    json_indent: int | None = None
    open_brackets = 0  # TOML: inside a multi-line array or inline table
    for row, line in enumerate(lines.items):
        if language == "yaml":
            match = _YAML_KEY.match(line)
        elif language == "toml":
            inside = open_brackets > 0
            code = _TOML_STRING.sub('""', line).split("#", 1)[0]
            open_brackets = max(0, open_brackets + code.count("[") + code.count("{")
                                - code.count("]") - code.count("}"))
            if inside:
                continue
            table = _TOML_TABLE.match(line)
            if table:
                open_brackets = 0
            match = table or _TOML_KEY.match(line)
            if table:
                tables[row] = line.strip()
                cuts.add(row)
            elif match and not tables:
                cuts.add(row)
            if match:
                keys.append((row, match.group(1).strip("\"'")))
            continue
        else:
            match = _JSON_KEY.match(line)
            if match:
                indent = len(line) - len(line.lstrip())
                json_indent = indent if json_indent is None else json_indent
                if indent != json_indent:
                    match = None
        if match:
            keys.append((row, match.group(1).strip("\"'")))
            cuts.add(row)
    if not len(lines):
        return []
    last = len(lines) - 1
    spans = _key_spans(keys, set(tables), last)
    if fits(lines, 0, last) and len(lines) <= CONFIG_SECTION_LINES * 2:
        symbols = tuple(dict.fromkeys(k for _, k in keys))
        return [Draft(start=0, end=last, kind="config", symbol=symbols[0] if symbols else None,
                      symbols=symbols, role="config", text=lines.text(0, last),
                      has_signature=True, group=0, defines=spans)]
    cut_rows = sorted(cuts)
    segments = [(row, (cut_rows[i + 1] - 1) if i + 1 < len(cut_rows) else last)
                for i, row in enumerate(cut_rows)]
    groups: list[tuple[int, int]] = []
    for seg_start, seg_end in segments:
        if groups and seg_end - groups[-1][0] + 1 <= CONFIG_SECTION_LINES:
            groups[-1] = (groups[-1][0], seg_end)
        else:
            groups.append((seg_start, seg_end))
    drafts: list[Draft] = []
    for group_start, group_end in groups:
        for part, (s, e, text) in enumerate(windows(lines, group_start, group_end,
                                                    max_lines=CONFIG_SECTION_LINES)):
            # a window carries the keys it holds by the rule span resolution judges any
            # window by: a later window of a long table holds the key it lies in, not
            # the table (a container is held by its header or its head only)
            symbols = tuple(dict.fromkeys(d.name for d in spans if _holds(d, spans, s, e)))
            # A long table's later windows repeat its header (which table the keys are in).
            header = max((r for r in tables if r <= s), default=None)
            if part and header is not None and header < s:
                text = f"{tables[header]}\n{text}"
            drafts.append(Draft(start=s, end=e, kind="config",
                                symbol=symbols[0] if symbols else None, symbols=symbols,
                                role="config", text=text, has_signature=True,
                                group=len(drafts),
                                defines=tuple(d for d in spans if s <= d.header <= e)))
    return drafts


def _holds(span: SymbolSpan, spans: tuple[SymbolSpan, ...], start: int, end: int) -> bool:
    """Whether rows ``start..end`` hold ``span`` (see :mod:`codegold.index.holding`)."""
    if start <= span.header_row <= end:
        return True
    head_end = span.end
    if span.kind == "table":  # a container: only its head, up to its first key, counts
        head_end = min((d.start - 1 for d in spans
                        if d.kind == "key" and span.start < d.start <= span.end),
                       default=span.end)
    return overlap(start, end, span.start, max(span.start, head_end)) >= \
        HEADER_OVERLAP * (end - start + 1)


def _key_spans(keys: list[tuple[int, str]], tables: set[int], last: int
               ) -> tuple[SymbolSpan, ...]:
    """A definition per key: a key runs to the row before the next key or table, a TOML
    table (a container: its keys are its members) to the row before the next table."""
    rows = [row for row, _ in keys]
    table_rows = sorted(tables)
    spans = []
    for index, (row, name) in enumerate(keys):
        if row in tables:
            later = [r for r in table_rows if r > row]
            end, kind = (later[0] - 1 if later else last), "table"
        else:
            end, kind = (rows[index + 1] - 1 if index + 1 < len(rows) else last), "key"
        spans.append(SymbolSpan(name, name, kind, "config", row, max(row, end), row))
    return tuple(spans)
