"""Writing outputs without harming inputs, and reading paths an artifact names.

Every command that writes files calls :func:`guard_output` before it reads or computes
anything: an output that resolves to one of the command's inputs (same path after
symlinks, or the same file through a hard link) is refused, and so is an output that
cannot be written (its parent is a file, it names a folder where a file is expected).
:func:`write_bytes_atomic` writes through a temporary sibling so a crash never leaves half
a file, and :func:`append_locked` gives one writer at a time an append handle.
:func:`resolve_inside` keeps a path read from an artifact inside that artifact's folder.

Caches inside a folder someone else may have prepared (a received index folder, a shared
store) go through :func:`cache_folder`, :func:`write_cache_file` and
:func:`read_cache_file`: they never follow a symbolic link they did not create, so a
planted link can neither redirect a write outside the folder nor feed a read from outside.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from codegold.errors import InputError

PathArg = str | os.PathLike[str]


def _real(path: PathArg) -> Path:
    return Path(os.path.realpath(os.fspath(path)))


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def _same_file(a: PathArg, b: PathArg) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def guard_output(output: PathArg, *, inputs: Iterable[PathArg | None] = (),
                 trees: Iterable[PathArg | None] = (), option: str = "-o",
                 directory: bool = False) -> None:
    """Refuse ``output`` when writing it would overwrite an input or cannot succeed.

    ``inputs`` are the command's input files and folders: the output may not be one of
    them (same resolved path, or the same file through a hard link), and when the output
    is a folder the command fills or replaces (``directory``) no input may lie inside it.
    ``trees`` are folders whose contents the command reads and must not change (an index):
    the output may not lie inside one. Raises :class:`InputError` naming the option.
    """
    text = os.fspath(output)
    if not text or "\x00" in text:
        raise InputError(f"{option} needs a path, found {text!r}")
    out = _real(output)
    for given in inputs:
        if given is None:
            continue
        source = _real(given)
        if out == source or _same_file(output, given):
            raise InputError(f"{option} {text} is also an input of this command ({os.fspath(given)}); "
                             "writing it would destroy that input: choose another output path",
                             path=text)
        if directory and _inside(source, out):
            raise InputError(f"{option} {text} holds an input of this command ({os.fspath(given)}), "
                             "which writing the output would overwrite or delete: choose another "
                             "output folder", path=text)
    for tree in trees:
        if tree is not None and _inside(out, _real(tree)):
            raise InputError(f"{option} {text} lies inside {os.fspath(tree)}, which this command "
                             "reads: choose an output path outside it", path=text)
    check_writable(output, option=option, directory=directory)


def check_writable(output: PathArg, *, option: str = "-o", directory: bool = False) -> None:
    """Refuse an output path that cannot be created: a folder given for a file (or the
    reverse), a parent that is a file, or a parent folder that cannot be written."""
    path = Path(os.fspath(output))
    text = os.fspath(output)
    if path.exists():
        if directory and not path.is_dir():
            raise InputError(f"{option} {text} exists and is not a folder; expected a folder path",
                             path=text)
        if not directory and path.is_dir():
            raise InputError(f"{option} {text} is a folder; expected a file path", path=text)
        if not directory and not path.is_file():
            # A device, FIFO or socket (/dev/stdout, /dev/null): an atomic write would
            # replace the node itself, and a FIFO would block.
            raise InputError(f"{option} {text} is not a regular file; expected a file path",
                             path=text)
        if not os.access(path, os.W_OK):
            raise InputError(f"{option} {text} is not writable", path=text)
        return
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"{option} {text}: {parent} is a file, not a folder; choose "
                                 "another output path", path=text)
            if not os.access(parent, os.W_OK | os.X_OK):
                raise InputError(f"{option} {text}: cannot create files in {parent} (permission "
                                 "denied)", path=text)
            return
        if parent.is_symlink():  # a dangling link on the way: the write would fail
            raise InputError(f"{option} {text}: {parent} is a broken symbolic link", path=text)


def _os_error(err: OSError, path: PathArg) -> InputError:
    reason = err.strerror or type(err).__name__
    return InputError(f"cannot write the output: {reason}", path=os.fspath(path))


@functools.lru_cache(maxsize=1)
def _umask() -> int:
    try:  # Linux says it without changing it
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def write_bytes_atomic(path: PathArg, data: bytes | Iterable[bytes], *,
                       follow_link: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary sibling and a rename.

    A crash leaves the previous file (or none), never half a file; an OS failure (no
    space, no permission, a file where a folder should be) becomes an :class:`InputError`.
    The file keeps the mode of the one it replaces; a new file gets the umask's (as
    ``open`` would give it), never a private 0600 a temporary file starts with. A path
    that is a symbolic link is refused: replacing the file a planted link points to would
    let whoever planted it choose what codegold overwrites; ``follow_link=True`` writes to
    the link's target instead.
    """
    where = os.fspath(path)
    if os.path.islink(where) and not follow_link:
        raise InputError(f"the output is a symbolic link (to {os.readlink(where)!r}); "
                         "codegold does not replace the file a link points to: remove the "
                         "link or name the file itself", path=where)
    target = os.path.realpath(where)
    directory = os.path.dirname(target)
    try:
        os.makedirs(directory, exist_ok=True)
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        _replace_through_temp(target, data, mode=mode)
    except OSError as err:
        raise _os_error(err, target) from None


def _replace_through_temp(target: str, data: bytes | Iterable[bytes], *,
                          mode: int | None = None) -> None:
    """Write ``data`` into an unpredictable temporary sibling of ``target`` (``O_EXCL``,
    ``mode`` when given) and rename it over ``target``: the rename replaces whatever is
    at ``target``, a link itself included. The temporary file never outlives a failure;
    ``OSError`` propagates."""
    fd, tmp = tempfile.mkstemp(prefix=".codegold-", suffix=".tmp",
                               dir=os.path.dirname(target) or ".")
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes | bytearray):
                handle.write(data)
            else:
                for piece in data:
                    handle.write(piece)
        os.replace(tmp, target)
        tmp = ""
    finally:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def swap_folder(staged: PathArg, target: PathArg, *, aside: PathArg) -> None:
    """Put the folder ``staged`` (written completely, beside ``target``) at ``target``.

    An existing ``target`` is renamed to ``aside`` first and removed once the new folder
    is in place; when the new folder cannot be put in place the old one is put back. So
    a reader sees the old folder or the new one, whole, never a mix. OS errors propagate
    for the caller to name what it was writing.
    """
    staged, target, aside = Path(staged), Path(target), Path(aside)
    moved = False
    if target.exists():
        os.rename(target, aside)
        moved = True
    try:
        os.rename(staged, target)
    except OSError:
        if moved:
            os.rename(aside, target)
        raise
    # The renames are entries of the parent folder: on disk before the old folder's files
    # are unlinked, or a power loss could leave neither folder whole.
    sync_folder(target.parent)
    if moved:
        shutil.rmtree(aside, ignore_errors=True)


def sync_path(path: PathArg) -> None:
    """fsync the file or folder at ``path`` (a folder: the entries created or renamed in
    it); OS errors propagate."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: PathArg) -> None:
    """:func:`sync_path` of a folder, where some file systems cannot sync one (EINVAL):
    the files in it were synced by their writers, so that is not an error."""
    with contextlib.suppress(OSError):
        sync_path(folder)


def write_text_atomic(path: PathArg, text: str) -> None:
    """:func:`write_bytes_atomic` for UTF-8 text."""
    write_bytes_atomic(path, text.encode("utf-8"))


@contextlib.contextmanager
def append_locked(path: PathArg) -> Iterator[BinaryIO]:
    """An append handle on ``path`` held under an exclusive advisory lock.

    A second writer (another ``codegold run`` with the same output) is refused at once
    with an :class:`InputError` instead of interleaving its lines with the first one's.
    The lock is on the file itself (``flock``), so it ends with the process, crash or not.
    """
    import fcntl

    target = os.fspath(path)
    try:
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        handle = open(target, "ab")  # noqa: SIM115 - closed below, after unlocking
    except OSError as err:
        raise _os_error(err, target) from None
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError("another codegold process is writing this file; wait for it to "
                             "finish or choose another output", path=target) from None
        yield handle
    finally:
        handle.close()


def resolve_inside(base: PathArg, relative: str) -> Path:
    """``base/relative`` resolved, refused unless it stays inside ``base``.

    For paths read from an artifact (a bundle named in diagnoses.json): an absolute path,
    ``..`` steps or a symbolic link that leads outside the artifact's folder would let
    whoever wrote the artifact make codegold read any file.
    """
    if not relative or "\x00" in relative:
        raise InputError(f"expected a path relative to {os.fspath(base)}, found {relative!r}",
                         path=os.fspath(base))
    if os.path.isabs(relative):
        raise InputError(f"the path {relative!r} is absolute and may lead outside "
                         f"{os.fspath(base)}; expected a path relative to that folder",
                         path=os.fspath(base))
    root = _real(base)
    target = _real(root / relative)
    if target == root or not _inside(target, root):
        raise InputError(f"the path {relative!r} leads outside {os.fspath(base)}; refusing to "
                         "read it", path=os.fspath(base))
    return target


# --- caches: folders and files codegold owns inside a folder it was handed --------------

def cache_folder(root: PathArg, *parts: str) -> Path:
    """``root/parts...``, each level below ``root`` made a real folder.

    A level that is a symbolic link (or a file, FIFO, anything but a folder) was planted:
    the link itself is removed, never what it points to, and a fresh folder takes its
    place. Raises ``OSError`` when a level cannot be created (a read-only folder): callers
    treat a cache they cannot write as absent.
    """
    folder = Path(os.fspath(root))
    for part in parts:
        if not part or part in (".", "..") or "/" in part or "\x00" in part:
            raise ValueError(f"a cache folder level must be one plain name, found {part!r}")
        folder = folder / part
        try:
            mode = os.lstat(folder).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISDIR(mode):
            os.unlink(folder)
            mode = None
        if mode is None:
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder)
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                raise NotADirectoryError(folder)
    return folder


def write_cache_file(path: PathArg, data: bytes | Iterable[bytes]) -> None:
    """Write ``data`` to the cache file ``path`` through an unpredictable temporary sibling
    (created with ``O_EXCL``) and a rename: a link planted at ``path`` is replaced itself,
    its target never written, and a crash leaves the previous file or none.

    Raises ``OSError`` as it comes (a cache that cannot be written costs only its reuse).
    """
    _replace_through_temp(os.fspath(path), data)


def write_vouched_cache_file(path: PathArg, data: bytes) -> None:
    """:func:`write_cache_file` for a file that a record written after it vouches for
    (its size and digest): when nothing is at ``path`` yet the file is created in place
    (``O_EXCL``, never through a link), which spares a temporary file and a rename each;
    a crash may then leave it torn, which the record's digest tells. Anything already at
    ``path`` is replaced as :func:`write_cache_file` replaces it.

    Raises ``OSError`` as it comes.
    """
    target = os.fspath(path)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                     | getattr(os, "O_CLOEXEC", 0), 0o600)
    except FileExistsError:
        _replace_through_temp(target, data)
        return
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def read_cache_file(path: PathArg, *, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, never through a symbolic link.

    Raises ``OSError`` for a link (``ELOOP``), anything but a regular file, or a file over
    ``limit`` bytes, so a cache reader treats what was planted as a missing cache.
    """
    fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{os.fspath(path)} is not a regular file")
        if limit is not None and info.st_size > limit:
            raise OSError(f"{os.fspath(path)} holds more than {limit} bytes")
        return handle.read()



def _real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _free_of_links(folder: Path) -> bool:
    """Whether nothing under ``folder`` is a link or anything but a file or folder."""
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in (*dirs, *files):
            try:
                mode = os.lstat(os.path.join(root, name)).st_mode
            except OSError:
                return False
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                return False
    return True


def move_cache_folder(source_root: PathArg, target_root: PathArg,
                      parts: tuple[str, ...]) -> bool:
    """Move the cache folder ``source_root/parts...`` to ``target_root/parts...``; True
    when it moved. Only a real folder (each level, no link) holding nothing but real files
    and folders moves, and only onto a place that is free: a planted link stays behind,
    its target never touched."""
    source = Path(os.fspath(source_root)).joinpath(*parts)
    target = Path(os.fspath(target_root)).joinpath(*parts)
    base = Path(os.fspath(source_root))
    if not all(_real_dir(base.joinpath(*parts[:n])) for n in range(1, len(parts) + 1)) \
            or not _free_of_links(source) or os.path.lexists(target):
        return False
    try:
        target.parent.mkdir(exist_ok=True)
        source.rename(target)
    except OSError:
        return False
    return True
