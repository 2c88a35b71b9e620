"""Read a repository's objects at one revision through git plumbing, never a checkout.

``git rev-parse`` resolves the revision, ``git ls-tree -r -z --long`` lists every path
with its mode, blob id and size, and one ``git cat-file --batch`` process streams the
blobs. The user's working tree and index are never touched.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from pathlib import Path

from codegold.errors import CodeIndexError, InputError
from codegold.plumbing.git import END_OF_OPTIONS, git, git_popen, is_full_sha
from codegold.plumbing.process import kill_group

# A blob stream that makes no progress for this long is stopped (a hung git, a dead disk).
BLOB_STALL_SECONDS = 120.0
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

    def __init__(self, repo: Path, revision: str, requested: str) -> None:
        self.repo = repo
        self.revision = revision
        self.requested = requested
        self._missing: set[str] | None = None

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
            return cls(path, resolved.stdout.strip(), revision)
        if _run(path, ["rev-parse", "--verify", "--quiet", "HEAD"], check=False).returncode != 0:
            anything = _run(path, ["rev-list", "-n", "1", "--all"], check=False)
            if not anything.stdout.strip():
                raise InputError("repository has no commits; commit something, or point "
                                 "at another repository", path=str(path))
        shallow = _run(path, ["rev-parse", "--is-shallow-repository"], check=False)
        if shallow.stdout.strip() == "true":
            raise InputError(
                f"revision {revision!r} is not in this shallow clone; fetch it with "
                f"'git fetch --unshallow' or 'git fetch origin {revision}'", path=str(path))
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
        out = _run(self.repo, ["cat-file", "--batch-check=%(objectname) %(objectsize)"],
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
        promisor = _run(self.repo, ["config", "--get-regexp",
                                    r"^(extensions\.partialclone|remote\..*\.promisor)$"],
                        check=False).stdout
        if not promisor.strip():
            return self._missing
        out = _run(self.repo, ["rev-list", "--objects", "--missing=print", "--no-object-names",
                               END_OF_OPTIONS, self.revision, "--"], check=False)
        self._missing = {line[1:].strip() for line in out.stdout.splitlines()
                         if line.startswith("?")}
        return self._missing

    def blobs(self, shas: Iterable[str]) -> Generator[tuple[str, bytes], None, None]:
        """Stream ``(sha, content)`` for each requested blob, in request order."""
        wanted = list(shas)
        if not wanted:
            return
        proc = git_popen(["cat-file", "--batch", "--buffer"], repo=self.repo)
        if proc.stdin is None or proc.stdout is None:  # pragma: no cover - pipes were asked for
            raise CodeIndexError("git cat-file started without pipes")
        stdin = proc.stdin
        progress = [time.monotonic()]
        finished = threading.Event()
        stalled = threading.Event()

        def watchdog() -> None:
            # Kills git when it stops answering, so a read below returns instead of hanging.
            while not finished.wait(0.5):
                if time.monotonic() - progress[0] > BLOB_STALL_SECONDS:
                    stalled.set()
                    kill_group(proc)
                    return

        guard = threading.Thread(target=watchdog, daemon=True)
        guard.start()

        def feed() -> None:
            # A writer thread keeps git's output pipe draining while we still send names.
            try:
                for sha in wanted:
                    stdin.write(sha.encode("ascii") + b"\n")
                stdin.close()
            except (BrokenPipeError, OSError):
                pass

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        stdout = proc.stdout
        try:
            for sha in wanted:
                header = stdout.readline()
                fields = header.split()
                if stalled.is_set():
                    raise CodeIndexError(f"git cat-file in {self.repo} made no progress for "
                                      f"{BLOB_STALL_SECONDS:g}s and was stopped")
                if len(fields) != 3:
                    raise CodeIndexError(f"git cat-file could not read object {sha}: "
                                      f"{header.decode('utf-8', 'replace').strip()}")
                size = int(fields[2])
                data = stdout.read(size)
                stdout.read(1)  # the newline git writes after each object
                if stalled.is_set() or len(data) != size:
                    raise CodeIndexError(f"git cat-file in {self.repo} stopped in the middle of "
                                      f"object {sha}")
                progress[0] = float("inf")  # our consumer's time is not git's stall
                yield sha, data
                progress[0] = time.monotonic()
        finally:
            finished.set()
            if proc.poll() is None:
                kill_group(proc)
            proc.wait()
            stdout.close()
            if proc.stderr is not None:
                proc.stderr.close()
            writer.join(timeout=5)


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
