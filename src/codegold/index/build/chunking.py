"""One file's work, the same in this process and in a worker: its secrets redacted, its
chunks cut, the folder rule that decided its category noted, its search tokens made and
the digest of its index rows taken (so the build only keys it)."""

from __future__ import annotations

import msgspec

from codegold.index.build.redaction import redact_blob, redaction_reason
from codegold.index.categories import folder_rule
from codegold.index.chunker import chunk_file
from codegold.index.chunkstore import StoredFile, encode_stored
from codegold.index.gitsnap import GitSnapshot
from codegold.index.records import FileChunks
from codegold.index.store import rows_digest, token_fields

Job = tuple[str, bytes, str, str, bool]  # path, content, revision, blob sha, redact secrets


def _with_folder_rule(result: FileChunks, data: bytes) -> FileChunks:
    """``result`` with the folder-name rule that decided its category, if any, added to
    the inventory reason (so ``inspect --file`` shows why ``doc/`` code is source)."""
    entry = result.entry
    rule = folder_rule(entry.path, data, entry.language, category=entry.category)
    if rule is None:
        return result
    reason = "; ".join(part for part in (entry.reason, rule) if part)
    return msgspec.structs.replace(result, entry=msgspec.structs.replace(entry, reason=reason))


def chunk_job(job: Job) -> StoredFile:
    path, data, revision, blob_sha, redact = job
    kinds: list[str] = []
    if redact:  # before chunking: no chunk, token, symbol or embedding ever sees a value
        data, kinds = redact_blob(path, data)
    result = _with_folder_rule(chunk_file(path, data, revision=revision, blob_sha=blob_sha),
                               data)
    if kinds:
        entry = result.entry
        reason = "; ".join(part for part in (
            entry.reason, redaction_reason(kinds)) if part)
        result = msgspec.structs.replace(
            result, entry=msgspec.structs.replace(entry, reason=reason))
    tokens = tuple(token_fields(chunk) for chunk in result.chunks)
    return StoredFile(result, tokens, rows_digest(result, tokens))


def chunk_batch(jobs: list[Job]) -> list[bytes]:
    """A worker's task: chunk and tokenise each file, results encoded as store entries
    (compact to send back, and stored by the parent without encoding again)."""
    return [encode_stored(chunk_job(job)) for job in jobs]


def chunk_blob(snapshot: GitSnapshot, path: str, sha: str, data: bytes, redact: bool
               ) -> StoredFile:
    return chunk_job((path, data, snapshot.revision, sha, redact))
