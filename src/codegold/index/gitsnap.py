"""Read a repository's objects at one revision through git plumbing, never a checkout.

``git rev-parse`` resolves the revision, ``git ls-tree -r -z --long`` lists every path
with its mode, blob id and size, and one ``git cat-file --batch`` process streams the
blobs. Many revisions built one after another share those processes
(:class:`GitObjects`): one ``cat-file --batch`` and one ``--batch-check`` serve them
all. The user's working tree and index are never touched.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from pathlib import Path

from codegold.errors import CodeIndexError, InputError
from codegold.plumbing.git import END_OF_OPTIONS, GitProcess, git, git_popen, is_full_sha
from codegold.plumbing.process import kill_group

# A blob stream that makes no progress for this long is stopped (a hung git, a dead disk).
BLOB_STALL_SECONDS = 120.0
_TREE_LINE = re.compile(rb"tree [0-9a-f]+\n")
_SCP_URL = re.compile(r"^[\w.-]+@[\w.-]+:(?P<path>.+)$")

MODE_SYMLINK = "120000"
MODE_GITLINK = "160000"


@dataclass(frozen=True)
class TreeEntry:
    """One path of the revision's tree (``size`` is None for submodules)."""

    path: str
    mode: str
    object_type: str
    sha: str
    size: int | None


class GitSnapshot:
    """A repository pinned at one full commit sha."""

    def __init__(self, repo: Path, revision: str, requested: str,
                 objects: GitObjects | None = None) -> None:
        self.repo = repo
        self.revision = revision
        self.requested = requested
        # Shared with the other revisions of a many-revision build: its git processes.
        self.objects = objects
        self._missing: set[str] | None = None

    @classmethod
    def resolved(cls, objects: GitObjects, commit: str) -> GitSnapshot:
        """A snapshot of ``commit``, a full commit sha git already named in
        ``objects``' repository (see :meth:`open`), without asking git again."""
        if not is_full_sha(commit):
            raise InputError(f"{commit!r} is not a full commit sha")
        return cls(objects.repo, commit, commit, objects)

    @classmethod
    def open(cls, repo: str | Path, revision: str) -> GitSnapshot:
        """Resolve ``revision`` (branch, tag, short or full sha) in ``repo``.

        Raises :class:`InputError` with a fix-it message for a missing git, a path that
        is not a repository, an empty repository, an unknown revision or a shallow clone
        that lacks it.
        """
        if shutil.which("git") is None:
            raise CodeIndexError("git is not installed or not on PATH; codegold reads "
                              "repositories through git plumbing")
        path = Path(repo)
        if not path.is_dir():
            raise InputError("repository path does not exist or is not a directory",
                             path=str(path))
        probe = _run(path, ["rev-parse", "--git-dir"], check=False)
        if probe.returncode != 0:
            raise InputError("not a git repository ('git rev-parse --git-dir' failed)",
                             path=str(path))
        if not revision or revision.startswith("-"):
            raise InputError(f"revision {revision!r} is not a valid revision name")
        # ``^{commit}`` peels an annotated tag to its commit: a tag object's own id is
        # never a revision an index may carry.
        resolved = _run(path, ["rev-parse", "--verify", "--quiet", END_OF_OPTIONS,
                               f"{revision}^{{commit}}"], check=False)
        if resolved.returncode == 0 and is_full_sha(resolved.stdout.strip()):
            refuse_ambiguous(path, [revision])
            return cls(path, resolved.stdout.strip(), revision)
        if _run(path, ["rev-parse", "--verify", "--quiet", "HEAD"], check=False).returncode != 0:
            anything = _run(path, ["rev-list", "-n", "1", "--all"], check=False)
            if not anything.stdout.strip():
                raise InputError("repository has no commits; commit something, or point "
                                 "at another repository", path=str(path))
            branch = _run(path, ["symbolic-ref", "--quiet", "--short", "HEAD"], check=False)
            if revision == "HEAD" and branch.returncode == 0:
                raise InputError(f"HEAD is on branch {branch.stdout.strip()!r}, which has no "
                                 "commits yet; name a branch, tag or commit that has some",
                                 path=str(path))
        shallow = _run(path, ["rev-parse", "--is-shallow-repository"], check=False)
        if shallow.stdout.strip() == "true":
            raise InputError(
                f"revision {revision!r} is not in this shallow clone; fetch it with "
                f"'git fetch --unshallow' or 'git fetch origin {revision}'", path=str(path))
        if _SHORT_SHA.fullmatch(revision):
            commits = _commits_by_prefix(path, revision)
            if len(commits) > 1:
                raise InputError(f"revision {revision!r} is ambiguous: {len(commits)} commits' "
                                 f"ids start with it ({', '.join(sorted(commits)[:4])}); give "
                                 "more of the sha", path=str(path))
        kind = _run(path, ["cat-file", "-t", END_OF_OPTIONS, revision], check=False)
        if kind.returncode == 0 and kind.stdout.strip() in ("tree", "blob"):
            raise InputError(f"revision {revision!r} names a {kind.stdout.strip()}, not a "
                             "commit; give the commit (or a branch or tag of it)",
                             path=str(path))
        raise InputError(f"unknown revision {revision!r}: no commit by that name; check "
                         "'git log' or fetch the branch/tag", path=str(path))

    def identity(self) -> str:
        """A stable repository name: the origin remote as ``host/owner/name``, else the
        directory name. It feeds the build id, so it must not depend on the machine."""
        remote = _run(self.repo, ["config", "--get", "remote.origin.url"], check=False)
        url = remote.stdout.strip()
        if url:
            scp = _SCP_URL.match(url)
            tail = scp.group("path") if scp else re.sub(r"^[a-z+]+://([^@/]*@)?", "", url)
            tail = tail.rstrip("/")
            tail = tail.removesuffix(".git")
            parts = [p for p in tail.split("/") if p]
            if len(parts) >= 2:
                return "/".join(parts[-2:])
        top = _run(self.repo, ["rev-parse", "--show-toplevel"], check=False).stdout.strip()
        name = Path(top).name if top else self.repo.resolve().name
        return name.removesuffix(".git")

    def entries(self, *, sizes: bool = True) -> list[TreeEntry]:
        """Every path at the revision, in git's (byte-wise) order; without ``sizes`` every
        size is None (see :meth:`sized`: git reads a blob's header for its size, which
        costs a file read each for loose objects)."""
        missing = self.missing_blobs()
        if self.objects is not None and not self.objects.partial():
            # read through the shared cat-file process, subtrees unchanged since an
            # earlier revision taken as they were listed then
            listed = self.objects.listing(self.revision)
            return self.sized(listed) if sizes else listed
        # ``--long`` reads every blob's size, which in a partial clone fetches (or fails
        # on) the blobs it lacks: there the sizes of the blobs it holds are asked apart.
        long = [] if missing or not sizes else ["--long"]
        out = _run(self.repo, ["ls-tree", "-r", "-z", *long, "--full-tree", END_OF_OPTIONS,
                               self.revision])
        entries: list[TreeEntry] = []
        for record in out.stdout_bytes.split(b"\0"):
            if not record:
                continue
            meta, _, raw_path = record.partition(b"\t")
            mode, object_type, sha, *size = meta.decode("ascii").split(None, 3)
            path = raw_path.decode("utf-8", "surrogateescape")
            size_value = int(size[0]) if size and size[0].strip().isdigit() else None
            entries.append(TreeEntry(path, mode, object_type, sha, size_value))
        if missing and sizes:
            return self.sized(entries)
        return entries

    def sized(self, entries: list[TreeEntry],
              skip: Callable[[TreeEntry], bool] | None = None) -> list[TreeEntry]:
        """``entries`` (listed without sizes) with each blob's size, as
        :meth:`entries` gives them, but for those ``skip`` names (left None); blobs a
        partial clone lacks stay None."""
        wanted = [e for e in entries if e.object_type == "blob" and not (skip and skip(e))]
        if not wanted:
            return entries
        found = self._sizes(sorted({e.sha for e in wanted} - self.missing_blobs()))
        sized = {e.path: TreeEntry(e.path, e.mode, e.object_type, e.sha, found.get(e.sha))
                 for e in wanted}
        return [sized.get(e.path, e) for e in entries]

    def _sizes(self, shas: list[str]) -> dict[str, int]:
        if not shas:
            return {}
        if self.objects is not None:
            return self.objects.sizes(shas)
        out = _run(self.repo, ["cat-file", _SIZES],
                   stdin="".join(f"{sha}\n" for sha in shas).encode("ascii"))
        sizes: dict[str, int] = {}
        for line in out.stdout.splitlines():
            sha, _, size = line.partition(" ")
            if size.isdigit():
                sizes[sha] = int(size)
        return sizes

    def missing_blobs(self) -> set[str]:
        """The blobs of the revision this clone lacks: none unless it is a partial clone
        (``git clone --filter=blob:limit=...``), whose lacking objects git lists without
        fetching them."""
        if self._missing is not None:
            return self._missing
        self._missing = set()
        if not (self.objects.partial() if self.objects is not None else _is_partial(self.repo)):
            return self._missing
        out = _run(self.repo, ["rev-list", "--objects", "--missing=print", "--no-object-names",
                               END_OF_OPTIONS, self.revision, "--"], check=False)
        self._missing = {line[1:].strip() for line in out.stdout.splitlines()
                         if line.startswith("?")}
        return self._missing

    def blobs(self, shas: Iterable[str]) -> Generator[tuple[str, bytes], None, None]:
        """Stream ``(sha, content)`` for each requested blob, in request order."""
        if self.objects is not None:
            yield from self.objects.blobs(shas)
            return
        wanted = list(shas)
        if not wanted:
            return
        proc = git_popen(["cat-file", "--batch", "--buffer"], repo=self.repo)
        try:
            for sha, _, data in _answers(proc, wanted, self.repo, close=True):
                yield sha, data
        finally:
            _stop(proc)


# A name git may read as a ref name (no ``~``, ``^``, ``:``; never an option).
PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./+@-]{0,254}")


def refuse_ambiguous(repo: Path, names: Iterable[str]) -> None:
    """An InputError for the first of ``names`` that more than one ref answers to, by
    git's rules (``refs/NAME``, ``refs/tags/NAME``, ``refs/heads/NAME``,
    ``refs/remotes/NAME``, ``refs/remotes/NAME/HEAD``), when they name different commits:
    git takes the first quietly (a tag over a branch of the same name), and an index of
    a tree the user did not mean is a silent wrong result. Only plain names are looked
    at (``v1.0``, ``release/2``; not ``v1.0~2`` or a full sha), in one git call a few
    hundred names."""
    plain = [name for name in dict.fromkeys(names)
             if PLAIN_NAME.fullmatch(name) and not is_full_sha(name) and ".." not in name]
    refs: set[str] = set()
    for first in range(0, len(plain), 500):  # only the refs each name may mean are listed
        listed = _run(repo, ["for-each-ref", "--format=%(refname)",
                             *(f"refs/{kind}{name}" for name in plain[first:first + 500]
                               for kind in ("", "tags/", "heads/", "remotes/"))], check=False)
        if listed.returncode == 0:
            refs.update(listed.stdout.splitlines())
    for name in plain:
        found = [ref for ref in (f"refs/{name}", f"refs/tags/{name}", f"refs/heads/{name}",
                                 f"refs/remotes/{name}", f"refs/remotes/{name}/HEAD")
                 if ref in refs]
        if found and _TYPED_SHA.fullmatch(name):
            # A ref named like a short sha (``c729a37``) outranks the commit that sha
            # abbreviates: git warns, and the user who typed a short sha gets another tree.
            found += [f"commit {sha}" for sha in _commits_by_prefix(repo, name)]
        if len(found) < 2:
            continue
        commits = {_run(repo, ["rev-parse", "--verify", "--quiet", END_OF_OPTIONS,
                               f"{ref.removeprefix('commit ')}^{{commit}}"],
                        check=False).stdout.strip()
                   for ref in found}
        if len(commits) > 1:
            raise InputError(f"revision {name!r} is ambiguous: {', '.join(found)} name "
                             "different commits; name the one meant in full (say "
                             f"{found[-1].removeprefix('commit ')})", path=str(repo))


_SHORT_SHA = re.compile(r"[0-9a-f]{4,39}")
# A ref name as long as the short shas git prints (7 and up): read as one the user may
# have typed. Shorter hex names (a branch ``cafe``) are taken as refs, as git takes them.
_TYPED_SHA = re.compile(r"[0-9a-f]{7,39}")


def _commits_by_prefix(repo: Path, prefix: str) -> list[str]:
    """The full ids of the commits (and tags of commits) whose id starts with ``prefix``."""
    listed = _run(repo, ["rev-parse", f"--disambiguate={prefix}"], check=False)
    if listed.returncode != 0:
        return []
    shas = [line for line in listed.stdout.split() if is_full_sha(line)]
    if not shas:
        return []
    kinds = _run(repo, ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
                 stdin="".join(f"{sha}\n" for sha in shas).encode("ascii"), check=False)
    found = []
    for sha, _, kind in (line.partition(" ") for line in kinds.stdout.splitlines()):
        if kind == "commit" or (kind == "tag" and _run(
                repo, ["rev-parse", "--verify", "--quiet", END_OF_OPTIONS, f"{sha}^{{commit}}"],
                check=False).returncode == 0):
            found.append(sha)
    return found


class GitObjects:
    """Long-lived ``git cat-file`` processes of one repository, for the snapshots of many
    revisions built one after another: one ``--batch`` process streams every blob asked
    for and one ``--batch-check`` process every size, instead of a process of each per
    revision; whether the clone is partial is asked of git once. Use as a context
    manager (or :meth:`close`): the processes end with it. A request that stops before
    every answer is read (an error, a consumer that stops early) ends its process, and
    the next request starts a fresh one, so answers never mix."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._batch: GitProcess | None = None
        self._check: GitProcess | None = None
        self._partial: bool | None = None
        # (tree sha, path prefix) -> the entries below it, oldest first (see listing)
        self._listed: OrderedDict[tuple[str, str], list[TreeEntry]] = OrderedDict()
        self._held = 0  # entries in _listed
        self.started = 0  # processes started: one of each kind unless one was ended early

    def __enter__(self) -> GitObjects:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        for proc in (self._batch, self._check):
            if proc is not None:
                _stop(proc)
        self._batch = self._check = None

    def partial(self) -> bool:
        """Whether the repository is a partial clone (its promisor settings)."""
        if self._partial is None:
            self._partial = _is_partial(self.repo)
        return self._partial

    def _process(self, check: bool) -> GitProcess:
        proc = self._check if check else self._batch
        if proc is None or proc.poll() is not None:
            # (no --buffer: git answers each name as it reads it, so a request of a few
            # names is answered while the process waits for the next one)
            proc = git_popen(["cat-file", _SIZES if check else "--batch"], repo=self.repo)
            self.started += 1
            if check:
                self._check = proc
            else:
                self._batch = proc
        return proc

    def _drop(self, proc: GitProcess) -> None:
        _stop(proc)
        if proc is self._batch:
            self._batch = None
        if proc is self._check:
            self._check = None

    def blobs(self, shas: Iterable[str]) -> Generator[tuple[str, bytes], None, None]:
        """``(sha, content)`` of each of ``shas``, in order."""
        for sha, _, data in self._objects(shas):
            yield sha, data

    def _objects(self, shas: Iterable[str]) -> Generator[tuple[str, str, bytes], None, None]:
        """``(sha, type, content)`` of each of ``shas``, in order."""
        wanted = list(shas)
        if not wanted:
            return
        proc = self._process(check=False)
        answered = 0
        try:
            for answer in _answers(proc, wanted, self.repo, close=False):
                answered += 1  # (counted before the consumer may stop: it got them all)
                yield answer
        finally:
            if answered < len(wanted):
                self._drop(proc)

    def listing(self, commit: str) -> list[TreeEntry]:
        """Every path of ``commit``'s tree as ``git ls-tree -r --full-tree`` lists it
        (without sizes), read from tree objects: a subtree already listed at the same path
        (for an earlier revision) is taken as it was, so a revision costs the trees its
        changes touched. The trees of one level are asked for together."""
        ((_, kind, data),) = self._objects([commit])
        head = data[:len(commit) + 6]  # "tree <id>\n" opens every commit object
        if kind != "commit" or not _TREE_LINE.fullmatch(head) or len(head) != len(commit) + 6:
            raise CodeIndexError(f"git cat-file read {commit} as a {kind}, not a commit "
                                 "naming its tree")
        root = head[5:-1].decode("ascii")
        width = len(commit) // 2  # bytes of an object id (SHA-1 or SHA-256)
        parsed: dict[str, list[tuple[str, str, str, str]]] = {}
        level = [(root, "")]
        while level:  # read every uncached tree of one depth in one request
            wanted = [tree for tree, prefix in level
                      if (tree, prefix) not in self._listed and tree not in parsed]
            for sha, kind, data in self._objects(dict.fromkeys(wanted)):
                if kind != "tree":
                    raise CodeIndexError(f"git cat-file read {sha} as a {kind}, not a tree")
                parsed[sha] = _tree_items(data, width)
            level = [(sha, f"{prefix}{name}/")
                     for tree, prefix in level if (tree, prefix) not in self._listed
                     for mode, kind, sha, name in parsed[tree] if kind == "tree"]
        found = self._assemble(root, "", parsed)
        # Trimmed only once the revision is assembled: a kept subtree dropped halfway
        # would be one this revision still needs and never read (it was kept).
        while self._held > _LISTED_ENTRIES and self._listed:
            _, dropped = self._listed.popitem(last=False)
            self._held -= len(dropped)
        return found

    def _assemble(self, tree: str, prefix: str, parsed: dict[str, list[tuple[str, str, str, str]]]
                  ) -> list[TreeEntry]:
        """The entries below ``tree`` (at ``prefix``), depth first in tree order; each
        subtree's list kept for a later revision (the most recently used, trimmed by
        :meth:`listing`)."""
        kept = self._listed.get((tree, prefix))
        if kept is not None:
            self._listed.move_to_end((tree, prefix))
            return kept
        found: list[TreeEntry] = []
        for mode, kind, sha, name in parsed[tree]:
            if kind == "tree":
                found.extend(self._assemble(sha, f"{prefix}{name}/", parsed))
            else:
                found.append(TreeEntry(f"{prefix}{name}", mode, kind, sha, None))
        if prefix:  # the root changes with every revision: not worth keeping
            self._listed[(tree, prefix)] = found
            self._held += len(found)
        return found

    def sizes(self, shas: list[str]) -> dict[str, int]:
        """The size of each of ``shas`` git holds (those it lacks are left out)."""
        if not shas:
            return {}
        proc = self._process(check=True)
        try:
            return _sizes_answered(proc, shas, self.repo)
        except BaseException:
            self._drop(proc)  # its answers may be half read: the next request starts afresh
            raise


_SIZES = "--batch-check=%(objectname) %(objectsize)"
# Entries of subtree listings a GitObjects keeps (about 100 bytes each).
_LISTED_ENTRIES = 500_000


def _tree_items(data: bytes, width: int) -> list[tuple[str, str, str, str]]:
    """``(mode, type, sha, name)`` of each entry of a tree object, in its order, the mode
    as ``git ls-tree`` prints it (git's canonical modes: a file is 100644 or 100755)."""
    items: list[tuple[str, str, str, str]] = []
    position, end = 0, len(data)
    while position < end:
        space = data.find(b" ", position)
        nul = data.find(b"\0", space + 1)
        if space < 0 or nul < 0 or nul + 1 + width > end:
            raise CodeIndexError("git returned a tree object that does not parse")
        mode = int(data[position:space], 8)
        name = data[space + 1:nul].decode("utf-8", "surrogateescape")
        sha = data[nul + 1:nul + 1 + width].hex()
        position = nul + 1 + width
        kind = mode & 0o170000
        if kind == 0o040000:
            items.append(("040000", "tree", sha, name))
        elif kind == 0o100000:
            items.append(("100755" if mode & 0o100 else "100644", "blob", sha, name))
        elif kind == 0o120000:
            items.append(("120000", "blob", sha, name))
        else:  # git reads any other mode as a submodule's commit
            items.append(("160000", "commit", sha, name))
    return items


def _is_partial(repo: Path) -> bool:
    promisor = _run(repo, ["config", "--get-regexp",
                           r"^(extensions\.partialclone|remote\..*\.promisor)$"],
                    check=False).stdout
    return bool(promisor.strip())


def _stop(proc: GitProcess) -> None:
    """End a ``cat-file`` process and close its pipes."""
    if proc.poll() is None:
        kill_group(proc)
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def _feeding(proc: GitProcess, wanted: list[str], *, close: bool
             ) -> threading.Thread:
    """A thread that writes ``wanted`` to ``proc``, one name a line (closing its input
    after them when ``close``): it keeps git's output pipe draining while names are
    still being sent."""
    stdin = proc.stdin

    def feed() -> None:
        if stdin is None:  # pragma: no cover - git_popen asks for every pipe
            return
        try:
            stdin.write(b"".join(sha.encode("ascii") + b"\n" for sha in wanted))
            if close:
                stdin.close()
            else:
                stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass

    writer = threading.Thread(target=feed, daemon=True, name=f"{GIT_THREAD_PREFIX}feed")
    writer.start()
    return writer


# The threads a request to git runs (named, so a check can tell them from others).
GIT_THREAD_PREFIX = "codegold-git-"


class _Watch:
    """One request to a ``cat-file`` process: the thread that feeds it ``wanted`` and a
    watchdog that kills git when no answer comes for :data:`BLOB_STALL_SECONDS`, so a
    read returns instead of hanging. The reader sets :attr:`waiting` while it waits on
    git (not while its consumer works), calls :meth:`check` after each read and
    :meth:`stop` at the end."""

    def __init__(self, proc: GitProcess, repo: Path, wanted: list[str], *, close: bool
                 ) -> None:
        self.since = time.monotonic()
        self.finished = threading.Event()
        self.stalled = threading.Event()
        self._proc = proc
        self._repo = repo
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"{GIT_THREAD_PREFIX}watch")
        self._thread.start()
        self._writer = _feeding(proc, wanted, close=close)

    def _run(self) -> None:
        while not self.finished.wait(0.5):
            if time.monotonic() - self.since > BLOB_STALL_SECONDS:
                self.stalled.set()
                kill_group(self._proc)
                return

    def waiting(self, yes: bool) -> None:
        self.since = time.monotonic() if yes else float("inf")

    def check(self) -> None:
        """A CodeIndexError when the watchdog stopped git."""
        if self.stalled.is_set():
            raise CodeIndexError(f"git cat-file in {self._repo} made no progress for "
                                 f"{BLOB_STALL_SECONDS:g}s and was stopped")

    def stop(self, *, complete: bool) -> None:
        """End the watchdog and the writer and wait for their threads (a build forks its
        workers only from a process that runs no other thread). A request left before
        its last answer kills git: else the writer may wait on a pipe git no longer
        reads, and its caller forgets the process."""
        self.finished.set()
        self._thread.join(timeout=5)
        if not complete and self._proc.poll() is None:
            kill_group(self._proc)
        self._writer.join(timeout=5)


def _answers(proc: GitProcess, wanted: list[str], repo: Path, *, close: bool
             ) -> Generator[tuple[str, str, bytes], None, None]:
    """Read ``cat-file --batch``'s answer to each of ``wanted`` from ``proc``, in order,
    watched (see :class:`_Watch`): a stalled git ends the request in a
    :class:`CodeIndexError`."""
    stdout = proc.stdout
    if stdout is None:  # pragma: no cover - pipes were asked for
        raise CodeIndexError("git cat-file started without pipes")
    watch = _Watch(proc, repo, wanted, close=close)
    answered = 0
    try:
        for sha in wanted:
            header = stdout.readline()
            fields = header.split()
            watch.check()
            if len(fields) != 3:
                raise CodeIndexError(f"git cat-file could not read object {sha}: "
                                     f"{header.decode('utf-8', 'replace').strip()}")
            size = int(fields[2])
            data = stdout.read(size)
            stdout.read(1)  # the newline git writes after each object
            if watch.stalled.is_set() or len(data) != size:
                raise CodeIndexError(f"git cat-file in {repo} stopped in the middle of "
                                     f"object {sha}")
            answered += 1
            watch.waiting(False)  # our consumer's time is not git's stall
            yield sha, fields[1].decode("ascii", "replace"), data
            watch.waiting(True)
    finally:
        watch.stop(complete=answered == len(wanted))


def _sizes_answered(proc: GitProcess, shas: list[str], repo: Path
                    ) -> dict[str, int]:
    """``cat-file --batch-check``'s sizes for ``shas`` (one answer line each, the sizes
    of objects git lacks left out), watched as :func:`_answers` is."""
    stdout = proc.stdout
    if stdout is None:  # pragma: no cover - pipes were asked for
        raise CodeIndexError("git cat-file started without pipes")
    watch = _Watch(proc, repo, shas, close=False)
    sizes: dict[str, int] = {}
    answered = 0
    try:
        for _ in shas:
            line = stdout.readline()
            watch.check()
            if not line.endswith(b"\n"):
                raise CodeIndexError(f"git cat-file in {repo} stopped before it gave every "
                                     "size asked for")
            sha, _, size = line.decode("utf-8", "replace").strip().partition(" ")
            if size.isdigit():
                sizes[sha] = int(size)
            answered += 1
    finally:
        watch.stop(complete=answered == len(shas))
    return sizes


def _run(repo: Path, args: list[str], *, check: bool = True, stdin: bytes | None = None
         ) -> _Completed:
    result = git(args, repo=repo, check=check, input=stdin)
    return _Completed(result.returncode, result.stdout, result.stderr)


class _Completed:
    def __init__(self, returncode: int, stdout_bytes: bytes, stderr: str) -> None:
        self.returncode = returncode
        self.stdout_bytes = stdout_bytes
        self.stderr = stderr

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode("utf-8", "replace")
