"""Answers: what the answer stage produced from a retrieval attempt, one line of answers.jsonl.

An answer names the attempt whose context it was generated from and the chunk ids that
were actually sent (``context_ids``, in order). A retry either ``reused`` the retrieval
of the answer it retries or made a ``new`` one. ``verdict`` is the team's own answer
evaluation; codegold never grades answers, it explains failed ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import msgspec

from codegold.errors import SchemaError
from codegold.model.io import MAX_DEPTH, bounded_lines, open_input, split_validation_error

ANSWERS_FORMAT = 1
Verdict = Literal["pass", "fail", "unknown"]
RetrievalLink = Literal["reused", "new"]


class CitedTarget(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True,
                  forbid_unknown_fields=True):
    """A file (and optionally a symbol) the answer cites."""

    file: str
    symbol: str | None = None


class Answer(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True,
             forbid_unknown_fields=True):
    answer_id: str
    case_id: str
    attempt_id: str | None
    context_ids: list[str] = msgspec.field(default_factory=list)
    verdict: Verdict = "unknown"
    grader: str | None = None
    retry_of: str | None = None
    retrieval: RetrievalLink | None = None
    cited: list[CitedTarget] | None = None
    answered_at: str | None = None
    format: int = ANSWERS_FORMAT


_DECODER = msgspec.json.Decoder(Answer)
_ENCODER = msgspec.json.Encoder()


def iter_answers(path: str) -> Iterator[Answer]:
    """Stream answers from a JSONL file, naming the line of any malformed one."""
    with open_input(path, "answers") as handle:
        for number, line in bounded_lines(handle, path):
            if not line.strip():
                continue
            try:
                answer = _DECODER.decode(line)
            except msgspec.ValidationError as err:
                text, where = split_validation_error(str(err))
                raise SchemaError(f"{text} (at {where})", path=path, line=number) from None
            except msgspec.DecodeError as err:
                raise SchemaError(f"invalid JSON: {err}", path=path, line=number) from None
            except RecursionError:
                raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=path,
                                  line=number) from None
            if answer.format != ANSWERS_FORMAT:
                raise SchemaError(f"unsupported answers format {answer.format}; this codegold "
                                  f"reads format {ANSWERS_FORMAT}", path=path, line=number,
                                  field="format")
            yield answer


def encode_answer(answer: Answer) -> bytes:
    return _ENCODER.encode(answer)
