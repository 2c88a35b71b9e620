"""Retrieval attempts: what a retriever returned for one case, one line of attempts.jsonl.

Scores are opaque: only ranks are compared. An attempt with ``error`` set records a
retriever that crashed, hung or answered nonsense; its case is ``invalid``, not ``fail``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import msgspec

from codegold.errors import SchemaError
from codegold.model._files import (
    MAX_DEPTH,
    MAX_LINE_BYTES,
    describe_validation_error,
    open_input,
)
from codegold.model.manifest import Manifest

ATTEMPTS_FORMAT = 1


class Chunk(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    """One ranked chunk as the answer stage would receive it."""

    chunk_id: str
    file: str
    symbol: str | None = None
    symbols: tuple[str, ...] = ()
    role: str | None = None
    revision: str | None = None
    score: float | None = None
    start_line: int | None = None
    end_line: int | None = None
    language: str | None = None
    excerpt: str | None = None

    def all_symbols(self) -> tuple[str, ...]:
        if self.symbol is None:
            return self.symbols
        if self.symbol in self.symbols:
            return self.symbols
        return (self.symbol, *self.symbols)


class Query(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    raw: str
    rewritten: str | None = None
    filters: dict[str, Any] = msgspec.field(default_factory=dict)


class Attempt(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    attempt_id: str
    case_id: str
    ranked: list[Chunk] = msgspec.field(default_factory=list)
    run_id: str | None = None
    retry_of: str | None = None
    query: Query | None = None
    manifest: Manifest | None = None
    candidates: list[Chunk] | None = None
    context_ids: list[str] | None = None
    timing_ms: dict[str, float] | None = None
    retriever: str | None = None
    error: str | None = None
    format: Literal[1] = 1


_DECODER = msgspec.json.Decoder(Attempt)
_ENCODER = msgspec.json.Encoder()


def decode_attempt(line: bytes, *, path: str = "<attempt>", line_number: int | None = None) -> Attempt:
    try:
        return _DECODER.decode(line)
    except msgspec.ValidationError as err:
        text = describe_validation_error(str(err), Attempt)
        if text.endswith("(at $)") and text.startswith("Expected `object`"):
            text = text.replace("Expected `object`", "each line must be a JSON object", 1)
        elif text.endswith("(at $.format)"):
            text = f"unsupported attempts format; this codegold reads format {ATTEMPTS_FORMAT}"
        raise SchemaError(text, path=path, line=line_number) from None
    except msgspec.DecodeError as err:
        raise SchemaError(f"invalid JSON: {err}", path=path, line=line_number) from None
    except RecursionError:
        raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=path,
                          line=line_number) from None


def iter_attempts(path: str, *, digest: Any = None) -> Iterator[Attempt]:
    """Stream attempts from a JSONL file, naming the line of any malformed one.

    The file is read line by line so memory stays flat however large the run is; one
    line may hold at most ``MAX_LINE_BYTES``. When ``digest`` (a hashlib object) is given,
    every byte read is fed to it, so the file's checksum costs no second pass.
    """
    with open_input(path, "attempts") as handle:
        number = 0
        while line := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(line) > MAX_LINE_BYTES:
                raise SchemaError(f"line longer than {MAX_LINE_BYTES // 1024**2} MiB",
                                  path=path, line=number)
            if digest is not None:
                digest.update(line)
            if line.strip():
                yield decode_attempt(line, path=path, line_number=number)


def encode_attempt(attempt: Attempt) -> bytes:
    """One JSONL line (without the newline)."""
    return _ENCODER.encode(attempt)
