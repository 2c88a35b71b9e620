"""Retrieval attempts: what a retriever returned for one case, one line of attempts.jsonl.

Scores are opaque: only ranks are compared. An attempt with ``error`` set records a
retriever that crashed, hung or answered nonsense; its case is ``invalid``, not ``fail``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from typing import Annotated, Any, Literal

import msgspec

from codegold.errors import SchemaError
from codegold.model.cases import ROLES
from codegold.model.io import (
    MAX_DEPTH,
    DigestAhead,
    block_lines,
    check_depth,
    describe_validation_error,
    open_input,
)
from codegold.model.languages import BY_NAME
from codegold.model.manifest import Manifest
from codegold.plumbing.secrets import (
    is_program_text,
    redact_data,
    redact_once,
    redact_whole,
    secret_file_kind,
)

ATTEMPTS_FORMAT = 1


class Resolution(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True,
                 forbid_unknown_fields=True):
    """What the index of the case's revision says a chunk's file and line span hold.

    Recorded beside what the retriever *reported* when span resolution is on
    (``codegold run --resolve`` or ``codegold eval --resolve``), and then used to judge the
    chunk. ``rule`` says how it was decided: ``span`` (definitions found in the span),
    ``category`` (no definition in the span: the file's category or the index chunks
    there gave the role), ``not_indexed`` (the file is not in the index: nothing was
    resolved and the reported metadata is judged) or ``no_span`` (the chunk has no line
    span: only the role was resolved). ``revision_from`` says why ``revision`` is
    trusted: ``excerpt`` (the excerpt agrees with the index's text), ``reported``, or
    ``assumed`` (no excerpt to check: the retriever is taken to have served the index's
    revision).
    """

    rule: str
    symbols: tuple[str, ...] = ()
    role: str | None = None
    revision: str | None = None
    revision_from: str | None = None
    note: str | None = None


# gc=False: a run's chunks are the most numerous objects codegold holds (a million in a
# 20k-case eval) and never part of a reference cycle (their fields are strings, numbers,
# tuples and decoded JSON), so the cycle collector need not track them (measured: 9-16 %
# off decoding the attempts of the eval benchmark).
class Chunk(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True,
            forbid_unknown_fields=True, gc=False):
    """One ranked chunk as the answer stage would receive it.

    ``symbol``/``symbols``/``role``/``revision`` are what the retriever reported;
    ``resolved``, when present, is what span resolution found, and then it is what
    scoring judges (see :meth:`judged_symbols`).
    """

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
    resolved: Resolution | None = None
    # Agents' context (an imported trajectory): the turn at which this span first entered
    # the model's input, the tool that put it there, whether the agent read it or a search
    # listed it, its size in tokens, and whether its path lies outside the repository.
    step: Annotated[int, msgspec.Meta(ge=0)] | None = None
    tool: str | None = None
    kind: Literal["read", "search_hit"] | None = None
    tokens: Annotated[int, msgspec.Meta(ge=0)] | None = None
    outside_repo: bool = False
    # ``created``: the file is one the agent made earlier in the trajectory (a script, a
    # backup, a patch file), not repository context (left out of line precision);
    # ``after_edit``: shown after the agent changed the file, so its line numbers are the
    # changed file's, not the pinned revision's.
    created: bool = False
    after_edit: bool = False
    # Fields a retriever answered that codegold does not read (a chunk's ``text``), kept
    # as they came, never judged.
    extra: dict[str, Any] | None = None

    def where(self) -> str:
        """The chunk as a reader finds it: ``file:start-end`` and its symbol when known
        (the resolved one first), never its id, which is a retriever's own hash."""
        place = self.file
        if self.start_line is not None:
            end = self.end_line if self.end_line is not None else self.start_line
            place += f":{self.start_line}" if end == self.start_line else f":{self.start_line}-{end}"
        symbols = self.judged_symbols()
        return f"{place} ({symbols[0]})" if symbols else place

    def all_symbols(self) -> tuple[str, ...]:
        """The symbols the retriever reported."""
        if self.symbol is None:
            return self.symbols
        if self.symbol in self.symbols:
            return self.symbols
        return (self.symbol, *self.symbols)

    def _judged(self) -> Resolution | None:
        resolved = self.resolved
        return None if resolved is None or resolved.rule == "not_indexed" else resolved

    def judged_symbols(self) -> tuple[str, ...]:
        """Symbols scoring judges: the resolved ones when the span was resolved."""
        resolved = self._judged()
        if resolved is None or resolved.rule == "no_span":
            return self.all_symbols()
        return resolved.symbols

    def judged_role(self) -> str | None:
        resolved = self._judged()
        return self.role if resolved is None or resolved.role is None else resolved.role

    def judged_revision(self) -> str | None:
        if self.revision is not None:
            return self.revision
        resolved = self._judged()
        return None if resolved is None else resolved.revision


class Query(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    raw: str
    rewritten: str | None = None
    filters: dict[str, Any] = msgspec.field(default_factory=dict)


class Cost(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    """What answering one attempt cost the retriever: tokens spent and/or money (US dollars)."""

    tokens: Annotated[int, msgspec.Meta(ge=0)] | None = None
    usd: Annotated[float, msgspec.Meta(ge=0, le=1e9)] | None = None


class Edit(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True,
           forbid_unknown_fields=True):
    """A span an agent changed (never context): the file and, when known, its lines."""

    file: str
    start_line: Annotated[int, msgspec.Meta(ge=1)] | None = None
    end_line: Annotated[int, msgspec.Meta(ge=1)] | None = None
    step: Annotated[int, msgspec.Meta(ge=0)] | None = None
    tool: str | None = None


class PassedOver(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A tool call of an imported trajectory that was read as no context and no edit (a
    failed edit, an unknown tool, a command that reads no file): its step and why, in the
    words of the import summary (``failed edit: …``, ``unknown tool 'foo'``)."""

    step: Annotated[int, msgspec.Meta(ge=0)]
    reason: str


PASSED_OVER_SHOWN = 20
"""Most passed-over steps a report or bundle lists for one case."""


def passed_over_text(entries: list[PassedOver], limit: int = PASSED_OVER_SHOWN) -> str:
    """``step 4 (failed edit: …), step 9 (unknown tool 'foo') and 3 more``: the steps by
    number, never a count that reads as one. Plain text: each renderer escapes it."""
    shown = ", ".join(f"step {e.step} ({e.reason})" for e in entries[:limit])
    return shown + (f" and {len(entries) - limit} more" if len(entries) > limit else "")


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
    cost: Cost | None = None          # optional: tokens and/or US dollars for this attempt
    retriever: str | None = None
    # "sha256:HEX" of the retriever configuration the run actually used (spec, settings)
    retriever_config: str | None = None
    error: str | None = None
    queried_at: str | None = None     # ISO 8601 UTC time the retriever was asked
    repeat_group: str | None = None   # attempts of one case repeated on purpose (run --repeat)
    # An imported agent trajectory: the spans it edited, and its final patch or answer.
    edits: list[Edit] | None = None
    final: str | None = None
    # Its tool calls read as no context and no edit, by step (left out when none was).
    passed_over: list[PassedOver] | None = None
    # Top-level fields of the retriever's answer that codegold does not read, kept as is.
    extra: dict[str, Any] | None = None
    # What codegold noticed about the answer: one that held something no parser read
    # (its first 200 characters, redacted). Not an error: the attempt is scored as ranked.
    note: str | None = None
    format: Literal[1] = 1


MAX_CHUNKS = 10_000
"""Most chunks one answer (an attempt's ``ranked`` or ``candidates``, a retriever's
response) may hold: no answer stage reads more, and millions of tiny chunks in one line
would cost gigabytes to decode."""


_CHUNK_KEY = b'"chunk_id"'
# Shorter than this, a line cannot name more than two answers' worth of chunks.
_FEWEST_BYTES_OVER = (2 * MAX_CHUNKS + 1) * len(_CHUNK_KEY)


def too_many_chunks(raw: bytes) -> int | None:
    """How many chunks the JSON ``raw`` names when that is more than two answers' worth
    (ranked and candidates, :data:`MAX_CHUNKS` each), counted before decoding; else None.
    A line too short to hold that many keys is not scanned."""
    if len(raw) < _FEWEST_BYTES_OVER:
        return None
    count = raw.count(_CHUNK_KEY)
    return count if count > 2 * MAX_CHUNKS else None


def chunk_count_problem(ranked: list[Chunk], candidates: list[Chunk] | None) -> str | None:
    """Why an answer holds too many chunks (None when it does not)."""
    for name, chunks in (("ranked", ranked), ("candidates", candidates or [])):
        if len(chunks) > MAX_CHUNKS:
            return f"{len(chunks)} {name} chunks in one answer; at most {MAX_CHUNKS} are taken"
    return None


_DECODER = msgspec.json.Decoder(Attempt)
_ENCODER = msgspec.json.Encoder()
# Roles and language names codegold knows: a label that is one of them holds no secret
# (what most chunks carry, so most are not scanned); any other is text a retriever wrote.
_KNOWN_LABELS = frozenset((*ROLES, *BY_NAME))


def _plain_label(value: str | None) -> bool:
    return value is None or value in _KNOWN_LABELS


def _clean_chunk(chunk: Chunk) -> Chunk:
    # Ids, paths, lines and scores are compared, never shown as prose: only the text a
    # retriever wrote freely is scanned (most chunks hold none but a symbol name), roles
    # and languages too unless codegold knows them.
    changes: dict[str, Any] = {}
    if chunk.excerpt:
        whole = secret_file_kind(chunk.file)
        clean = redact_once(chunk.excerpt, code=is_program_text(chunk.file)) if whole is None \
            else redact_whole(chunk.excerpt, whole)
        if clean is not chunk.excerpt and clean != chunk.excerpt:
            changes["excerpt"] = clean
    if chunk.symbol is not None and len(chunk.symbol) >= 4:
        clean = redact_once(chunk.symbol)
        if clean != chunk.symbol:
            changes["symbol"] = clean
    if chunk.symbols:
        cleaned = tuple(redact_once(s) for s in chunk.symbols)
        if cleaned != chunk.symbols:
            changes["symbols"] = cleaned
    for name in ("tool", "role", "language"):
        value = getattr(chunk, name)
        if value is not None and value not in _KNOWN_LABELS:
            clean = redact_once(value)
            if clean != value:
                changes[name] = clean
    resolved = chunk.resolved
    if resolved is not None and (resolved.note or resolved.symbols
                                 or not _plain_label(resolved.role)):
        note = None if resolved.note is None else redact_once(resolved.note)
        symbols = tuple(redact_once(s) for s in resolved.symbols)
        role = resolved.role if resolved.role is None or resolved.role in _KNOWN_LABELS \
            else redact_once(resolved.role)
        if note != resolved.note or symbols != resolved.symbols or role != resolved.role:
            changes["resolved"] = msgspec.structs.replace(resolved, note=note, symbols=symbols,
                                                          role=role)
    if chunk.extra:  # what a retriever sent that codegold keeps unread (its chunk ``text``)
        extra = redact_data(chunk.extra, file=chunk.file)
        if extra != chunk.extra:
            changes["extra"] = extra
    return msgspec.structs.replace(chunk, **changes) if changes else chunk


def _clean_chunks(chunks: list[Chunk] | None) -> list[Chunk] | None:
    if not chunks:
        return chunks
    # Copied only when a chunk changes: almost none does, and then the list is kept as is.
    cleaned: list[Chunk] | None = None
    for index, chunk in enumerate(chunks):
        if not chunk.excerpt and chunk.resolved is None and chunk.tool is None \
                and not chunk.symbols and not chunk.extra \
                and (chunk.symbol is None or len(chunk.symbol) < 4) \
                and (chunk.role is None or chunk.role in _KNOWN_LABELS) \
                and (chunk.language is None or chunk.language in _KNOWN_LABELS):
            continue  # no free text _clean_chunk would scan (ids, paths, numbers only)
        clean = _clean_chunk(chunk)
        if clean is not chunk:
            if cleaned is None:
                cleaned = list(chunks)
            cleaned[index] = clean
    return chunks if cleaned is None else cleaned


# The last manifest cleaned, its clean form, and whether they differ: a run's attempts
# carry one manifest (or a few), compared in C here instead of rescanning its fields for
# every attempt. One tuple, replaced whole, so threads never see half of a pair.
_last_manifest: tuple[Manifest, Manifest, bool] | None = None


def _clean_manifest(manifest: Manifest) -> Manifest:
    """``manifest`` with its free text redacted: the repository (a URL may hold
    credentials), dates, version and revision names, the chunker's and the embedder's name
    and version (an embedder is named by its spec). Ids, shas, globs and counts are kept;
    the same object when nothing was found."""
    global _last_manifest
    memo = _last_manifest
    if memo is not None and memo[0] == manifest:
        return memo[1] if memo[2] else manifest
    clean = _cleaned_manifest(manifest)
    _last_manifest = (manifest, clean, clean is not manifest)
    return clean


def _cleaned_manifest(manifest: Manifest) -> Manifest:
    changes: dict[str, Any] = {}
    for name in ("repository", "created_at", "codegold_version", "revision_given"):
        value = getattr(manifest, name)
        if value is not None:
            clean = redact_once(value)
            if clean != value:
                changes[name] = clean
    for name in ("chunker", "embedder"):
        part = getattr(manifest, name)
        if part is not None:
            label, version = redact_once(part.name), redact_once(part.version)
            if label != part.name or version != part.version:
                changes[name] = msgspec.structs.replace(part, name=label, version=version)
    return msgspec.structs.replace(manifest, **changes) if changes else manifest


def redact_attempt(attempt: Attempt) -> Attempt:
    """``attempt`` with every secret value in its free text replaced by ``<SECRET:kind>``:
    the query as sent and rewritten, filters (keys and values), timing names, the error,
    the final answer, why an agent's calls were passed over, what the retriever sent that
    codegold keeps unread (``extra``, the answer's and each chunk's), excerpts, symbols
    (reported and resolved) and notes of its chunks, and the free text of its index
    manifest (:func:`_clean_manifest`). The same object when nothing was found.

    This is where text from outside enters, once: attempts are redacted as they are
    written (``run``) and as they are read (``eval``, ``diagnose``, ``link``…), so what is
    built from them (results, reports, bundles) never needs scanning again. Identifiers
    (case, attempt, chunk ids), paths and numbers are not scanned: they are matched, not
    read as prose. Each distinct text is scanned once (remembered by value).
    """
    changes: dict[str, Any] = {}
    query = attempt.query
    if query is not None:
        raw = redact_once(query.raw)
        rewritten = None if query.rewritten is None else redact_once(query.rewritten)
        filters = redact_data(query.filters) if query.filters else query.filters
        if raw != query.raw or rewritten != query.rewritten or filters != query.filters:
            changes["query"] = Query(raw=raw, rewritten=rewritten, filters=filters)
    for name in ("error", "final", "retriever", "run_id", "repeat_group", "note"):
        value = getattr(attempt, name)
        if value is not None:
            clean = redact_once(value)
            if clean != value:
                changes[name] = clean
    if attempt.manifest is not None:
        manifest = _clean_manifest(attempt.manifest)
        if manifest is not attempt.manifest:
            changes["manifest"] = manifest
    if attempt.extra:
        extra = redact_data(attempt.extra)
        if extra != attempt.extra:
            changes["extra"] = extra
    if attempt.timing_ms:
        timing = {redact_once(key): value for key, value in attempt.timing_ms.items()}
        if timing.keys() != attempt.timing_ms.keys():
            changes["timing_ms"] = timing
    for name in ("ranked", "candidates"):
        chunks = getattr(attempt, name)
        cleaned = _clean_chunks(chunks)
        if cleaned is not chunks:
            changes[name] = cleaned
    if attempt.edits:
        edits = [e if e.tool is None or redact_once(e.tool) == e.tool
                 else msgspec.structs.replace(e, tool=redact_once(e.tool)) for e in attempt.edits]
        if any(a is not b for a, b in zip(edits, attempt.edits, strict=True)):
            changes["edits"] = edits
    if attempt.passed_over:
        reasons = [redact_once(p.reason) for p in attempt.passed_over]
        if any(r != p.reason for r, p in zip(reasons, attempt.passed_over, strict=True)):
            changes["passed_over"] = [PassedOver(step=p.step, reason=r)
                                      for r, p in zip(reasons, attempt.passed_over, strict=True)]
    return msgspec.structs.replace(attempt, **changes) if changes else attempt


def untyped_parts(attempt: Attempt) -> list[tuple[Any, int]]:
    """The parts of an attempt its type does not bound (``query.filters``, 3 deep)."""
    return [(attempt.query.filters, 3)] if attempt.query is not None and attempt.query.filters \
        else []


def decode_attempt(line: bytes, *, path: str = "<attempt>", line_number: int | None = None) -> Attempt:
    many = too_many_chunks(line)
    if many is not None:
        raise SchemaError(f"{many} chunks in one attempt; at most {MAX_CHUNKS} ranked and "
                          f"{MAX_CHUNKS} candidates are taken", path=path, line=line_number)
    try:
        attempt = _DECODER.decode(line)
        if len(attempt.ranked) > MAX_CHUNKS or attempt.candidates:  # else within bounds
            problem = chunk_count_problem(attempt.ranked, attempt.candidates)
            if problem is not None:
                raise SchemaError(problem, path=path, line=line_number)
        if attempt.query is not None and attempt.query.filters:
            for part, depth in untyped_parts(attempt):
                check_depth(part, path, line_number, start=depth)
        return redact_attempt(attempt)
    except msgspec.ValidationError as err:
        text = describe_validation_error(str(err), Attempt)
        if text.endswith("(at $)") and text.startswith("Expected `object`"):
            text = text.replace("Expected `object`", "each line must be a JSON object", 1)
        elif text.endswith("(at $.format)"):
            text = f"unsupported attempts format; this codegold reads format {ATTEMPTS_FORMAT}"
        raise SchemaError(text, path=path, line=line_number) from None
    except msgspec.DecodeError as err:
        if line.startswith(b"\xef\xbb\xbf"):
            raise SchemaError("the line starts with a UTF-8 byte-order mark; save the file "
                              "as UTF-8 without a BOM", path=path, line=line_number) from None
        raise SchemaError(f"invalid JSON: {err}", path=path, line=line_number) from None
    except RecursionError:
        raise SchemaError(f"nested deeper than {MAX_DEPTH} levels", path=path,
                          line=line_number) from None


def iter_attempts(path: str, *, digest: Any = None) -> Iterator[Attempt]:
    """Stream attempts from a JSONL file, naming the line of any malformed one.

    The file is read in bounded pieces so memory stays flat however large the run is;
    one line may hold at most ``MAX_LINE_BYTES``. When ``digest`` (a hashlib object) is
    given it is filled with the file's bytes (see :class:`AttemptsFile`), complete once
    the last attempt is read.
    """
    with AttemptsFile(path, digest) as attempts:
        yield from attempts


def _unseen(block: bytes) -> None:
    """What :class:`AttemptsFile` does with a block when no digest is asked for."""


class AttemptsFile:
    """An attempts file opened for one pass. With a ``digest``, the file's SHA-256 is
    made meanwhile on a thread (:class:`~codegold.model.io.reading.DigestAhead`; a pipe
    is hashed as it is read): open it, do other work (load the cases), then iterate.
    The digest is complete, and checked against the bytes read, once the iteration
    ends; a file written to while it was read is an InputError then. Use as a context
    manager or call :meth:`close`."""

    def __init__(self, path: str, digest: Any = None) -> None:
        self.path = path
        self._digest = digest
        self._handle = open_input(path, "attempts")
        self._ahead = DigestAhead.start(self._handle, path, "attempts", digest) \
            if digest is not None else None
        self._read = 0

    def __enter__(self) -> AttemptsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _count(self, block: bytes) -> None:
        self._read += len(block)

    def __iter__(self) -> Iterator[Attempt]:
        path, ahead = self.path, self._ahead
        # each block read is counted (hashed ahead), hashed here (a pipe), or let pass
        seen = self._count if ahead is not None else \
            self._digest.update if self._digest is not None else _unseen
        lines = block_lines(self._handle, path, seen)
        with closing(lines):
            for number, line in lines:
                if not line.isspace():  # a blank line is skipped (strip() would copy it)
                    yield decode_attempt(line, path=path, line_number=number)
        if ahead is not None:
            ahead.finish(self._read)

    def close(self) -> None:
        if self._ahead is not None:
            self._ahead.cancel()
        self._handle.close()


def encode_attempt(attempt: Attempt) -> bytes:
    """One JSONL line (without the newline)."""
    return _ENCODER.encode(attempt)
