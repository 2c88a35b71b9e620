"""Build an index of one repository revision, atomically and incrementally.

The build writes into a temporary sibling of the output directory, writes
``manifest.json`` (``complete: true``) last, and only then renames the directory into
place, so an interrupted build never leaves an index that claims to be complete.
Files whose blob is unchanged since a previous index built by the same chunker version
are copied from it instead of being parsed again; with a chunk store
(:mod:`codegold.index.chunkstore`) a file chunked for any earlier revision is read back
from the store instead of being parsed again. One module per job:

==================  ====================================================================
:mod:`.driver`      ``build_index``: lock, temporary folder, the build loop, the swap
:mod:`.plan`        what happens to each path (read, copy, store, or left unread)
:mod:`.batching`    blobs read and chunked in order, here or in batches on workers
:mod:`.chunking`    one file's work, the same in this process and in a worker
:mod:`.redaction`   secret values replaced before chunking; secret-bearing paths left out
:mod:`.reuse`       a previous index's verified rows and its caches taken over
:mod:`.naming`      the repository's name; unindexable file names shown escaped
:mod:`.stamps`      build id, ``created_at`` / ``SOURCE_DATE_EPOCH``, meta, manifest
==================  ====================================================================

None of these modules shapes chunks: the chunker's fingerprint
(:mod:`codegold.index.fingerprint`) leaves them out.
"""

from __future__ import annotations

from codegold.index.build.driver import BuildProgress, ProgressFn, build_index, check_store_apart
from codegold.index.build.naming import display_name, repository_name
from codegold.index.build.redaction import redact_blob
from codegold.index.build.reuse import reuse_key
from codegold.index.build.stamps import build_id
from codegold.index.store import read_manifest

__all__ = ["BuildProgress", "ProgressFn", "build_id", "build_index", "check_store_apart",
           "display_name", "read_manifest", "redact_blob", "repository_name", "reuse_key"]
