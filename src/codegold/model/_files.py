"""Reading structured files (YAML, JSON, JSONL) while remembering where things were.

Validation errors must name the line a problem sits on. PyYAML knows the line of every
node, so the YAML loader here records the line of each mapping it builds in a side table
keyed by ``id()`` of the built object; :func:`line_of` then walks a msgspec error path
(``$.cases[3].groups[0]``) through the loaded data to the deepest object it can find.

Every input file is untrusted, so reading is bounded: a file read whole may hold at most
:data:`MAX_JSON_BYTES` (JSON/JSONL) or :data:`MAX_YAML_BYTES` (YAML), one streamed JSONL
line at most :data:`MAX_LINE_BYTES`, nesting at most :data:`MAX_DEPTH` levels, and YAML
aliases may add at most :data:`MAX_ALIAS_NODES` nodes to a document (an "alias bomb"
otherwise expands a few kilobytes into gigabytes). Each limit breached is a SchemaError
naming the file, never a traceback.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import typing
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Generic, TypeVar

import msgspec
import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from codegold.errors import InputError, SchemaError

MAX_DEPTH = 100
"""Deepest nesting of lists and mappings accepted in any input document."""
MAX_ALIAS_NODES = 100_000
"""Nodes YAML aliases may add to one document (each use counts its anchor's whole subtree)."""
MAX_YAML_BYTES = 16 * 1024**2
"""Largest YAML file read (YAML parsing is slow and memory-hungry; use JSON beyond this)."""
MAX_JSON_BYTES = 256 * 1024**2
"""Largest JSON or JSONL file read whole (attempts files are streamed and not bound by it)."""
MAX_LINE_BYTES = 64 * 1024**2
"""Longest single line of a streamed JSONL file (one attempt)."""

_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
_TYPE_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[(\.\.\.)\]")
_BYTE_OFFSET = re.compile(r"\(byte (\d+)\)")
_BOMS = ((b"\xef\xbb\xbf", "UTF-8"), (b"\xff\xfe\x00\x00", "UTF-32"),
         (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))
_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFSOCK: "a socket", stat.S_IFBLK: "a block device"}


@dataclass
class LoadedDocument:
    """A parsed file plus what is needed to point back into it."""

    path: str
    data: Any
    lines: dict[int, int] = field(default_factory=dict)  # id(obj) -> 1-based line
    sha256: str = ""

    def line_of(self, obj: Any) -> int | None:
        if not isinstance(obj, (dict, list)):
            return None  # ids of small ints, None and interned strings are shared
        return self.lines.get(id(obj))


def _event_parser() -> type[Any]:
    """A safe loader base: libyaml's C scanner and parser when present (3-4x faster),
    feeding PyYAML's Python composer, so the bounds in ``_LineLoader.compose_node`` apply."""
    try:
        from yaml.cyaml import CParser  # type: ignore[attr-defined]
    except ImportError:  # PyYAML built without libyaml
        return yaml.SafeLoader

    class CEventLoader(CParser, Composer, SafeConstructor, Resolver):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

        # CParser composes in C; take the Python composer's methods instead.
        check_node = Composer.check_node
        get_node = Composer.get_node
        get_single_node = Composer.get_single_node
        compose_document = Composer.compose_document
        compose_node = Composer.compose_node

    return CEventLoader


class _LineLoader(_event_parser()):  # type: ignore[misc]
    """A safe loader that records the first line of each mapping and sequence.

    It also bounds the document: nesting deeper than :data:`MAX_DEPTH`, aliases that
    together add more than :data:`MAX_ALIAS_NODES` nodes, and an alias inside its own
    anchor (a cycle) are refused while composing, before anything is built.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.alias_nodes = 0
        self.sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes, height)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            target = self.anchors.get(event.anchor)  # type: ignore[attr-defined]
            line = event.start_mark.line + 1
            if target is not None:
                if id(target) not in self.sizes:
                    raise SchemaError(f"alias *{event.anchor} is used inside its own anchor "
                                      "(a cycle)", line=line)
                nodes, height = self.sizes[id(target)]
                self.alias_nodes += nodes
                if self.alias_nodes > MAX_ALIAS_NODES:
                    raise SchemaError(f"YAML aliases expand the document by more than "
                                      f"{MAX_ALIAS_NODES} nodes (an alias bomb?); write the "
                                      "repeated values out or use fewer aliases", line=line)
                if self.depth + height > MAX_DEPTH:
                    raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", line=line)
            alias: yaml.Node = super().compose_node(parent, index)  # type: ignore[assignment]
            return alias
        if self.check_event(yaml.ScalarEvent):  # depth counts lists and mappings only
            scalar: yaml.Node = super().compose_node(parent, index)  # type: ignore[assignment]
            self.sizes[id(scalar)] = (1, 0)
            return scalar
        self.depth += 1
        if self.depth > MAX_DEPTH:
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", line=mark.line + 1)
        try:
            node: yaml.Node = super().compose_node(parent, index)  # type: ignore[assignment]
        finally:
            self.depth -= 1
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [item for pair in node.value for item in pair]
        sizes = [self.sizes[id(child)] for child in children]
        self.sizes[id(node)] = (1 + sum(n for n, _ in sizes), 1 + max((h for _, h in sizes), default=0))
        return node


def _make_loader(lines: dict[int, int]) -> type[_LineLoader]:
    class Loader(_LineLoader):
        pass

    def construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            try:
                seen = key in mapping
            except TypeError:
                raise SchemaError(f"a mapping key must be a plain value, found a "
                                  f"{_kind(key)}", line=key_node.start_mark.line + 1) from None
            if seen:
                raise SchemaError(
                    f"duplicate key {key!r} in one mapping", line=key_node.start_mark.line + 1
                )
            mapping[key] = loader.construct_object(value_node, deep=True)
        lines[id(mapping)] = node.start_mark.line + 1
        return mapping

    def construct_sequence(loader: yaml.SafeLoader, node: yaml.SequenceNode) -> list[Any]:
        seq = [loader.construct_object(child, deep=True) for child in node.value]
        lines[id(seq)] = node.start_mark.line + 1
        return seq

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, construct_sequence)
    # Timestamps stay strings: revisions and dates are labels here, not datetimes.
    def construct_timestamp(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        return loader.construct_scalar(node)  # type: ignore[arg-type]

    Loader.add_constructor("tag:yaml.org,2002:timestamp", construct_timestamp)
    return Loader


def _kind(value: Any) -> str:
    names = {dict: "mapping", list: "list", str: "string", bool: "boolean", int: "integer",
             float: "number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def bounded_lines(handle: BinaryIO, path: str) -> Generator[tuple[int, bytes], None, None]:
    """``(line number, line)`` of a JSONL file, read line by line with each line bounded
    by :data:`MAX_LINE_BYTES`, so a file without newlines cannot fill memory."""
    number = 0
    while line := handle.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise SchemaError(f"line longer than {MAX_LINE_BYTES // 1024**2} MiB",
                              path=path, line=number)
        yield number, line


_BLOCK_BYTES = 1024**2  # read at a time by hashed_lines (measured: 1 MiB beats 256 KiB and 4 MiB)


def _too_long(path: str, number: int) -> SchemaError:
    return SchemaError(f"line longer than {MAX_LINE_BYTES // 1024**2} MiB", path=path,
                       line=number)


def _split_lines(blocks: Iterable[bytes], path: str) -> Iterator[tuple[int, bytes]]:
    """:func:`bounded_lines` of the bytes that ``blocks`` hold, in order."""
    number = 0
    rest: list[bytes] = []  # the start of a line the blocks so far have not ended
    held = 0
    for block in blocks:
        start = 0
        end = block.find(b"\n")
        if rest:
            if end < 0:
                rest.append(block)
                held += len(block)
                if held > MAX_LINE_BYTES:
                    raise _too_long(path, number + 1)
                continue
            line = b"".join(rest) + block[: end + 1]
            rest, held = [], 0
            number += 1
            if len(line) > MAX_LINE_BYTES:
                raise _too_long(path, number)
            yield number, line
            start = end + 1
            end = block.find(b"\n", start)
        while end >= 0:
            number += 1
            if end + 1 - start > MAX_LINE_BYTES:
                raise _too_long(path, number)
            yield number, block[start : end + 1]
            start = end + 1
            end = block.find(b"\n", start)
        if start < len(block):
            rest.append(block[start:])
            held = len(block) - start
            if held > MAX_LINE_BYTES:
                raise _too_long(path, number + 1)
    if rest:
        yield number + 1, b"".join(rest)


def hashed_lines(handle: BinaryIO, path: str,
                 digest: Any) -> Generator[tuple[int, bytes], None, None]:
    """:func:`bounded_lines`, with every byte read fed to ``digest`` (a hashlib object):
    the file is read and hashed in blocks and the lines cut out of them, which costs
    less than a read and a hash per line. (A worker thread reading and hashing ahead was
    tried: on a machine shared with other work, handing the interpreter lock back and
    forth cost more than it saved.)"""
    read = getattr(handle, "read1", handle.read)

    def blocks() -> Iterator[bytes]:
        while block := read(_BLOCK_BYTES):
            digest.update(block)
            yield block

    yield from _split_lines(blocks(), path)


def open_input(path: str | Path, what: str) -> BinaryIO:
    """Open an input file for reading; anything but a readable file is an InputError.

    Directories, sockets and block devices are refused. A FIFO is opened without
    blocking, so one nobody writes to reads as empty instead of hanging; pipes that do
    have a writer (``<(command)``, ``/dev/stdin``) read normally.
    """
    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(f"{what} file not found", path=where) from None
    except IsADirectoryError:
        raise InputError(f"expected a {what} file, found a directory", path=where) from None
    except OSError as err:
        raise InputError(f"cannot read {what} file: {err.strerror}", path=where) from None
    try:
        mode = os.fstat(fd).st_mode
        kind = _KINDS.get(stat.S_IFMT(mode))
        if kind is not None:
            raise InputError(f"expected a {what} file, found {kind}", path=where)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | Path, what: str, *, limit: int | None = None) -> bytes:
    """The whole file; with ``limit``, a file larger than ``limit`` bytes is an InputError."""
    with open_input(path, what) as handle:
        try:
            raw = handle.read() if limit is None else handle.read(limit + 1)
        except OSError as err:
            raise InputError(f"cannot read {what} file: {err.strerror}", path=str(path)) from None
    if limit is not None and len(raw) > limit:
        size = f"{limit // 1024**2} MiB" if limit >= 1024**2 else f"{limit:,} bytes"
        raise InputError(f"{what} file is larger than the {size} allowed here", path=str(path))
    return raw


def decode_text(raw: bytes, path: str, what: str) -> str:
    """UTF-8 text without a byte-order mark; anything else is an InputError with the line."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            raise InputError(f"{what} file starts with a {encoding} byte-order mark; save it as "
                             "UTF-8 without a BOM", path=path, line=1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError(f"{what} file is not valid UTF-8 (byte {err.start}); save it as UTF-8",
                         path=path, line=line) from None


def check_depth(data: Any, path: str, line: int | None = None, *, start: int = 1) -> None:
    """Refuse lists/mappings nested deeper than :data:`MAX_DEPTH` (checked without
    recursion); ``start`` is the depth ``data`` itself sits at in its document."""
    stack: list[tuple[Any, int]] = [(data, start)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > MAX_DEPTH:
            raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=path, line=line)
        stack.extend((child, depth + 1) for child in children)


def decode_json(raw: bytes, type_: Any = Any, *, path: str, line: int | None = None,
                untyped: Callable[[Any], Iterable[tuple[Any, int]]] | None = None) -> Any:
    """``raw`` decoded (into ``type_``) with nesting bounded by :data:`MAX_DEPTH`: the one
    way untrusted JSON enters (files, retriever answers, lines of a stream).

    A typed decode is bounded by its type, except where the type says ``Any``:
    ``untyped(value)`` names those parts as ``(part, depth at which it sits)`` and each is
    checked; an untyped decode is checked whole. Invalid JSON, a value that does not fit
    ``type_`` and nesting too deep are each a SchemaError naming ``path`` (and ``line``).
    """
    try:
        value = msgspec.json.decode(raw, type=type_)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as err:
        raise _json_error(err, raw, path, line) from None
    if type_ is Any:
        # No value nests deeper than the brackets its text opens (those in strings count
        # too): a short line, a case or a chunk, needs no walk.
        if raw.count(b"{") + raw.count(b"[") > MAX_DEPTH:
            check_depth(value, path, line)
    elif untyped is not None:
        for part, depth in untyped(value):
            check_depth(part, path, line, start=depth)
    return value


def _json_error(err: Exception, raw: bytes, path: str, line: int | None = None) -> SchemaError:
    if isinstance(err, RecursionError):
        return SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=path, line=line)
    message = str(err)
    if line is None:
        offset = _BYTE_OFFSET.search(message)
        if offset:
            line = raw.count(b"\n", 0, int(offset.group(1))) + 1
    if isinstance(err, msgspec.ValidationError):  # "Number out of range" and the like
        text, _ = split_validation_error(message)
        return SchemaError(f"invalid JSON value: {text}", path=path, line=line)
    return SchemaError(f"invalid JSON: {message}", path=path, line=line)


_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _duplicate_line(raw: bytes) -> int | None:
    """The line of the first key repeated within one JSON object (only on error: slow)."""
    stack: list[set[bytes] | None] = []
    expect_key = False
    for match in _JSON_TOKEN.finditer(raw):
        token = match.group()
        if token == b"{":
            stack.append(set())
            expect_key = True
        elif token == b"[":
            stack.append(None)
        elif token in (b"}", b"]"):
            if stack:
                stack.pop()
        elif token == b",":
            expect_key = bool(stack) and stack[-1] is not None
        elif token == b":":
            expect_key = False
        elif expect_key and stack and (keys := stack[-1]) is not None:
            if token in keys:
                return raw.count(b"\n", 0, match.start()) + 1
            keys.add(token)
            expect_key = False
    return None


def _key_count(data: Any) -> int:
    """How many mapping keys ``data`` (decoded JSON) holds, nested ones included."""
    count = 0
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            count += len(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


_NOT_GIVEN: Any = object()


def refuse_duplicate_keys(raw: bytes, path: str, line: int | None = None, *,
                          decoded: Any = _NOT_GIVEN) -> None:
    """A key given twice in one JSON object is a SchemaError naming it: JSON parsers keep
    the last value silently, so a second ``"forbidden": []`` would empty the first (YAML
    is refused the same way while loading). ``raw`` must already decode.

    ``decoded``, when given, is ``raw`` decoded: when ``raw`` holds no more colons than
    ``decoded`` holds keys, no key repeats and ``raw`` is not parsed again. (Every key of
    ``raw`` is followed by a colon, and a repeated key is one key fewer once decoded; a
    colon inside a string only sends the line to the full check.)"""
    if decoded is not _NOT_GIVEN and raw.count(b":") <= _key_count(decoded):
        return
    import json

    try:
        json.loads(raw, object_pairs_hook=_no_duplicates)
    except _DuplicateKey as err:
        where = _duplicate_line(raw)
        at = where if line is None else line + (where or 1) - 1
        raise SchemaError(f"duplicate key {err.key!r} in one mapping", path=path,
                          line=at) from None
    except (ValueError, RecursionError):
        return  # msgspec decoded it already; its rules decide


def load_structured(path: str | Path, what: str) -> LoadedDocument:
    """Load YAML, JSON or JSONL by extension (``.jsonl`` gives a list of line objects).

    An empty (or all-comment) YAML file and a blank JSONL file load as ``None`` and
    ``[]``; callers decide whether that is acceptable.
    """
    where = str(path)
    suffix = Path(path).suffix.lower()
    is_json = suffix in (".json", ".jsonl")
    raw = read_bytes(path, what, limit=MAX_JSON_BYTES if is_json else MAX_YAML_BYTES)
    doc = LoadedDocument(path=where, data=None, sha256=hashlib.sha256(raw).hexdigest())
    text = decode_text(raw, where, what)
    if suffix == ".jsonl":
        items = []
        for number, line in iter_jsonl(raw):
            obj = decode_json(line, path=where, line=number)
            if not isinstance(obj, dict):
                raise SchemaError(f"each line must be a JSON object, found {_kind(obj)}",
                                  path=where, line=number)
            refuse_duplicate_keys(line, where, number, decoded=obj)
            doc.lines[id(obj)] = number
            items.append(obj)
        doc.data = items
        return doc
    if not text.strip():
        doc.data = [] if suffix == ".jsonl" else None
        return doc
    if suffix == ".json":
        try:
            doc.data = msgspec.json.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as err:
            raise _json_error(err, raw, where) from None
        check_depth(doc.data, where)
        refuse_duplicate_keys(raw, where, decoded=doc.data)
        return doc
    try:
        doc.data = yaml.load(text, Loader=_make_loader(doc.lines))
    except SchemaError as err:
        raise SchemaError(err.message, path=where, line=err.line) from None
    except yaml.reader.ReaderError as err:
        code = ord(err.character) if isinstance(err.character, str) else err.character
        raise SchemaError(f"invalid YAML: character U+{code:04X} is not allowed in YAML",
                          path=where, line=text.count("\n", 0, err.position) + 1) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        at: int | None = mark.line + 1 if mark is not None else None
        problem = " ".join(str(getattr(err, "problem", None) or err).split())
        raise SchemaError(f"invalid YAML: {problem}", path=where, line=at) from None
    except ValueError as err:  # PyYAML turns digits into int(): more than 4300 are refused
        if "digits" in str(err):
            raise SchemaError("invalid YAML value: an integer with more than 4300 digits",
                              path=where) from None
        raise SchemaError(f"invalid YAML value: {' '.join(str(err).split())}", path=where) from None
    except OverflowError as err:
        raise SchemaError(f"invalid YAML value: {err}", path=where) from None
    except RecursionError:
        raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=where) from None
    return doc


# --- versioned documents ------------------------------------------------------------------

T = TypeVar("T")


@dataclass(frozen=True)
class Loaded(Generic[T]):
    """A decoded document, the raw data it came from, and a way to point into it."""

    value: T
    doc: LoadedDocument
    data: Any

    def line_at(self, error_path: str) -> int | None:
        """The line of the deepest object on ``$.a[1].b`` (None when unknown)."""
        return walk_error_path(self.doc, self.data, error_path)[0]

    def error(self, message: str, *, at: str = "$", case_id: str | None = None,
              field: str | None = None) -> SchemaError:
        """A SchemaError for a rule the types cannot express, located like a decode error."""
        return SchemaError(message, path=self.doc.path, line=self.line_at(at), case_id=case_id,
                           field=field)


def supported_formats(spec: type[Any]) -> tuple[int, ...]:
    """The ``format:`` versions a Spec reads: the arguments of its ``Literal`` ``format`` field."""
    hint = typing.get_type_hints(spec)["format"]
    return tuple(typing.get_args(hint)) or (1,)


def _format_required(spec: type[Any]) -> bool:
    fields = {f.name: f for f in msgspec.structs.fields(spec)}
    return fields["format"].required


def load_versioned(path: str | Path, spec: type[T], *, what: str, hint: str | None = None,
                   from_lines: Callable[[list[dict[str, Any]]], dict[str, Any]] | None = None,
                   ) -> Loaded[T]:
    """Read a versioned file (YAML, JSON, or JSONL when ``from_lines`` is given) into ``spec``.

    ``spec`` is a msgspec Struct whose ``format`` field is a ``Literal`` of the versions
    it reads (required unless the field has a default). Every rule the types carry is
    checked by msgspec; a violation is a SchemaError naming the file, line, case id and
    field. ``from_lines`` turns the objects of a JSONL file into the top-level mapping.
    ``hint`` ends the message for an unknown key (e.g. "see `codegold schema cases`").
    """
    where = str(path)
    doc = load_structured(path, what)
    versions = supported_formats(spec)
    expected = " or ".join(map(str, versions))
    data = doc.data
    if isinstance(data, list) and where.lower().endswith(".jsonl"):
        if from_lines is None:
            raise SchemaError(f"a {what} file is one YAML or JSON document, not JSON lines",
                              path=where)
        if not data:
            raise SchemaError(f"{what} file is empty; expected a 'format: {expected}' header "
                              "line and its records", path=where)
        data = from_lines(data)
    if data is None:
        raise SchemaError(f"{what} file is empty; expected a mapping with 'format: {expected}'",
                          path=where)
    if not isinstance(data, dict):
        raise SchemaError(f"expected a mapping with 'format: {expected}' at the top level, "
                          f"found a {_kind(data)}", path=where, line=doc.line_of(data))
    if "format" not in data:
        if _format_required(spec):
            raise SchemaError(f"missing 'format: {expected}' at the top level", path=where,
                              line=doc.line_of(data), field="format")
    elif data["format"] not in versions or isinstance(data["format"], bool):
        raise SchemaError(f"unsupported format {data['format']!r}; this codegold reads "
                          f"{what} format {expected}", path=where, line=doc.line_of(data),
                          field="format")
    try:
        value = msgspec.convert(data, spec)
    except msgspec.ValidationError as err:
        raise located_error(doc, data, str(err), hint=hint, spec=spec) from None
    except RecursionError:
        raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=where) from None
    return Loaded(value=value, doc=doc, data=data)


def walk_error_path(doc: LoadedDocument, root: Any, error_path: str) -> tuple[int | None, list[Any]]:
    """Follow ``$.a[1].b`` from ``root``; return the deepest known line and the objects met."""
    node = root
    met: list[Any] = [node]
    line = doc.line_of(node)
    for name, index in _PATH_PART.findall(error_path):
        try:
            node = node[name] if name else node[int(index)]
        except (KeyError, IndexError, TypeError):
            break
        met.append(node)
        line = doc.line_of(node) or line
    return line, met


def split_validation_error(message: str) -> tuple[str, str]:
    """msgspec says ``Expected `int`, got `str` - at `$.cases[0].cutoff```; split it."""
    key = re.match(r"(.*) - at `key` in `([^`]*)`$", message, re.S)
    if key:
        return key.group(1), key.group(2) + "[key]"
    text, sep, where = message.rpartition(" - at `")
    if not sep:
        return message, "$"
    return text, where.rstrip("`")


def iter_jsonl(raw: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, line bytes) for non-blank lines of a JSONL payload."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if line.strip():
            yield number, line


def _type_at(spec: type[Any], error_path: str) -> tuple[Any, str | None]:
    """The msgspec type (and its description) at ``$.a[1].b`` of ``spec``, as far as known."""
    info: Any = msgspec.inspect.type_info(spec)
    for name, _, value in _TYPE_PATH_PART.findall(error_path):
        info, _ = _unwrap(info, "struct" if name else "dict" if value else "list")
        if name and isinstance(info, msgspec.inspect.StructType):
            match = [f.type for f in info.fields if f.encode_name == name]
            if not match:
                return None, None
            info = match[0]
        elif value and isinstance(info, msgspec.inspect.DictType):
            info = info.value_type
        elif not name and isinstance(info, (msgspec.inspect.ListType, msgspec.inspect.SetType,
                                            msgspec.inspect.VarTupleType)):
            info = info.item_type
        else:
            return None, None
    return _unwrap(info, "")


def _unwrap(info: Any, want: str) -> tuple[Any, str | None]:
    """Strip Metadata and ``| None`` from a type; in a union, take the ``want`` branch."""
    description = None
    for _ in range(8):
        if isinstance(info, msgspec.inspect.Metadata):
            description = (info.extra_json_schema or {}).get("description", description)
            info = info.type
        elif isinstance(info, msgspec.inspect.UnionType):
            options = [t for t in info.types if not isinstance(t, msgspec.inspect.NoneType)]
            kinds = {"struct": msgspec.inspect.StructType, "list": msgspec.inspect.ListType,
                     "dict": msgspec.inspect.DictType}
            preferred = [t for t in options if want in kinds
                         and isinstance(_unwrap(t, "")[0], kinds[want])]
            if len(options) != 1 and not preferred:
                return info, description
            info = (preferred or options)[0]
        else:
            break
    return info, description


def _plain_message(text: str, spec: type[Any] | None, where: str, value: Any,
                   have_value: bool) -> str:
    """msgspec's terse constraint messages, said the way a person would."""
    found = f", found {value!r}" if have_value and isinstance(value, (str, int, float)) else ""
    info, description = _type_at(spec, where) if spec is not None else (None, None)
    if where.endswith("[key]"):
        container, _ = _type_at(spec, where[:-5]) if spec is not None else (None, None)
        keys, noun = _unwrap(getattr(container, "key_type", None), "")
        if text.startswith("Invalid enum value") and isinstance(keys, msgspec.inspect.LiteralType):
            return (f"unknown {noun or 'key'} {text.removeprefix('Invalid enum value ')}; "
                    f"expected one of {', '.join(map(str, keys.values))}")
        return f"bad key: {text}"
    if text.startswith("Invalid enum value") and isinstance(info, msgspec.inspect.LiteralType):
        names = [name for name, _ in _PATH_PART.findall(where) if name]
        what = (names[-1].removesuffix("s") if names[-1] == "roles" else names[-1]) if names \
            else "value"
        shown = f" {value!r}" if have_value else ""
        return f"unknown {what}{shown}; expected one of {', '.join(map(str, info.values))}"
    bound = re.match(r"Expected `(int|float)` (>=|<=|>|<) (\S+)$", text)
    if bound:
        if bound.group(1) == "float" and abs(float(bound.group(3))) > 1e307:
            return f"expected a finite number{found}"
        if description is not None and bound.group(1) == "float":
            return f"expected {description}{found}"
        words = {">=": "at least", "<=": "at most", ">": "greater than", "<": "less than"}
        return f"must be {words[bound.group(2)]} {bound.group(3)}{found}"
    if text.startswith("Expected `str` matching regex"):
        return f"expected {description or 'text matching ' + text.split('regex ', 1)[1]}{found}"
    length = re.match(r"Expected `(array|object)` of length >= 1$", text)
    if length:
        return f"is empty: give at least one {'item' if length.group(1) == 'array' else 'entry'}"
    return text


def describe_validation_error(message: str, spec: type[Any]) -> str:
    """A msgspec validation message said plainly, with its path (no line: streamed input)."""
    text, where = split_validation_error(message)
    if not re.match(r"Object (contains unknown|missing required) field", text):
        text = _plain_message(text, spec, where, None, False)
    return f"{text} (at {where})"


def located_error(doc: LoadedDocument, root: Any, message: str, *,
                  hint: str | None = None, spec: type[Any] | None = None) -> SchemaError:
    """A msgspec validation message as a SchemaError naming the line, case id and field.

    The field is the last key named on the error path (``$.cases[0].tags[...]`` → ``tags``);
    the case id is the ``id`` of the second-level mapping the path runs through (a case in
    a case file), when there is one. With ``spec`` (the type decoded into), constraint
    messages name the rule and the value found ("must be at most 1000, found 5000").
    """
    text, where = split_validation_error(message)
    line, met = walk_error_path(doc, root, where)
    case_id = None
    if len(met) > 2 and isinstance(met[2], dict) and isinstance(met[2].get("id"), str):
        case_id = met[2]["id"]
    names = [name for name, _ in _PATH_PART.findall(where) if name]
    field = names[-1] if names else None
    unknown = re.match(r"Object contains unknown field `([^`]+)`", text)
    missing = re.match(r"Object missing required field `([^`]+)`", text)
    if unknown:
        field = unknown.group(1)
        text = f"unknown key {field!r} (a typo?{' ' + hint if hint else ''})"
    elif missing:
        field = missing.group(1)
        text = f"missing required key {field!r}"
    else:
        have_value = len(met) == len(_PATH_PART.findall(where)) + 1
        text = _plain_message(text, spec, where, met[-1], have_value)
    return SchemaError(f"{text} (at {where})", path=doc.path, line=line, case_id=case_id,
                       field=field)
