"""Versioned documents: a file with a ``format:`` field read into a msgspec Struct, every
violation a SchemaError naming the file, line, case id and field."""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

from codegold.errors import SchemaError
from codegold.model.io.documents import LoadedDocument, kind_name, walk_error_path
from codegold.model.io.limits import MAX_DEPTH
from codegold.model.io.messages import located_error
from codegold.model.io.structured import load_structured

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
                          f"found a {kind_name(data)}", path=where, line=doc.line_of(data))
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
