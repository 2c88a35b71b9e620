"""Build an index of one repository revision, atomically and incrementally.

The build writes into a temporary sibling of the output directory, writes
``manifest.json`` (``complete: true``) last, and only then renames the directory into
place, so an interrupted build never leaves an index that claims to be complete.
Files whose blob is unchanged since a previous index built by the same chunker version
are copied from it instead of being parsed again; with a chunk store
(:mod:`codegold.index.chunkstore`) a file chunked for any earlier revision is read back
from the store instead of being parsed again.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from codegold import __version__
from codegold.errors import CodegoldError, CodeIndexError, InputError
from codegold.index.categories import categorize, folder_rule
from codegold.index.chunker import CHUNKER_NAME, CHUNKER_VERSION, chunk_file
from codegold.index.chunkstore import ChunkStore, StoredFile, decode_stored, encode_stored
from codegold.index.clones import GENERIC_FOLDERS, repository_of_folder
from codegold.index.gitsnap import MODE_GITLINK, MODE_SYMLINK, GitSnapshot, TreeEntry
from codegold.index.outdir import (
    build_lock,
    check_output,
    prepare_parent,
    remove_stale_temps,
    temp_name,
)
from codegold.index.policy import PathPolicy
from codegold.index.pool import OrderedPool, default_workers
from codegold.index.records import FileChunks, InventoryEntry
from codegold.index.store import (
    INDEX_FILE,
    MANIFEST_FILE,
    REUSE_MACS,
    STORE_FORMAT,
    IndexReader,
    IndexWriter,
    read_manifest,
    token_fields,
)
from codegold.model import ChunkerInfo, Manifest, PathPolicyInfo
from codegold.model.languages import DATA_TEXT_LANGUAGES, language_of
from codegold.plumbing import secrets
from codegold.plumbing.git import git
from codegold.plumbing.outputs import (
    cache_folder,
    move_cache_folder,
    read_cache_file,
    swap_folder,
    write_cache_file,
)


@dataclass(frozen=True)
class BuildProgress:
    """A progress report; ``stage`` is ``listing``, ``chunking`` or ``done``."""

    stage: str
    files_done: int
    files_total: int
    chunks: int
    parsed: int
    reused: int
    elapsed_s: float


ProgressFn = Callable[[BuildProgress], None]
_PROGRESS_INTERVAL_S = 0.5


def build_id(repository: str, revision: str, policy: PathPolicy) -> str:
    """Identity of a build: same inputs and codegold version → same id."""
    key = msgspec.json.encode([repository, revision, policy.hash, CHUNKER_NAME,
                               CHUNKER_VERSION, STORE_FORMAT, __version__])
    return hashlib.sha256(key).hexdigest()[:20]


# The latest moment datetime can represent (9999-12-31T23:59:59Z).
_MAX_EPOCH = 253402300799


def _created_at() -> str:
    """The manifest's ``created_at``: now, or ``SOURCE_DATE_EPOCH`` when it is set.

    Reproducible-build setups pin the one time-dependent field with it; a value that is
    set but is not a whole number of seconds in 0..9999-12-31 is an InputError, never a
    silently different timestamp.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None or epoch == "":
        moment = dt.datetime.now(dt.UTC)
    else:
        text = epoch.strip()
        if not text.isascii() or not text.isdigit() or int(text) > _MAX_EPOCH:
            raise InputError(f"SOURCE_DATE_EPOCH is {epoch[:40]!r}; expected a whole number of "
                             f"seconds since 1970 from 0 to {_MAX_EPOCH} (or unset it)")
        moment = dt.datetime.fromtimestamp(int(text), dt.UTC)
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


_SCP_REMOTE = re.compile(r"^[\w.-]+@[\w.-]+:")


def repository_name(snapshot: GitSnapshot) -> str:
    """The manifest's repository name: ``host/owner/name`` style from a hosted origin
    remote (:meth:`GitSnapshot.identity`), else a folder name.

    A remote that is a local path (a clone of a clone, a bare mirror) names only its last
    folder, never the machine's directories above it; a bare repository or a ``.git``
    directory given as REPO names the project folder, ``.git`` stripped (``shop.git`` and
    ``shop/.git`` are both ``shop``).
    """
    try:
        done = git(["config", "--get", "remote.origin.url"], repo=snapshot.repo, timeout=60,
                   check=False)
        url = done.stdout.decode("utf-8", "replace").strip() if done.ok else ""
    except CodeIndexError:
        url = ""
    local = url and ("://" not in url or url.startswith("file://")) and not _SCP_REMOTE.match(url)
    if url and not local:
        name = snapshot.identity()
        if name:
            return name
    path = Path(url.removeprefix("file://")) if local else snapshot.repo.resolve()
    parts = [part for part in path.parts if part not in ("/", ".", "")]
    while parts and parts[-1] == ".git":
        parts.pop()
    if not parts:
        parts = [snapshot.repo.resolve().name or "repository"]
    name = parts[-1].removesuffix(".git") or "repository"
    if name.lower() in GENERIC_FOLDERS and len(parts) >= 2:
        # A mirror kept as ``owner+name/repo`` or ``owner__name/repo``: the folder above
        # names the project, and its owner/name spelling is the repository's own.
        parent = parts[-2].removesuffix(".git")
        return repository_of_folder(parent) or parent or name
    return name


_KEY_BYTES = 32


def reuse_key() -> bytes | None:
    """This user's key for the digests that let a build reuse a previous index's rows
    (``$XDG_CACHE_HOME/codegold/reuse.key``, made on first use, readable by the user only).
    None when it cannot be read or made: nothing is reused then, everything is parsed."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "codegold" / "reuse.key"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(os.urandom(_KEY_BYTES))
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            key = handle.read(_KEY_BYTES + 1)
    except OSError:
        return None
    return key if len(key) == _KEY_BYTES else None


def _record_macs(index_dir: Path, macs: dict[str, str]) -> None:
    folder, name = REUSE_MACS
    with contextlib.suppress(OSError, CodegoldError):  # a cache: its loss costs only reuse
        write_cache_file(cache_folder(index_dir, folder) / name,
                         msgspec.json.encode(dict(sorted(macs.items()))))


def _recorded_macs(index_dir: Path) -> dict[str, str]:
    folder, name = REUSE_MACS
    try:
        raw = read_cache_file(index_dir / folder / name, limit=256 * 1024**2)
        return msgspec.json.decode(raw, type=dict[str, str])
    except (OSError, CodegoldError, msgspec.DecodeError, msgspec.ValidationError):
        return {}


def _previous_blobs(source: Path, explicit: bool, redact: bool = True
                    ) -> dict[str, str] | None:
    """Path → blob sha of reusable files in a previous index, or None when it cannot be
    reused (missing, incomplete, another chunker version or store format, or secret
    values kept where this build redacts them, or the other way round)."""
    try:
        with IndexReader.open(source) as previous:
            version = previous.meta("chunker_version")
            if (previous.meta("secrets") == "kept") == redact:
                if explicit:
                    raise CodeIndexError(f"cannot reuse {source}: it was built with secret "
                                         f"redaction {'off' if redact else 'on'}, this "
                                         f"build has it {'on' if redact else 'off'}")
                return None
            if version != CHUNKER_VERSION:
                if explicit:
                    raise CodeIndexError(f"cannot reuse {source}: built by chunker version "
                                      f"{version}, this build uses {CHUNKER_VERSION}")
                return None
            key = reuse_key()
            # Only rows that still digest to what their build recorded, under this user's
            # key, are copied: an edited row (or an index built elsewhere) is parsed again.
            recorded = _recorded_macs(source)
            verified = previous.verified_files(key, recorded) if key and recorded else set()
            return {entry.path: entry.blob_sha for entry in previous.iter_inventory()
                    if entry.blob_sha and entry.fate in ("indexed", "fallback", "skipped")
                    and entry.reason not in ("symlink: never followed",)
                    and entry.path in verified}
    except CodeIndexError:
        if explicit:
            raise
        return None


# The caches readers add to an index folder (see outdir._INDEX_CACHES) and the vector
# store inside dense/, whose rows are keyed by embedder and text, so valid for any build.
_BUILD_CACHES = ("lexical", "dense")
_VECTOR_STORE = ("dense", "store")


def _carry_caches(out: Path, built: Path, build: str | None) -> list[str]:
    """Move the caches of the index at ``out`` into ``built`` when they are still valid:
    all of them when ``out`` holds the same build (same repository, revision, policy and
    chunker: the same chunks), else only the content-addressed vector store. Only real
    folders holding nothing but real files and folders move (a planted link is removed
    with the old index, its target never touched); readers check every cache file again
    anyway. Returns what was carried."""
    try:
        old = read_manifest(out).index_build_id if (out / MANIFEST_FILE).is_file() else None
    except (CodegoldError, OSError):
        old = None
    if old is None:
        return []
    moves = [(name,) for name in _BUILD_CACHES] if old == build else [_VECTOR_STORE]
    # a cache that cannot move is only ever a copy: the next query rebuilds it
    return ["/".join(parts) for parts in moves if move_cache_folder(out, built, parts)]


def _replace_dir(built: Path, out: Path) -> None:
    """Move ``built`` to ``out``; an existing index at ``out`` is swapped out first."""
    swap_folder(built, out, aside=temp_name(out, "old"))


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _name_problem(path: str) -> str | None:
    """Why a path from git cannot be indexed as is, or None.

    Names that are not UTF-8 (decoded with surrogateescape) cannot be stored or matched
    against case files; names with control characters (a newline, a tab) would break
    every line-based output that names a file.
    """
    if any("\udc80" <= char <= "\udcff" for char in path):
        return "is not valid UTF-8"
    if _CONTROL.search(path):
        return "contains a control character"
    return None


def display_name(path: str) -> str:
    """The inventory form of an unindexable name: undecodable bytes and control
    characters written as ``\\xNN`` (so ``caf\\xe9.py``, ``a\\x0ab.py``)."""
    raw = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", raw)


def _with_folder_rule(result: FileChunks, data: bytes) -> FileChunks:
    """``result`` with the folder-name rule that decided its category, if any, added to
    the inventory reason (so ``inspect --file`` shows why ``doc/`` code is source)."""
    entry = result.entry
    rule = folder_rule(entry.path, data, entry.language, category=entry.category)
    if rule is None:
        return result
    reason = "; ".join(part for part in (entry.reason, rule) if part)
    return msgspec.structs.replace(result, entry=msgspec.structs.replace(entry, reason=reason))


def _entry_without_content(item: TreeEntry, fate: str, reason: str) -> InventoryEntry:
    language = language_of(item.path)
    category = categorize(item.path, b"", language)
    return InventoryEntry(path=item.path, blob_sha=item.sha, size=item.size, language=language,
                          category=category, fate=fate, reason=reason, chunker=None, chunks=0)


def build_index(repo: str | Path, revision: str, out_dir: str | Path, *,
                policy: PathPolicy | None = None, progress: ProgressFn | None = None,
                reuse_from: Path | None = None, repository: str | None = None,
                store: ChunkStore | None = None, jobs: int | None = None) -> Manifest:
    """Index ``repo`` at ``revision`` into ``out_dir`` and return the manifest written.

    ``reuse_from`` names a previous index whose rows are copied for unchanged blobs; when
    it is None and ``out_dir`` already holds a complete index, that one is reused.
    ``repository`` overrides the repository name derived from the origin remote.
    ``store`` is a chunk store read before parsing a file and filled with what was parsed;
    the index written (and its build id) is the same with or without it.
    ``jobs`` is how many worker processes chunk files (1: none, the build runs in this
    process; None: one per CPU, up to 8, when there are enough files to repay starting
    them and this process runs no other thread); the index written is the same for every
    value.
    Raises InputError for bad arguments or repositories, CodeIndexError when git fails.
    """
    started = time.perf_counter()
    if jobs is not None and jobs < 1:
        raise InputError(f"jobs is {jobs}; expected 1 or more worker processes")
    policy = policy or PathPolicy()
    created_at = _created_at()
    snapshot = GitSnapshot.open(repo, revision)
    identity = repository or repository_name(snapshot)
    shown = Path(out_dir)
    out = check_output(shown, snapshot.repo)
    if store is not None:
        check_store_apart(store.root, out)
    prepare_parent(out, shown)
    with build_lock(out):
        remove_stale_temps(out)
        # Checked again under the lock: another build may have finished meanwhile.
        out = check_output(shown, snapshot.repo)
        return _build_locked(snapshot, identity, out, policy, progress, reuse_from,
                             created_at, started, store, jobs)


def check_store_apart(store: Path, out: Path) -> None:
    """The store and the index must not hold each other: replacing the index would take
    the store with it, and the store's files would make the index folder unusable."""
    store_real, out_real = store.resolve(), out.resolve()
    if store_real == out_real or out_real in store_real.parents or \
            store_real in out_real.parents:
        raise InputError("{store} and the index directory overlap: keep the chunk store "
                         "outside the index (e.g. beside it), and the index outside the store",
                         path=str(store), settings=("store",))


def _build_locked(snapshot: GitSnapshot, identity: str, out: Path, policy: PathPolicy,
                  progress: ProgressFn | None, reuse_from: Path | None, created_at: str,
                  started: float, store: ChunkStore | None = None,
                  jobs: int | None = None) -> Manifest:
    explicit = reuse_from is not None
    reuse_source = reuse_from if reuse_from is not None else (
        out if (out / MANIFEST_FILE).exists() else None)
    previous = _previous_blobs(Path(reuse_source), explicit, policy.secrets) \
        if reuse_source else None
    tmp = temp_name(out, "tmp")
    try:
        tmp.mkdir()
    except OSError as err:
        raise InputError(f"cannot create a build directory beside the output: {err.strerror}",
                         path=str(out.parent)) from err
    writer: IndexWriter | None = None
    key = reuse_key()
    try:
        if previous:
            # Start from a private copy of the previous index and drop what changed:
            # unchanged files then cost nothing but the file copy (and keep the digests
            # they were verified by).
            shutil.copyfile(Path(reuse_source or "") / INDEX_FILE, tmp / INDEX_FILE)
            writer = IndexWriter(tmp / INDEX_FILE, fresh=False, mac_key=key,
                                 kept_macs=_recorded_macs(Path(reuse_source or "")))
        else:
            writer = IndexWriter(tmp / INDEX_FILE, mac_key=key)
        manifest = _build_into(writer, snapshot, identity, policy, previous, progress, started,
                               created_at, store, jobs)
        macs = writer.file_macs(key) if key is not None else None
        writer.finish()
        writer = None
        if macs is not None:
            _record_macs(tmp, macs)
        _write_manifest(tmp / MANIFEST_FILE, manifest)
        _carry_caches(out, tmp, manifest.index_build_id)
        _replace_dir(tmp, out)
    except BaseException:
        if writer is not None:
            writer.abort()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def _build_into(writer: IndexWriter, snapshot: GitSnapshot, identity: str, policy: PathPolicy,
                previous: dict[str, str] | None, progress: ProgressFn | None,
                started: float, created_at: str, store: ChunkStore | None = None,
                jobs: int | None = None) -> Manifest:
    if not policy.secrets:
        store = None  # the shared chunk store holds redacted text only
    entries = snapshot.entries()
    plan: list[tuple[TreeEntry, str]] = []  # action: read | copy | store
    unread: list[InventoryEntry] = []  # paths decided without reading their content
    taken = {item.path for item in entries}
    for item in entries:
        problem = _name_problem(item.path)
        hidden = secrets.find_secrets(item.path) if policy.secrets else []
        if hidden and problem is None:
            # A credential in a file name would reach the inventory, chunk ids, symbols and
            # search tokens: the file is left out and listed under its redacted name.
            shown, kinds = secrets.replace_spans(item.path, hidden)
            if shown not in taken:
                taken.add(shown)
                unread.append(_entry_without_content(
                    TreeEntry(shown, item.mode, item.object_type, item.sha, item.size),
                    "excluded", f"policy: the path holds a secret value "
                                f"({', '.join(sorted(set(kinds)))}): not indexed"))
        elif problem is not None:
            shown = display_name(item.path)
            if shown not in taken:  # an escaped name never shadows a real path
                taken.add(shown)
                unread.append(_entry_without_content(
                    TreeEntry(shown, item.mode, item.object_type, item.sha, item.size),
                    "skipped", f"file name {problem}: not indexed (shown escaped)"))
        elif item.mode == MODE_GITLINK:
            unread.append(_entry_without_content(
                item, "skipped", f"submodule (commit {item.sha[:12]}): not followed"))
        elif item.mode == MODE_SYMLINK:
            unread.append(_entry_without_content(item, "skipped", "symlink: never followed"))
        elif item.object_type != "blob":
            unread.append(_entry_without_content(item, "skipped", f"{item.object_type} entry"))
        else:
            reason = policy.exclusion(item.path, item.size)
            if reason is not None:
                unread.append(_entry_without_content(item, "excluded", reason))
                continue
            reusable = previous is not None and previous.get(item.path) == item.sha
            if reusable:
                plan.append((item, "copy"))
            elif store is not None and store.has(item.path, item.sha):
                plan.append((item, "store"))
            else:
                plan.append((item, "read"))
    if previous is not None:
        writer.keep_only([item.path for item, action in plan if action == "copy"])
    for entry in unread:
        writer.add_entry(entry)

    total = len(plan)
    files_done = chunks = parsed_count = reused = 0
    last_report = 0.0

    def report(stage: str) -> None:
        if progress is not None:
            progress(BuildProgress(stage, files_done, total, chunks, parsed_count, reused,
                                   time.perf_counter() - started))

    report("listing")
    to_read = [item for item, action in plan if action == "read"]
    pool = _start_pool(_workers(jobs, len(to_read)), insisted=jobs is not None)
    with pool if pool is not None else contextlib.nullcontext():
        parsed = _parse(snapshot, to_read, pool, redact=policy.secrets)
        try:
            for item, action in plan:
                if action == "copy":
                    reused += 1
                else:
                    stored = store.get(item.path, item.sha) if store and action == "store" \
                        else None
                    if stored is not None:
                        reused += 1
                        writer.add_file(stored.result, stored.tokens)
                    else:
                        if action == "read":
                            stored, payload = next(parsed)
                        else:  # a damaged store entry: parse this blob here, then rewrite it
                            stored = _chunk_blob(snapshot, item.path,
                                                 *_one_blob(snapshot, item.sha),
                                                 policy.secrets)
                            payload = None
                        writer.add_file(stored.result, stored.tokens)
                        if store is not None:
                            store.put_encoded(item.path, item.sha,
                                              payload or encode_stored(stored))
                        parsed_count += 1
                    chunks += len(stored.result.chunks)
                files_done += 1
                now = time.perf_counter()
                if now - last_report >= _PROGRESS_INTERVAL_S:
                    last_report = now
                    report("chunking")
        finally:
            parsed.close()
    indexed_files = writer.indexed_file_count()
    chunks = writer.chunk_count()
    build = build_id(identity, snapshot.revision, policy)
    writer.set_meta({
        "format": str(STORE_FORMAT), "repository": identity, "revision": snapshot.revision,
        "index_build_id": build, "chunker_name": CHUNKER_NAME,
        "chunker_version": CHUNKER_VERSION, "policy_hash": policy.hash,
        "codegold_version": __version__})
    if not policy.secrets:
        writer.set_meta({"secrets": "kept"})
    report("done")
    return Manifest(
        repository=identity, revision=snapshot.revision, index_build_id=build,
        chunker=ChunkerInfo(name=CHUNKER_NAME, version=CHUNKER_VERSION),
        path_policy=PathPolicyInfo(include=list(policy.include), exclude=list(policy.exclude),
                                   hash=policy.hash),
        embedder=None, files=indexed_files, chunks=chunks, created_at=created_at,
        complete=True, codegold_version=__version__,
        revision_given=snapshot.requested if snapshot.requested != snapshot.revision else None)


def _one_blob(snapshot: GitSnapshot, sha: str) -> tuple[str, bytes]:
    stream = snapshot.blobs([sha])
    try:
        return _expected(sha, *next(stream))
    finally:
        stream.close()


def _expected(wanted: str, sha: str, data: bytes) -> tuple[str, bytes]:
    if sha != wanted:
        raise CodeIndexError(f"git returned object {sha} where {wanted} was expected")
    return sha, data


# Below this many files to parse, starting worker processes costs more than it saves.
_PARALLEL_MIN_FILES = 64
# A batch sent to a worker: enough files to amortise the hand-over, few enough files
# and bytes to keep every worker busy (about four batches each at least) and memory
# bounded.
_BATCH_FILES = 32
_BATCH_BYTES = 1 << 20


def _workers(jobs: int | None, files: int) -> int:
    if jobs is not None:
        return jobs if files > 1 else 1
    # Left to itself, a build never forks a process that runs other threads (a Ray
    # worker, a server): forking those can deadlock. Naming ``jobs`` insists.
    if files < _PARALLEL_MIN_FILES or threading.active_count() > 1:
        return 1
    return default_workers()


def _start_pool(workers: int, *, insisted: bool) -> OrderedPool | None:
    """Worker processes, or None to chunk in this process: when one worker would do, or
    when they cannot start and the caller left the number to the build."""
    if workers <= 1:
        return None
    try:
        return OrderedPool(workers)
    except CodeIndexError:
        if insisted:
            raise
        return None


# One file's work, the same in this process and in a worker.
_Job = tuple[str, bytes, str, str, bool]  # path, content, revision, blob sha, redact secrets



def redact_blob(path: str, data: bytes) -> tuple[bytes, list[str]]:
    """``data`` (the file at ``path``) with secret values replaced, line count kept, and
    the kinds replaced; the same bytes when none was found."""
    text = data.decode("utf-8", "surrogateescape")
    clean, kinds = secrets.redact(text, code=language_of(path) not in DATA_TEXT_LANGUAGES)
    return (clean.encode("utf-8", "surrogateescape"), kinds) if kinds else (data, [])


def _chunk_job(job: _Job) -> StoredFile:
    path, data, revision, blob_sha, redact = job
    kinds: list[str] = []
    if redact:  # before chunking: no chunk, token, symbol or embedding ever sees a value
        data, kinds = redact_blob(path, data)
    result = _with_folder_rule(chunk_file(path, data, revision=revision, blob_sha=blob_sha),
                               data)
    if kinds:
        entry = result.entry
        reason = "; ".join(part for part in (
            entry.reason, f"secrets redacted: {secrets.summary(kinds)}") if part)
        result = msgspec.structs.replace(
            result, entry=msgspec.structs.replace(entry, reason=reason))
    return StoredFile(result, tuple(token_fields(chunk) for chunk in result.chunks))


def _chunk_batch(jobs: list[_Job]) -> list[bytes]:
    """A worker's task: chunk and tokenise each file, results encoded as store entries
    (compact to send back, and stored by the parent without encoding again)."""
    return [encode_stored(_chunk_job(job)) for job in jobs]


def _chunk_blob(snapshot: GitSnapshot, path: str, sha: str, data: bytes, redact: bool
                ) -> StoredFile:
    return _chunk_job((path, data, snapshot.revision, sha, redact))


def _parse(snapshot: GitSnapshot, items: list[TreeEntry], pool: OrderedPool | None, *,
           redact: bool = True) -> Generator[tuple[StoredFile, bytes | None], None, None]:
    """Chunk ``items`` in order: here, or in ``pool``'s workers (then with each result's
    encoded form, ready for the chunk store)."""
    blobs = snapshot.blobs(item.sha for item in items)

    def checked() -> Iterator[tuple[str, bytes, str]]:
        for item in items:
            sha, data = _expected(item.sha, *next(blobs))
            yield item.path, data, sha

    try:
        if pool is None:
            for path, data, sha in checked():
                yield _chunk_blob(snapshot, path, sha, data, redact), None
            return

        per_batch = max(1, min(_BATCH_FILES, len(items) // (4 * pool.workers)))

        def batches() -> Iterator[list[_Job]]:
            batch: list[_Job] = []
            size = 0
            for path, data, sha in checked():
                batch.append((path, data, snapshot.revision, sha, redact))
                size += len(data)
                if len(batch) >= per_batch or size >= _BATCH_BYTES:
                    yield batch
                    batch, size = [], 0
            if batch:
                yield batch

        with contextlib.closing(pool.map(_chunk_batch, batches())) as results:
            for payloads in results:
                for payload in payloads:
                    yield decode_stored(payload), payload
    finally:
        blobs.close()


def _write_manifest(path: Path, manifest: Manifest) -> None:
    payload = msgspec.json.format(msgspec.json.encode(manifest), indent=2) + b"\n"
    with path.open("wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())


__all__ = ["BuildProgress", "ProgressFn", "build_id", "build_index", "check_store_apart",
           "read_manifest", "repository_name"]
