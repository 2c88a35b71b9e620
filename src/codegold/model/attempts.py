"""Retrieval attempts: what a retriever returned for one case, one line of attempts.jsonl.

Scores are opaque: only ranks are compared. An attempt with ``error`` set records a
retriever that crashed, hung or answered nonsense; its case is ``invalid``, not ``fail``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from codegold.errors import SchemaError
from codegold.model._files import open_input, split_validation_error
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
    format: int = ATTEMPTS_FORMAT


_DECODER = msgspec.json.Decoder(Attempt)
_ENCODER = msgspec.json.Encoder()


def decode_attempt(line: bytes, *, path: str = "<attempt>", line_number: int | None = None) -> Attempt:
    try:
        return _DECODER.decode(line)
    except msgspec.ValidationError as err:
        text, where = split_validation_error(str(err))
        raise SchemaError(f"{text} (at {where})", path=path, line=line_number) from None
    except msgspec.DecodeError as err:
        raise SchemaError(f"invalid JSON: {err}", path=path, line=line_number) from None


def iter_attempts(path: str, *, digest: Any = None) -> Iterator[Attempt]:
    """Stream attempts from a JSONL file, naming the line of any malformed one.

    The file is read line by line so memory stays flat however large the run is. When
    ``digest`` (a hashlib object) is given, every byte read is fed to it, so the file's
    checksum costs no second pass.
    """
    with open_input(path, "attempts") as handle:
        for number, line in enumerate(handle, start=1):
            if digest is not None:
                digest.update(line)
            if line.strip():
                yield decode_attempt(line, path=path, line_number=number)


def encode_attempt(attempt: Attempt) -> bytes:
    """One JSONL line (without the newline)."""
    return _ENCODER.encode(attempt)
