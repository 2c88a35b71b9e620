"""Chunk one file: choose a chunker, cut drafts, then fix ids, roles and neighbours.

``chunk_file`` is pure: bytes in, :class:`FileChunks` out. The build calls it for every
blob; ``codegold index parse FILE`` and diagnose's metadata check call it for one file.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
from collections.abc import Iterable
from dataclasses import replace

from tree_sitter import Node

from codegold.index.categories import CATEGORY_ROLES, categorize, is_declaration_file
from codegold.index.drafts import (
    MAX_CHUNK_CHARS,
    Draft,
    Lines,
    clip_header,
    fits,
    line_drafts,
    windows,
)
from codegold.index.fingerprint import chunker_fingerprint
from codegold.index.grammars import (
    STRUCTURAL_LANGUAGES,
    Deadline,
    OverBudget,
    QueryTooSlow,
    compile_queries,
    parse_budget,
    parse_source,
    parse_tree,
    structure_matches,
    tags_query,
)
from codegold.index.records import FileChunks, IndexedChunk, InventoryEntry, Reference, SymbolDef
from codegold.index.structure import Region, SymbolSpan, flat_definitions, structural_regions
from codegold.index.textchunks import config_drafts, markdown_drafts, rest_drafts
from codegold.model.languages import CONFIG_LANGUAGES, language_of

CHUNKER_NAME = "codegold-structural"
# The declared version, plus a fingerprint of what decides chunk boundaries, ids, symbols
# and roles for the same bytes: the chunker's own sources and query files and the
# tree-sitter and grammar releases. It is part of the index build id, and incremental
# builds and the chunk store reuse only rows written by the same version, so a change to
# any of these can never leave stale chunks that claim to be current.
CHUNKER_VERSION = f"1+{chunker_fingerprint()}"
# The version of the rules that make chunks, part of every chunk id with what the chunk
# is (path, blob, span, kind, symbol, text). Chunk ids break ties in ranking, so they
# must not move when codegold's sources do without changing a row (a refactor moved the
# demo's MRR between 0.800 and 0.812 when ids hashed the sources); bump it when a change
# should give chunks that look the same new ids.
CHUNKER_RULES_VERSION = "1"

LONG_LINE_CHARS = 4_000
# A file is minified (line windows, no structure) when a line over LONG_LINE_CHARS reads
# like packed code: at least MINIFIED_PUNCTUATION_SHARE of its characters are statement
# and block punctuation (``;``, ``{``, ``}``) outside the parse's string literals and
# comments; minified JavaScript is 5-15 %. A long string or data literal (a data URI, an
# embedded table, ANSI escapes, JSON) in an ordinary file is below it, so the
# file keeps its structure and symbols, and only that line is cut to bound chunk sizes.
MINIFIED_PUNCTUATION_SHARE = 0.03
SYNTAX_ERROR_SHARE = 0.3
# The syntax nodes _packed_outside_literals visits at most looking for string literals.
MINIFIED_WALK_NODES = 50_000
# A file whose packed lines (by the text rule) hold more characters than this is read as
# minified from its bytes, never parsed: tree-sitter takes 300-400 bytes of memory per
# byte of packed code (a 50 MB line of Ruby: 15.7 GB), so only a file this small gets its
# string literals left out of the count and its definitions named.
MINIFIED_PARSE_CHARS = 256_000


def git_blob_sha(data: bytes) -> str:
    """The id git gives these bytes as a blob, so a file parsed alone gets the same
    chunk ids as in an index of a revision holding it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def chunk_file(path: str, data: bytes, *, revision: str = "", blob_sha: str = "") -> FileChunks:
    """Chunk ``data`` found at repository path ``path``.

    Never raises for file content: binary data, invalid UTF-8, syntax errors and huge
    lines all end up as an inventory fate and reason.
    """
    blob = blob_sha or git_blob_sha(data)
    language = language_of(path)
    category = categorize(path, data, language)

    def entry(fate: str, reason: str | None, chunker: str | None, count: int) -> InventoryEntry:
        return InventoryEntry(path=path, blob_sha=blob, size=len(data), language=language,
                              category=category, fate=fate, reason=reason, chunker=chunker,
                              chunks=count)

    if category == "binary":
        return FileChunks(entry=entry("skipped", "binary (NUL byte in the first 8000 bytes)",
                                      None, 0))
    notes: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        notes.append("invalid UTF-8: decoded with replacement characters")
    lines = Lines(text)
    if not text.strip():
        return FileChunks(entry=entry("indexed", "; ".join([*notes, "empty file"]), None, 0))

    fate = "indexed"
    calls: list[tuple[str, int]] = []
    if language in STRUCTURAL_LANGUAGES:
        packed = is_minified(lines)
        budget = parse_budget(len(data))
        if packed and _long_line_chars(lines) > MINIFIED_PARSE_CHARS:
            drafts, chunker, fate = line_drafts(lines), "lines", "fallback"
            notes.append(f"minified (a line over {LONG_LINE_CHARS} characters of packed "
                         f"code, over {MINIFIED_PARSE_CHARS} characters of such lines): "
                         "lines fallback, not parsed")
        else:
            # Grammars and queries are loaded and compiled before the clock starts (a
            # query takes up to a third of a second to compile, more on a busy machine).
            compile_queries([language, "c" if language == "cpp" else None])
            if packed:
                tags_query(language)
            try:
                drafts, chunker, fate, language, calls, found = _structural(
                    path, data, lines, language, category, packed, Deadline(budget))
                notes.extend(found)
            except QueryTooSlow as err:
                drafts, chunker, fate = line_drafts(lines), "lines", "fallback"
                notes.append(f"{err.reason}: lines fallback, not queried")
            except OverBudget as err:
                drafts, chunker, fate = line_drafts(lines), "lines", "fallback"
                notes.append(f"{err.stage} took over its {budget:.1f} s budget "
                             f"({len(data)} bytes): lines fallback")
    elif language == "markdown":
        drafts, chunker = markdown_drafts(lines), "markdown"
    elif language == "rest":
        drafts, chunker = rest_drafts(lines), "rest"
    elif language in CONFIG_LANGUAGES:
        drafts, chunker = config_drafts(lines, language), "config"
    else:
        drafts, chunker, fate = line_drafts(lines), "lines", "fallback"
        notes.append(f"no structural chunker for {language}" if language
                     else "unknown file type: lines fallback")
    return _finalize(path, blob, revision, language, category, drafts, calls,
                     entry(fate, "; ".join(notes) or None, chunker, len(drafts)))


def _structural(path: str, data: bytes, lines: Lines, language: str, category: str,
                packed: bool, deadline: Deadline
                ) -> tuple[list[Draft], str, str, str, list[tuple[str, int]], list[str]]:
    """Drafts of a file of a structural language: ``(drafts, chunker, fate, language,
    calls, notes)``; the language may turn from C++ to C (a ``.h`` file). Raises
    :class:`OverBudget` when tree-sitter runs past ``deadline``."""
    notes: list[str] = []
    calls: list[tuple[str, int]] = []
    root = parse_tree(language, parse_source(language, data), deadline)
    error_rows: int | None = None  # counted when needed (never for minified code)
    if language == "cpp" and root.has_error and path.endswith(".h"):
        error_rows = _error_rows(root)
        # A ``.h`` file is C or C++; read as C++ first, a C header the C++ grammar
        # cannot read (C99 designated initializers, ``restrict``, C keywords as
        # names) is read as C when the C grammar finds fewer error rows.
        as_c = parse_tree("c", parse_source("c", data), deadline)
        c_rows = _error_rows(as_c)
        if c_rows < error_rows:
            language, root, error_rows = "c", as_c, c_rows
    if packed and _packed_outside_literals(lines, root):
        notes.append(f"minified (a line over {LONG_LINE_CHARS} characters of packed "
                     "code): lines fallback")
        drafts = _minified_definitions(line_drafts(lines), language, root, deadline)
        return drafts, "lines", "fallback", language, calls, notes
    if error_rows is None:
        error_rows = _error_rows(root) if root.has_error else 0
    if error_rows > SYNTAX_ERROR_SHARE * len(lines):
        notes.append(f"syntax error on {error_rows} of {len(lines)} lines: lines fallback")
        return line_drafts(lines), "lines", "fallback", language, calls, notes
    fate = "indexed"
    try:
        tags, call_names = structure_matches(root, language, deadline)
        regions = _within(
            structural_regions(root, language, tags,
                               declaration_file=is_declaration_file(path),
                               test_file=category == "test"),
            len(lines) - 1)
        drafts = _structural_drafts(regions, lines)
        chunker = f"tree-sitter:{language}"
        calls = _calls(call_names)
    except (IndexError, ValueError, RecursionError) as err:
        # Content we did not foresee must cost one file its structure, never
        # the whole build: fall back to line windows and say why.
        drafts, chunker, fate = line_drafts(lines), "lines", "fallback"
        notes.append(f"structural chunking failed ({type(err).__name__}): "
                     "lines fallback")
    if error_rows:
        notes.append(f"syntax error on {error_rows} lines: chunked around them")
    return drafts, chunker, fate, language, calls, notes


def _long_line_chars(lines: Lines) -> int:
    return sum(len(line) for line in lines.items if len(line) > LONG_LINE_CHARS)


def _minified_definitions(drafts: list[Draft], language: str, root: Node,
                          deadline: Deadline | None = None) -> list[Draft]:
    """Line windows of packed code, each naming the definitions whose name it holds: a
    packed line is cut into pieces of MAX_CHUNK_CHARS, so a name's column says which
    piece holds it (columns are bytes; near a piece's edge in non-ASCII code a name may
    go to its neighbour). The file keeps its symbols even though its chunks are windows."""
    try:
        found = flat_definitions(root, language, deadline)
    except (IndexError, ValueError, RecursionError, OverBudget):
        return drafts
    if not found:
        return drafts
    by_row: dict[int, list[int]] = {}
    for index, draft in enumerate(drafts):
        for row in range(draft.start, draft.end + 1):
            by_row.setdefault(row, []).append(index)
    held: dict[int, list[SymbolSpan]] = {}
    for span, column in found:
        pieces = by_row.get(span.header_row)
        if not pieces:
            continue
        piece = pieces[min(column // MAX_CHUNK_CHARS, len(pieces) - 1)] \
            if len(pieces) > 1 else pieces[0]
        held.setdefault(piece, []).append(span)
    out = []
    for index, draft in enumerate(drafts):
        spans = held.get(index)
        if spans:
            names = tuple(dict.fromkeys(span.qualified for span in spans))
            draft = replace(draft, symbols=names, defines=tuple(spans))
        out.append(draft)
    return out


def is_minified(lines: Lines) -> bool:
    """The documented rule (see MINIFIED_PUNCTUATION_SHARE) for giving up on structure."""
    if lines.longest() <= LONG_LINE_CHARS:
        return False
    for line in lines.items:
        if len(line) > LONG_LINE_CHARS:
            punctuation = line.count(";") + line.count("{") + line.count("}")
            if punctuation >= MINIFIED_PUNCTUATION_SHARE * len(line):
                return True
    return False


def _packed_outside_literals(lines: Lines, root: Node) -> bool:
    """Whether a long line still reads like packed code (see MINIFIED_PUNCTUATION_SHARE)
    once the parse's string literals and comments are left out: a long string of ANSI
    escapes, JSON or CSS in a test file (``expected = '\\x1b[1;38;2;...'``) is data,
    whatever punctuation it holds. Past MINIFIED_WALK_NODES nodes (a large bundle) the
    text's verdict stands."""
    long_rows = sorted(i for i, line in enumerate(lines.items) if len(line) > LONG_LINE_CHARS)
    literal: dict[int, list[tuple[int, int]]] = {}  # row -> byte column ranges
    stack = [root]
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > MINIFIED_WALK_NODES:
            return True
        first, last = node.start_point.row, node.end_point.row
        at = bisect.bisect_left(long_rows, first)
        if at == len(long_rows) or long_rows[at] > last:
            continue  # touches no long line
        if "string" in node.type or "comment" in node.type:
            for row in long_rows[at:bisect.bisect_right(long_rows, last)]:
                start = node.start_point.column if row == first else 0
                end = node.end_point.column if row == last else 1 << 62
                literal.setdefault(row, []).append((start, end))
            continue
        stack.extend(node.children)
    for row in long_rows:
        code = bytearray(lines.items[row].encode("utf-8", "replace"))
        for start, end in literal.get(row, ()):
            code[start:end] = b" " * (min(end, len(code)) - start)
        punctuation = code.count(b";") + code.count(b"{") + code.count(b"}")
        if punctuation >= MINIFIED_PUNCTUATION_SHARE * len(lines.items[row]):
            return True
    return False


def _error_rows(root: object) -> int:
    from tree_sitter import Node

    if not isinstance(root, Node):
        return 0
    # Rows an error node holds outside the well-formed constructs inside it: tree-sitter
    # recovers from a macro it cannot read by wrapping the rest of the scope, functions
    # and classes that parsed fine included, in one error node. The walk descends only
    # into subtrees holding an error (a query over the whole tree took quadratic time on
    # deeply nested errors: `template <` repeated).
    rows: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        children = node.children
        if node.type == "ERROR":
            for child in children:
                if child.type == "ERROR" or (child.is_named and child.child_count > 0
                                             ) or "comment" in child.type:
                    continue
                rows.update(range(child.start_point.row, child.end_point.row + 1))
            if not children:
                rows.add(node.start_point.row)
        stack.extend(child for child in children if child.has_error)
    return len(rows)


def _calls(names: Iterable[Node]) -> list[tuple[str, int]]:
    """The called names (``@name`` of the calls query) with their rows, in row order."""
    found: set[tuple[str, int]] = set()
    for node in names:
        if node.text:
            found.add((node.text.decode("utf-8", "replace"), node.start_point.row))
    return sorted(found, key=lambda item: (item[1], item[0]))


def _split_points(lines: Lines, region: Region) -> list[tuple[int, int, str]]:
    """Cut an oversized region at statement/member boundaries, greedily filling parts."""
    cuts = sorted({c for c in region.cuts if region.start < c <= region.end})
    bounds = [region.start, *cuts, region.end + 1]
    segments = [(bounds[i], bounds[i + 1] - 1) for i in range(len(bounds) - 1)]
    pieces: list[tuple[int, int, str]] = []
    current: tuple[int, int] | None = None
    for seg_start, seg_end in segments:
        if current is not None and fits(lines, current[0], seg_end):
            current = (current[0], seg_end)
            continue
        if current is not None:
            pieces.append((current[0], current[1], lines.text(*current)))
        if fits(lines, seg_start, seg_end):
            current = (seg_start, seg_end)
        else:
            pieces.extend(windows(lines, seg_start, seg_end))
            current = None
    if current is not None:
        pieces.append((current[0], current[1], lines.text(*current)))
    return pieces


def _within(regions: list[Region], last_row: int) -> list[Region]:
    """Clamp rows to the file: tree-sitter can end an error node one row past the last
    line (a trailing line continuation does it), and a span must never point there."""
    def clamp(span: SymbolSpan) -> SymbolSpan:
        return replace(span, start=min(span.start, last_row), end=min(span.end, last_row))

    return [r if r.end <= last_row and all(d.end <= last_row for d in r.defines)
            else replace(r, start=min(r.start, last_row), end=min(r.end, last_row),
                         defines=tuple(clamp(d) for d in r.defines))
            for r in regions]


def _structural_drafts(regions: list[Region], lines: Lines) -> list[Draft]:
    drafts: list[Draft] = []
    for region in regions:
        # Bounded as a whole: containers nest hundreds deep in hostile code.
        prefix = clip_header("\n".join(clip_header(lines.text(a, b)) for a, b in region.headers))
        if fits(lines, region.start, region.end):
            body = lines.text(region.start, region.end)
            drafts.append(Draft(
                start=region.start, end=region.end, kind=region.kind, symbol=region.symbol,
                symbols=region.symbols, role=region.role,
                text=f"{prefix}\n{body}" if prefix else body, has_signature=True,
                group=region.rid, parent_group=region.parent, defines=region.defines))
            continue
        signature = (clip_header(lines.text(*region.signature))
                     if region.signature is not None else None)
        pieces = _split_points(lines, region)
        # Each symbol points at the part holding its header line (fields of a long
        # struct, names of long module code); the rest at the first part.
        starts = [start for start, _, _ in pieces]
        held: list[list[SymbolSpan]] = [[] for _ in pieces]
        for i, define in enumerate(region.defines):
            held[max(0, bisect.bisect_right(starts, define.header_row) - 1) if i else 0].append(
                define)
        # A part carries the region's own definition (a function, a class head: each part
        # is a piece of it) and the members whose header lines it holds, never members
        # another part holds: the rule span resolution applies to any chunking.
        own = ((region.symbol,) if region.symbol and region.role != "module"
               and region.kind not in ("module", "pack") else ())
        for index, (start, end, body) in enumerate(pieces):
            first = index == 0
            names = tuple(dict.fromkeys((*own, *(d.qualified for d in held[index]))))
            parts = [p for p in (prefix, None if first else signature, body) if p]
            if first and signature and region.signature is not None and (
                    end < region.signature[0]):
                # A doc comment longer than a chunk: its first part ends with the
                # signature it documents, as later parts start with it.
                parts.append(signature)
            drafts.append(Draft(
                start=start, end=end, kind=region.kind,
                symbol=names[0] if names else None, symbols=names, role=region.role,
                text="\n".join(parts),
                has_signature=first or signature is not None or region.role == "module",
                group=region.rid, parent_group=region.parent,
                defines=tuple(held[index])))
    return drafts


def _structural_role(draft: Draft, call_rows: list[int]) -> str:
    if draft.role in ("definition", "declaration", "test"):
        return draft.role
    if draft.role == "module":
        # Module code is a call site when it mostly calls things: more lines with calls
        # than names it defines (``app = Flask(__name__)`` defines ``app``). A call inside
        # the statement that defines a name is how that name is made, not a use of
        # something else: a factory-made class (``export const ZodObject =
        # core.$constructor("ZodObject", (inst) => {...})``) is a definition however many
        # calls its body holds.
        first = bisect.bisect_left(call_rows, draft.start)
        last = bisect.bisect_right(call_rows, draft.end)
        spans = sorted((d.start, d.end) for d in draft.defines)
        starts = [start for start, _ in spans]
        ends = list(itertools.accumulate((end for _, end in spans), max))
        outside = sum(1 for row in call_rows[first:last]
                      if not (i := bisect.bisect_right(starts, row)) or ends[i - 1] < row)
        if outside > len(draft.symbols):
            return "call_site"
        return "definition" if draft.symbols else "reference"
    if draft.role in ("docs", "config"):
        return draft.role
    return "reference"


def _chunk_id(path: str, blob: str, draft: Draft, ordinal: int) -> str:
    text = hashlib.sha1(draft.text.encode("utf-8", "surrogateescape"),
                        usedforsecurity=False).hexdigest()
    key = "\0".join((CHUNKER_RULES_VERSION, path, blob, str(draft.start), str(draft.end),
                     draft.kind, draft.symbol or "", text, str(ordinal)))
    return hashlib.sha1(key.encode("utf-8", "surrogateescape"),
                        usedforsecurity=False).hexdigest()[:16]


def _finalize(path: str, blob: str, revision: str, language: str | None, category: str,
              drafts: list[Draft], calls: list[tuple[str, int]], entry: InventoryEntry
              ) -> FileChunks:
    ordered = sorted(enumerate(drafts), key=lambda item: (item[1].start, item[1].end, item[0]))
    drafts = [draft for _, draft in ordered]
    call_rows = sorted({row for _, row in calls})
    seen: dict[str, int] = {}
    ids: list[str] = []
    for draft in drafts:
        base = _chunk_id(path, blob, draft, 0)
        ordinal = seen.get(base, 0)
        seen[base] = ordinal + 1
        ids.append(base if ordinal == 0 else _chunk_id(path, blob, draft, ordinal))
    first_of_group: dict[int, str] = {}
    for draft, chunk_id in zip(drafts, ids, strict=True):
        if draft.group is not None:
            first_of_group.setdefault(draft.group, chunk_id)
    category_role = CATEGORY_ROLES.get(category)
    chunks: list[IndexedChunk] = []
    definitions: list[SymbolDef] = []
    for index, (draft, chunk_id) in enumerate(zip(drafts, ids, strict=True)):
        parent = None
        if draft.group is not None and first_of_group[draft.group] != chunk_id:
            parent = first_of_group[draft.group]
        elif draft.parent_group is not None:
            parent = first_of_group.get(draft.parent_group)
        chunks.append(IndexedChunk(
            id=chunk_id, file=path, start_line=draft.start + 1, end_line=draft.end + 1,
            symbol=draft.symbol, symbols=draft.symbols, kind=draft.kind,
            role=category_role or _structural_role(draft, call_rows), language=language,
            revision=revision, blob_sha=blob, parent_id=parent,
            prev_id=ids[index - 1] if index > 0 else None,
            next_id=ids[index + 1] if index + 1 < len(ids) else None,
            has_signature=draft.has_signature, text=draft.text))
        for span in draft.defines:
            definitions.append(SymbolDef(
                name=span.name, qualified=span.qualified, kind=span.kind, role=span.role,
                file=path, start_line=span.start + 1, end_line=span.end + 1, chunk_id=chunk_id,
                header_line=span.header_row + 1))
    references = _references(path, drafts, ids, calls)
    return FileChunks(entry=entry, chunks=tuple(chunks), definitions=tuple(definitions),
                      references=tuple(references))


def _references(path: str, drafts: list[Draft], ids: list[str], calls: list[tuple[str, int]]
                ) -> list[Reference]:
    if not calls or not drafts:
        return []
    last_row = max(d.end for d in drafts)
    owner: list[int] = [-1] * (last_row + 1)
    # Widest first, so the narrowest chunk covering a line owns it.
    for index in sorted(range(len(drafts)), key=lambda i: drafts[i].start - drafts[i].end):
        draft = drafts[index]
        if 0 <= draft.start <= draft.end:
            owner[draft.start:draft.end + 1] = [index] * (draft.end + 1 - draft.start)
        else:  # never in practice: rows are 0-based and ordered
            for row in range(draft.start, draft.end + 1):
                owner[row] = index
    references = []
    for name, row in calls:
        if row <= last_row and owner[row] >= 0:
            references.append(Reference(name=name, file=path, line=row + 1,
                                        chunk_id=ids[owner[row]]))
    return references
