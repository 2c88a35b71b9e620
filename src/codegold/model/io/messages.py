"""msgspec's English validation messages, split into text and path and said plainly
(``Expected `int` <= 1000`` → "must be at most 1000, found 5000"), located by line."""

from __future__ import annotations

import difflib
import re
from typing import Any

import msgspec

from codegold.errors import SchemaError, quoted
from codegold.model.io.documents import PATH_PART, LoadedDocument, walk_error_path

_TYPE_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[(\.\.\.)\]")


def split_validation_error(message: str) -> tuple[str, str]:
    """msgspec says ``Expected `int`, got `str` - at `$.cases[0].cutoff```; split it."""
    key = re.match(r"(.*) - at `key` in `([^`]*)`$", message, re.S)
    if key:
        return key.group(1), key.group(2) + "[key]"
    text, sep, where = message.rpartition(" - at `")
    if not sep:
        return message, "$"
    return text, where.rstrip("`")


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
    found = f", found {quoted(value)}" if have_value and isinstance(value, (str, int, float)) \
        else ""
    info, description = _type_at(spec, where) if spec is not None else (None, None)
    if where.endswith("[key]"):
        container, _ = _type_at(spec, where[:-5]) if spec is not None else (None, None)
        keys, noun = _unwrap(getattr(container, "key_type", None), "")
        if text.startswith("Invalid enum value") and isinstance(keys, msgspec.inspect.LiteralType):
            return (f"unknown {noun or 'key'} {text.removeprefix('Invalid enum value ')}; "
                    f"expected one of {', '.join(map(str, keys.values))}")
        return f"bad key: {text}"
    if text.startswith("Invalid enum value") and isinstance(info, msgspec.inspect.LiteralType):
        names = [name for name, _ in PATH_PART.findall(where) if name]
        what = (names[-1].removesuffix("s") if names[-1] == "roles" else names[-1]) if names \
            else "value"
        shown = f" {quoted(value)}" if have_value else ""
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


def _known_keys(spec: type[Any] | None, where: str, field: str) -> str:
    """What a mapping at ``where`` may hold, the nearest to ``field`` first: "did you mean
    'rules'? the keys here: format, rules, ...", or "a typo?" when the type is not known."""
    info, _ = _type_at(spec, where) if spec is not None else (None, None)
    if not isinstance(info, msgspec.inspect.StructType):
        return "a typo?"
    names = [f.encode_name for f in info.fields]
    near = difflib.get_close_matches(field, names, n=1, cutoff=0.6)
    head = f"did you mean {near[0]!r}? " if near else "a typo? "
    return head + "the keys here: " + ", ".join(names) + ";"


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
    names = [name for name, _ in PATH_PART.findall(where) if name]
    field = names[-1] if names else None
    unknown = re.match(r"Object contains unknown field `([^`]+)`", text)
    missing = re.match(r"Object missing required field `([^`]+)`", text)
    if unknown:
        field = unknown.group(1)
        text = f"unknown key {field!r} ({_known_keys(spec, where, field)}{' ' + hint if hint else ''})"
    elif missing:
        field = missing.group(1)
        text = f"missing required key {field!r}"
    else:
        have_value = len(met) == len(PATH_PART.findall(where)) + 1
        text = _plain_message(text, spec, where, met[-1], have_value)
    return SchemaError(f"{text} (at {where})", path=doc.path, line=line, case_id=case_id,
                       field=field)
