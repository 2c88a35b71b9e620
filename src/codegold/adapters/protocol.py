"""The retriever protocol: one request in, one ranked response out.

Every retriever codegold can run (its own reference retriever, a team's command, HTTP
service or Python function) implements :class:`Retriever`, a single method. The JSON
forms of :class:`RetrievalRequest` and :class:`RetrievalResponse` are what ``command:``
and ``http://`` retrievers read and write; ``docs/retrievers.md`` documents them.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from codegold.errors import RetrieverError, SchemaError
from codegold.model import Chunk, Context, Manifest
from codegold.model._files import MAX_DEPTH, check_depth
from codegold.model.attempts import MAX_CHUNKS, chunk_count_problem, too_many_chunks

PROTOCOL_FORMAT = 1


class RetrievalRequest(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a retriever is asked. ``k`` is how many ranked chunks are wanted, at least."""

    case_id: str
    query: str
    k: int
    revision: str
    repository: str | None = None
    context: Context | None = None  # the case's reliable user state, sent as is
    filters: dict[str, Any] = msgspec.field(default_factory=dict)
    index: str | None = None      # the codegold index built from ``revision``, if one was given
    format: int = PROTOCOL_FORMAT


class RetrievalResponse(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a retriever answers. Only ``ranked`` is required."""

    ranked: list[Chunk]
    candidates: list[Chunk] | None = None
    context_ids: list[str] | None = None
    rewritten: str | None = None
    filters: dict[str, Any] | None = None
    manifest: Manifest | None = None
    timing_ms: dict[str, float] | None = None
    format: int = PROTOCOL_FORMAT


class Retriever(Protocol):
    """Anything that answers a :class:`RetrievalRequest`.

    Raise :class:`~codegold.errors.RetrieverError` for a failure that belongs to this
    request (crash, timeout, unreadable answer): the runner records it as an error
    attempt and goes on. Implementations must be safe to call from several threads.
    """

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse: ...


_REQUEST_ENCODER = msgspec.json.Encoder()
_RESPONSE_DECODER = msgspec.json.Decoder(RetrievalResponse)


def encode_request(request: RetrievalRequest) -> bytes:
    return _REQUEST_ENCODER.encode(request)


def decode_response(payload: bytes, *, source: str) -> RetrievalResponse:
    """Parse a JSON response; a bare JSON list is taken as ``ranked``."""
    text = payload.strip()
    if not text:
        raise RetrieverError(f"{source} returned an empty answer (expected a JSON response)")
    many = too_many_chunks(text)
    if many is not None:
        raise RetrieverError(f"{source} answered {many} chunks; at most {MAX_CHUNKS} ranked "
                             f"and {MAX_CHUNKS} candidates are taken")
    try:
        if text[:1] == b"[":
            response = RetrievalResponse(ranked=msgspec.json.decode(text, type=list[Chunk]))
        else:
            response = _RESPONSE_DECODER.decode(text)
        problem = chunk_count_problem(response.ranked, response.candidates)
        if problem is not None:
            raise RetrieverError(f"{source} answered {problem}")
        if response.filters:
            check_depth(response.filters, source, start=2)
    except msgspec.ValidationError as err:
        raise RetrieverError(f"{source} returned JSON that is not a retrieval response: {err}") from None
    except msgspec.DecodeError as err:
        raise RetrieverError(f"{source} returned invalid JSON: {err}") from None
    except (RecursionError, SchemaError):
        raise RetrieverError(f"{source} returned JSON nested deeper than {MAX_DEPTH} levels") from None
    if response.format != PROTOCOL_FORMAT:
        raise RetrieverError(f"{source} answered protocol format {response.format}; "
                             f"codegold speaks format {PROTOCOL_FORMAT}")
    return response


def response_from_builtins(data: Any, *, source: str) -> RetrievalResponse:
    """Accept a response given as plain Python data (dict, or list of chunks)."""
    if isinstance(data, RetrievalResponse):
        return data
    try:
        check_depth(data, source)
        if isinstance(data, list):
            response = RetrievalResponse(ranked=msgspec.convert(data, list[Chunk]))
        else:
            response = msgspec.convert(data, RetrievalResponse)
        problem = chunk_count_problem(response.ranked, response.candidates)
        if problem is not None:
            raise RetrieverError(f"{source} returned {problem}")
        return response
    except msgspec.ValidationError as err:
        raise RetrieverError(f"{source} returned data that is not a retrieval response: {err}") from None
    except (SchemaError, RecursionError):
        raise RetrieverError(f"{source} returned data nested deeper than {MAX_DEPTH} levels") from None
