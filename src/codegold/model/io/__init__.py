"""Reading structured files (YAML, JSON, JSONL) while remembering where things were.

Validation errors must name the line a problem sits on. The YAML loader records the line
of each mapping it builds (:mod:`.yaml_loader`); :func:`walk_error_path` then walks a
msgspec error path (``$.cases[3].groups[0]``) through the loaded data to the deepest
object it can find, and :mod:`.messages` says msgspec's message plainly.

Every input file is untrusted, so reading is bounded (:mod:`.limits`): sizes, line
lengths, nesting and YAML alias expansion. Each limit breached is a SchemaError naming the
file, never a traceback. One module per job:

=====================  ===============================================================
:mod:`.limits`         the bounds, and the nesting check
:mod:`.reading`        opening (special files, FIFOs), bounded reads, UTF-8, JSONL lines
:mod:`.yaml_loader`    the line-recording YAML loader and its alias accounting
:mod:`.json_decode`    untrusted JSON decoded, located, duplicate keys refused
:mod:`.messages`       msgspec's English validation messages split and said plainly
:mod:`.documents`      a loaded document and error paths walked back to lines
:mod:`.structured`     a YAML, JSON or JSONL file loaded by extension
:mod:`.versioned`      a ``format:``-versioned file read into its Struct
=====================  ===============================================================
"""

from __future__ import annotations

from codegold.model.io.documents import LoadedDocument, walk_error_path
from codegold.model.io.json_decode import decode_json, refuse_duplicate_keys
from codegold.model.io.limits import (
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    MAX_JSON_BYTES,
    MAX_LINE_BYTES,
    MAX_YAML_BYTES,
    check_depth,
)
from codegold.model.io.messages import (
    describe_validation_error,
    located_error,
    split_validation_error,
)
from codegold.model.io.reading import (
    DigestAhead,
    block_lines,
    bounded_lines,
    decode_text,
    iter_jsonl,
    open_input,
    read_bytes,
)
from codegold.model.io.structured import load_structured
from codegold.model.io.versioned import Loaded, load_versioned, supported_formats

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "MAX_JSON_BYTES",
    "MAX_LINE_BYTES",
    "MAX_YAML_BYTES",
    "DigestAhead",
    "Loaded",
    "LoadedDocument",
    "block_lines",
    "bounded_lines",
    "check_depth",
    "decode_json",
    "decode_text",
    "describe_validation_error",
    "iter_jsonl",
    "load_structured",
    "load_versioned",
    "located_error",
    "open_input",
    "read_bytes",
    "refuse_duplicate_keys",
    "split_validation_error",
    "supported_formats",
    "walk_error_path",
]
