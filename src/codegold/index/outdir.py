"""Where a build may write: the replace rule, the build lock and stale temp cleanup.

A build writes into ``.NAME.tmp-PID-RANDOM`` beside the output directory ``NAME`` and
renames it into place; an existing directory is swapped out to ``.NAME.old-PID-RANDOM``
and removed. Because that replaces a whole directory, the output must be safe to lose:

- an absent or empty directory is always fine;
- an existing one is replaced only when it is recognisably a codegold index: its
  ``manifest.json`` decodes as a manifest, ``index.sqlite`` is a regular file beside it,
  and nothing else is there but the caches codegold itself writes (``lexical/``,
  ``dense/``);
- never when the directory is, contains, or lies inside the repository being indexed
  (its working tree or its git directory, symlinks resolved), even if it looks like an
  index; a fresh, empty directory inside the working tree is allowed.

One build at a time per output directory: ``.NAME.lock`` beside it is held (``flock``)
for the whole build and removed after; a second build refuses. While holding it, a build
removes the ``.NAME.tmp-PID-*`` and ``.NAME.old-PID-*`` directories left by builds whose
process is gone (a SIGKILL leaves them behind), and nothing else.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import msgspec

from codegold.errors import CodeIndexError, InputError
from codegold.model import Manifest
from codegold.plumbing.git import git

MANIFEST_NAME = "manifest.json"
INDEX_NAME = "index.sqlite"
# What a codegold index directory may hold: its two files and the caches readers add.
_INDEX_FILES = frozenset({MANIFEST_NAME, INDEX_NAME})
_INDEX_CACHES = frozenset({"lexical", "dense", "reuse"})


def _resolve(path: Path) -> Path:
    return Path(os.path.realpath(path))


def temp_name(out: Path, kind: str) -> Path:
    """A fresh sibling of ``out`` for this process: ``.NAME.KIND-PID-RANDOM``."""
    return out.parent / f".{out.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"


try:
    import fcntl as _fcntl  # noqa: F401 (only whether it exists)
    _HAVE_FLOCK = True
except ImportError:
    _HAVE_FLOCK = False


def _temp_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"^\.{re.escape(name)}\.(tmp|old)-(\d+)-[0-9a-f]{{8}}$")


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def remove_stale_temps(out: Path, *, locked: bool = True) -> list[Path]:
    """Remove temp directories of earlier writers of ``out`` that are gone.

    Only names this module creates (``.NAME.tmp-PID-RANDOM``, ``.NAME.old-PID-RANDOM``)
    and only real directories (not symlinks) are touched. ``locked``: the caller holds
    :func:`build_lock` for ``out``, so no other writer of ``out`` can be running and every
    such directory but this process's own is stale (a recorded pid may since belong to
    another process: pids are reused, in containers quickly). Unlocked, only those whose
    process is gone are removed. Returns what was removed.
    """
    pattern = _temp_pattern(out.name)
    removed: list[Path] = []
    try:
        siblings = list(out.parent.iterdir())
    except OSError:
        return removed
    for sibling in siblings:
        match = pattern.match(sibling.name)
        if match is None or int(match.group(2)) == os.getpid():
            continue
        if not (locked and _HAVE_FLOCK) and _alive(int(match.group(2))):
            continue
        try:
            mode = sibling.lstat().st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            shutil.rmtree(sibling, ignore_errors=True)
            removed.append(sibling)
    return removed


# A repository's roots by its folder (path, device, inode): a history of many revisions
# checks every output against the same repository, three git calls each time.
_ROOTS: dict[tuple[Path, int, int], list[Path]] = {}


def _repository_roots(repo: Path) -> list[Path]:
    """The working tree (if any) and git directory of ``repo``, symlinks resolved."""
    try:
        info = os.stat(repo)
    except OSError:
        return _find_roots(repo)
    key = (_resolve(repo), info.st_dev, info.st_ino)
    if key not in _ROOTS:
        _ROOTS[key] = _find_roots(repo)
    return list(_ROOTS[key])


def _find_roots(repo: Path) -> list[Path]:
    roots = [_resolve(repo)]
    for flag in ("--show-toplevel", "--absolute-git-dir", "--git-common-dir"):
        with contextlib.suppress(CodeIndexError):
            done = git(["rev-parse", flag], repo=repo, timeout=60, check=False)
            value = done.stdout.decode("utf-8", "surrogateescape").strip()
            if done.ok and value:
                location = Path(value)
                if not location.is_absolute():
                    location = repo / location
                roots.append(_resolve(location))
    return list(dict.fromkeys(roots))


def _within(inner: Path, outer: Path) -> bool:
    return inner == outer or outer in inner.parents


def is_index_dir(path: Path) -> str | None:
    """None when ``path`` is recognisably a codegold index, else what disqualifies it."""
    try:
        names = {entry.name: entry for entry in os.scandir(path)}
    except OSError as err:
        return f"cannot list it ({err.strerror})"
    unexpected = sorted(set(names) - _INDEX_FILES - _INDEX_CACHES)
    if unexpected:
        shown = ", ".join(unexpected[:5]) + (", ..." if len(unexpected) > 5 else "")
        return f"it holds files that are not part of a codegold index: {shown}"
    for name in sorted(_INDEX_FILES):
        entry = names.get(name)
        if entry is None or not entry.is_file(follow_symlinks=False):
            return f"it has no regular file {name}"
    for name in sorted(_INDEX_CACHES & set(names)):
        if not names[name].is_dir(follow_symlinks=False):
            return f"{name} in it is not a directory"
    try:
        manifest = msgspec.json.decode((path / MANIFEST_NAME).read_bytes(), type=Manifest)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return f"its {MANIFEST_NAME} is not a codegold manifest"
    if not manifest.index_build_id or not manifest.revision:
        return f"its {MANIFEST_NAME} names no build id or revision"
    return None


def check_outside_git_dir(out: Path, repo: Path, *, what: str = "output directory",
                          option: str = "-o") -> None:
    """An InputError when ``out`` (an index, a folder of them, a chunk store) lies inside
    ``repo``'s git directory: nothing codegold writes belongs among git's own files."""
    target = _resolve(out)
    for root in _repository_roots(repo):
        if target != root and _within(target, root) and root.name != "" and (
                _is_git_dir(root)):
            raise InputError(f"{what} lies inside the repository's git directory "
                             f"({root}); refusing to write there (choose another {option})",
                             path=str(out))


def check_output(out: Path, repo: Path) -> Path:
    """Decide whether a build may write ``out``; returns its resolved path.

    Raises InputError (refusing, with what was found) when ``out`` is a file, a non-empty
    directory that is not a codegold index, or overlaps the repository being indexed.
    """
    target = _resolve(out)
    for root in _repository_roots(repo):
        if _within(root, target):
            raise InputError(f"output directory is or contains the repository being indexed "
                             f"({root}); refusing to write there (choose another -o)",
                             path=str(out))
    check_outside_git_dir(out, repo)
    if not os.path.lexists(target):
        return target
    if not target.is_dir():
        raise InputError("output path exists and is not a directory (choose another -o)",
                         path=str(out))
    try:
        empty = not any(target.iterdir())
    except OSError as err:
        raise InputError(f"cannot list the output directory: {err.strerror}",
                         path=str(out)) from err
    if empty:
        return target
    problem = is_index_dir(target)
    if problem is not None:
        raise InputError(f"output directory is not empty and is not a codegold index: "
                         f"{problem}; refusing to replace it (choose another -o)",
                         path=str(out))
    for root in _repository_roots(repo):
        if _within(target, root) and _tracked(repo, target):
            raise InputError("output directory holds files tracked by the repository being "
                             "indexed; refusing to replace it (choose another -o)",
                             path=str(out))
    return target


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def _tracked(repo: Path, target: Path) -> bool:
    """Whether git tracks anything under ``target`` (an index committed by mistake)."""
    try:
        done = git(["ls-files", "-z", "--", str(target)], repo=repo, timeout=60, check=False)
    except CodeIndexError:
        return False
    return done.ok and bool(done.stdout.strip(b"\0"))


@contextlib.contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """Hold ``.NAME.lock`` beside ``out`` for one build; CodeIndexError when another holds it.

    The lock file is removed when the build ends. A process that opened it just before
    the removal notices (the path no longer names the inode it locked) and tries again,
    so two builds never both believe they hold the lock.
    """
    try:
        import fcntl
    except ImportError:  # no flock on this platform: builds are not serialised
        yield
        return
    lock_path = out.parent / f".{out.name}.lock"
    for _ in range(20):
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as err:
            raise InputError(f"cannot create the build lock {lock_path.name} beside the "
                             f"output directory: {err.strerror}", path=str(out.parent)) from err
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(fd)
            raise CodeIndexError(f"another codegold build is writing {out} (lock {lock_path} is "
                              "held); wait for it to finish or choose another -o") from err
        try:
            same = os.stat(lock_path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except OSError:
            same = False
        if same:
            break
        os.close(fd)  # locked a file another build just removed: take the new one
    else:
        raise CodeIndexError(f"cannot take the build lock {lock_path}: it keeps changing")
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
        os.close(fd)


def prepare_parent(out: Path, shown: Path) -> None:
    """Create the output's parent folder; InputError when that is impossible."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the output's parent folder: {err.strerror}",
                         path=str(shown)) from err
    if not out.parent.is_dir():
        raise InputError("the output's parent is not a directory", path=str(shown))
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise InputError("the output's parent folder is not writable", path=str(shown))
