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
from codegold.model.attempts import MAX_CHUNKS, chunk_count_problem, too_many_chunks
from codegold.model.io import MAX_DEPTH, check_depth
from codegold.plumbing.secrets import redact_text

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
    """What a retriever answers. Only ``ranked`` is required. Fields codegold does not
    read, in the answer or in one of its chunks, are kept under ``extra`` (see
    :func:`keep_unknown_fields`), never an error."""

    ranked: list[Chunk]
    candidates: list[Chunk] | None = None
    context_ids: list[str] | None = None
    rewritten: str | None = None
    filters: dict[str, Any] | None = None
    manifest: Manifest | None = None
    timing_ms: dict[str, float] | None = None
    extra: dict[str, Any] | None = None
    # The request's case id, echoed: ``command+jsonl`` pairs answers with requests by it.
    case_id: str | None = None
    # What codegold noticed about the answer (set by codegold, never read from one): an
    # answer that held something no parser read. Becomes the attempt's ``note``.
    note: str | None = None
    format: int = PROTOCOL_FORMAT


# ``note`` is codegold's own: a retriever's ``note`` is kept under ``extra`` like any field
# codegold does not read.
_RESPONSE_FIELDS = frozenset(RetrievalResponse.__struct_fields__) - {"note"}
_NOTE_CHARS = 200
_CHUNK_FIELDS = frozenset(Chunk.__struct_fields__)


def _split_unknown(data: dict[Any, Any], known: frozenset[str]) -> dict[Any, Any]:
    unknown = {key: value for key, value in data.items() if key not in known}
    if not unknown:
        return data
    kept = {key: value for key, value in data.items() if key in known}
    given = data.get("extra")
    kept["extra"] = {**given, **unknown} if isinstance(given, dict) else unknown
    return kept


def keep_unknown_fields(data: Any) -> Any:
    """A response as plain data with every field codegold does not read, at the top
    level and in each ranked or candidate chunk, moved under that object's ``extra``: a
    service that also sends a chunk's ``text`` or its own debug fields is still read."""
    if isinstance(data, list):
        return [_split_unknown(c, _CHUNK_FIELDS) if isinstance(c, dict) else c for c in data]
    if not isinstance(data, dict):
        return data
    data = _split_unknown(data, _RESPONSE_FIELDS)
    for name in ("ranked", "candidates"):
        if isinstance(data.get(name), list):
            data = {**data, name: keep_unknown_fields(data[name])}
    return data


class Retriever(Protocol):
    """Anything that answers a :class:`RetrievalRequest`.

    Raise :class:`~codegold.errors.RetrieverError` for a failure that belongs to this
    request (crash, timeout, unreadable answer): the runner records it as an error
    attempt and goes on. Implementations must be safe to call from several threads.
    """

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse: ...


_REQUEST_ENCODER = msgspec.json.Encoder()


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
        data = msgspec.json.decode(text)
    except msgspec.DecodeError as err:
        raise RetrieverError(f"{source} returned invalid JSON: {err}") from None
    except RecursionError:
        raise RetrieverError(f"{source} returned JSON nested deeper than {MAX_DEPTH} levels") from None
    response = _response_of(data, source=source, what="JSON")
    if response.format != PROTOCOL_FORMAT:
        raise RetrieverError(f"{source} answered protocol format {response.format}; "
                             f"codegold speaks format {PROTOCOL_FORMAT}")
    note = unread_note(response, text)
    return response if note is None else msgspec.structs.replace(response, note=note)


def unread_note(response: RetrievalResponse, raw: bytes) -> str | None:
    """The note of an answer with nothing ranked whose hits sit under a field codegold does
    not read (``{"results": [...]}``): its first 200 characters, redacted. None otherwise."""
    if response.ranked or not response.extra:
        return None
    lists = [name for name, value in response.extra.items()
             if isinstance(value, list) and value]
    if not lists:
        return None
    begins = redact_text(raw[:5 * _NOTE_CHARS].decode("utf-8", "replace"))
    return (f"nothing ranked; the answer's {', '.join(repr(n) for n in lists[:5])} "
            f"(not read) begins: {' '.join(begins.split())[:_NOTE_CHARS]}")


def response_from_builtins(data: Any, *, source: str) -> RetrievalResponse:
    """Accept a response given as plain Python data (dict, or list of chunks)."""
    if isinstance(data, RetrievalResponse):
        return data
    return _response_of(data, source=source, what="data")


def _response_of(data: Any, *, source: str, what: str) -> RetrievalResponse:
    """A response from decoded data: nesting bounded, fields codegold does not read kept
    under ``extra``, a bare list taken as ``ranked``, the chunk count bounded."""
    try:
        check_depth(data, source)
        data = keep_unknown_fields(data)
        if isinstance(data, list):
            response = RetrievalResponse(ranked=msgspec.convert(data, list[Chunk]))
        else:
            response = msgspec.convert(data, RetrievalResponse)
    except msgspec.ValidationError as err:
        raise RetrieverError(f"{source} returned {what} that is not a retrieval response: "
                             f"{err}") from None
    except (SchemaError, RecursionError):
        raise RetrieverError(f"{source} returned {what} nested deeper than {MAX_DEPTH} "
                             "levels") from None
    problem = chunk_count_problem(response.ranked, response.candidates)
    if problem is not None:
        raise RetrieverError(f"{source} returned {problem}")
    return response
