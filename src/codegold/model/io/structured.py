"""Loading a YAML, JSON or JSONL file whole, with the line of every mapping and list."""

from __future__ import annotations

import hashlib
from pathlib import Path

import msgspec
import yaml

from codegold.errors import SchemaError
from codegold.model.io.documents import LoadedDocument, kind_name
from codegold.model.io.json_decode import decode_json, json_error, refuse_duplicate_keys
from codegold.model.io.limits import MAX_DEPTH, MAX_JSON_BYTES, MAX_YAML_BYTES, check_depth
from codegold.model.io.reading import decode_text, iter_jsonl, read_bytes
from codegold.model.io.yaml_loader import make_loader


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
                raise SchemaError(f"each line must be a JSON object, found {kind_name(obj)}",
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
            raise json_error(err, raw, where) from None
        check_depth(doc.data, where)
        refuse_duplicate_keys(raw, where, decoded=doc.data)
        return doc
    try:
        doc.data = yaml.load(text, Loader=make_loader(doc.lines))
    except SchemaError as err:
        raise SchemaError(err.message, path=where, line=err.line,
                          settings=err.settings) from None
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
