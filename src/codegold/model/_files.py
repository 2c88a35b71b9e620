"""Reading structured files (YAML, JSON, JSONL) while remembering where things were.

Validation errors must name the line a problem sits on. PyYAML knows the line of every
node, so the YAML loader here records the line of each mapping it builds in a side table
keyed by ``id()`` of the built object; :func:`line_of` then walks a msgspec error path
(``$.cases[3].groups[0]``) through the loaded data to the deepest object it can find.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import msgspec
import yaml

from codegold.errors import InputError, SchemaError

_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


@dataclass
class LoadedDocument:
    """A parsed file plus what is needed to point back into it."""

    path: str
    data: Any
    lines: dict[int, int] = field(default_factory=dict)  # id(obj) -> 1-based line
    sha256: str = ""

    def line_of(self, obj: Any) -> int | None:
        return self.lines.get(id(obj))


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that records the first line of each mapping and sequence."""


def _make_loader(lines: dict[int, int]) -> type[_LineLoader]:
    class Loader(_LineLoader):
        pass

    def construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if key in mapping:
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


def open_input(path: str | Path, what: str) -> BinaryIO:
    """Open an input file for reading; a missing or unreadable file is an InputError."""
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{what} file not found", path=str(path)) from None
    except IsADirectoryError:
        raise InputError(f"expected a {what} file, found a directory", path=str(path)) from None
    except OSError as err:
        raise InputError(f"cannot read {what} file: {err.strerror}", path=str(path)) from None


def read_bytes(path: str | Path, what: str) -> bytes:
    with open_input(path, what) as handle:
        return handle.read()


def load_structured(path: str | Path, what: str) -> LoadedDocument:
    """Load YAML, JSON or JSONL by extension (``.jsonl`` gives a list of line objects)."""
    raw = read_bytes(path, what)
    doc = LoadedDocument(path=str(path), data=None, sha256=hashlib.sha256(raw).hexdigest())
    suffix = Path(path).suffix.lower()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{what} file is not valid UTF-8 (byte {err.start})", path=str(path)) from None
    if suffix == ".jsonl":
        items = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = msgspec.json.decode(line)
            except msgspec.DecodeError as err:
                raise SchemaError(f"invalid JSON: {err}", path=str(path), line=number) from None
            doc.lines[id(obj)] = number
            items.append(obj)
        doc.data = items
        return doc
    if suffix == ".json":
        try:
            doc.data = msgspec.json.decode(raw)
        except msgspec.DecodeError as err:
            raise SchemaError(f"invalid JSON: {err}", path=str(path)) from None
        return doc
    try:
        doc.data = yaml.load(text, Loader=_make_loader(doc.lines))
    except SchemaError as err:
        raise SchemaError(err.message, path=str(path), line=err.line) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where: int | None = mark.line + 1 if mark is not None else None
        problem = str(getattr(err, "problem", None) or err)
        raise SchemaError(f"invalid YAML: {problem}", path=str(path), line=where) from None
    return doc


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
    text, sep, where = message.rpartition(" - at `")
    if not sep:
        return message, "$"
    return text, where.rstrip("`")


def iter_jsonl(raw: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, line bytes) for non-blank lines of a JSONL payload."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if line.strip():
            yield number, line


def located_error(doc: LoadedDocument, root: Any, message: str, *,
                  hint: str | None = None) -> SchemaError:
    """A msgspec validation message as a SchemaError naming the line, case id and field.

    The field is the last key named on the error path (``$.cases[0].tags[...]`` → ``tags``);
    the case id is the ``id`` of the second-level mapping the path runs through (a case in
    a case file), when there is one.
    """
    text, where = split_validation_error(message)
    line, met = walk_error_path(doc, root, where)
    case_id = None
    if len(met) > 2 and isinstance(met[2], dict) and isinstance(met[2].get("id"), str):
        case_id = met[2]["id"]
    names = [name for name, _ in _PATH_PART.findall(where) if name]
    field = names[-1] if names else None
    unknown = re.match(r"Object contains unknown field `([^`]+)`", text)
    if unknown:
        field = unknown.group(1)
        text = f"unknown key {field!r} (a typo?{' ' + hint if hint else ''})"
    missing = re.match(r"Object missing required field `([^`]+)`", text)
    if missing:
        field = missing.group(1)
        text = f"missing required key {field!r}"
    return SchemaError(f"{text} (at {where})", path=doc.path, line=line, case_id=case_id,
                       field=field)
