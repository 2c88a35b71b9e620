"""Opening and reading input files: special files refused, FIFOs without hanging,
sizes bounded, text decoded as UTF-8 without a byte-order mark, JSONL split into lines."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from codegold.errors import InputError, SchemaError
from codegold.model.io.limits import MAX_LINE_BYTES

_BOMS = ((b"\xef\xbb\xbf", "UTF-8"), (b"\xff\xfe\x00\x00", "UTF-32"),
         (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))
_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFSOCK: "a socket", stat.S_IFBLK: "a block device"}


def open_input(path: str | Path, what: str) -> BinaryIO:
    """Open an input file for reading; anything but a readable file is an InputError.

    Directories, sockets and block devices are refused. A FIFO is opened without
    blocking, so one nobody writes to reads as empty instead of hanging; pipes that do
    have a writer (``<(command)``, ``/dev/stdin``) read normally.
    """
    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(f"{what} file not found", path=where) from None
    except IsADirectoryError:
        raise InputError(f"expected a {what} file, found a directory", path=where) from None
    except OSError as err:
        raise InputError(f"cannot read {what} file: {err.strerror}", path=where) from None
    try:
        mode = os.fstat(fd).st_mode
        kind = _KINDS.get(stat.S_IFMT(mode))
        if kind is not None:
            raise InputError(f"expected a {what} file, found {kind}", path=where)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | Path, what: str, *, limit: int | None = None) -> bytes:
    """The whole file; with ``limit``, a file larger than ``limit`` bytes is an InputError."""
    with open_input(path, what) as handle:
        try:
            raw = handle.read() if limit is None else handle.read(limit + 1)
        except OSError as err:
            raise InputError(f"cannot read {what} file: {err.strerror}", path=str(path)) from None
    if limit is not None and len(raw) > limit:
        size = f"{limit // 1024**2} MiB" if limit >= 1024**2 else f"{limit:,} bytes"
        raise InputError(f"{what} file is larger than the {size} allowed here", path=str(path))
    return raw


def decode_text(raw: bytes, path: str, what: str) -> str:
    """UTF-8 text without a byte-order mark; anything else is an InputError with the line."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            raise InputError(f"{what} file starts with a {encoding} byte-order mark; save it as "
                             "UTF-8 without a BOM", path=path, line=1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError(f"{what} file is not valid UTF-8 (byte {err.start}); save it as UTF-8",
                         path=path, line=line) from None


def bounded_lines(handle: BinaryIO, path: str) -> Generator[tuple[int, bytes], None, None]:
    """``(line number, line)`` of a JSONL file, read line by line with each line bounded
    by :data:`MAX_LINE_BYTES`, so a file without newlines cannot fill memory."""
    number = 0
    while line := handle.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise SchemaError(f"line longer than {MAX_LINE_BYTES // 1024**2} MiB",
                              path=path, line=number)
        yield number, line


_BLOCK_BYTES = 1024**2  # read at a time by block_lines (measured: 1 MiB beats 256 KiB and 4 MiB)


def _too_long(path: str, number: int) -> SchemaError:
    return SchemaError(f"line longer than {MAX_LINE_BYTES // 1024**2} MiB", path=path,
                       line=number)


def _split_lines(blocks: Iterable[bytes], path: str) -> Iterator[tuple[int, bytes]]:
    """:func:`bounded_lines` of the bytes that ``blocks`` hold, in order."""
    number = 0
    rest: list[bytes] = []  # the start of a line the blocks so far have not ended
    held = 0
    for block in blocks:
        start = 0
        end = block.find(b"\n")
        if rest:
            if end < 0:
                rest.append(block)
                held += len(block)
                if held > MAX_LINE_BYTES:
                    raise _too_long(path, number + 1)
                continue
            line = b"".join(rest) + block[: end + 1]
            rest, held = [], 0
            number += 1
            if len(line) > MAX_LINE_BYTES:
                raise _too_long(path, number)
            yield number, line
            start = end + 1
            end = block.find(b"\n", start)
        while end >= 0:
            number += 1
            if end + 1 - start > MAX_LINE_BYTES:
                raise _too_long(path, number)
            yield number, block[start : end + 1]
            start = end + 1
            end = block.find(b"\n", start)
        if start < len(block):
            rest.append(block[start:])
            held = len(block) - start
            if held > MAX_LINE_BYTES:
                raise _too_long(path, number + 1)
    if rest:
        yield number + 1, b"".join(rest)


def block_lines(handle: BinaryIO, path: str, seen: Callable[[bytes], object]
                ) -> Generator[tuple[int, bytes], None, None]:
    """:func:`bounded_lines` of ``handle`` read in blocks, each block handed to ``seen``
    (a digest's ``update``, a byte count) before its lines are cut out of it: a file is
    read (and hashed) in blocks at less cost than a read and a hash per line."""
    read = getattr(handle, "read1", handle.read)

    def blocks() -> Iterator[bytes]:
        while block := read(_BLOCK_BYTES):
            seen(block)
            yield block

    yield from _split_lines(blocks(), path)


# Hashed at a time by DigestAhead, read into one reused buffer: the hash holds no copy of
# the file (a 16 MiB block per read once made a large attempts file's digest the peak of
# a streaming eval), and 1 MiB still hands the lock over seldom.
_AHEAD_BYTES = 1024**2


class DigestAhead:
    """A regular file's digest made on a thread, through its own reads at explicit offsets
    (``preadv``: the handle's position is left alone), while the caller does other work (a
    case file loaded, scorers built) before it reads the same handle line by line. The
    hashing holds the interpreter lock only between blocks of 1 MiB, so it runs on
    another core at almost no cost to the caller, which once paid the whole hash in line.

    :meth:`finish` checks that the bytes the caller read are the bytes hashed: the same
    count, and a file whose size and modification time did not change meanwhile; a file
    written to while it was read is an InputError (read it again once it is written)."""

    def __init__(self, handle: BinaryIO, path: str, what: str, digest: Any) -> None:
        self._fd = handle.fileno()
        self._path = path
        self._what = what
        self._digest = digest
        self._before = _identity(os.fstat(self._fd))
        self._hashed = 0
        self._error: OSError | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="codegold-digest", daemon=True)
        self._thread.start()

    @classmethod
    def start(cls, handle: BinaryIO, path: str, what: str, digest: Any) -> DigestAhead | None:
        """Hashing under way for a regular file at its start; None for anything else (a
        pipe is read once: hash it as it is read, with :func:`block_lines`)."""
        if not hasattr(os, "pread"):  # not on every platform: hash as it is read
            return None
        try:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or handle.tell() != 0:
                return None
        except (OSError, ValueError):
            return None
        return cls(handle, path, what, digest)

    def _run(self) -> None:
        offset = 0
        buffer = bytearray(_AHEAD_BYTES)
        view = memoryview(buffer)
        try:
            while not self._stop.is_set():
                if hasattr(os, "preadv"):
                    count = os.preadv(self._fd, [buffer], offset)
                    block: bytes | memoryview = view[:count]
                else:  # pragma: no cover - platforms without preadv
                    block = os.pread(self._fd, _AHEAD_BYTES, offset)
                    count = len(block)
                if not count:
                    break
                self._digest.update(block)
                offset += count
        except OSError as err:
            self._error = err
        self._hashed = offset

    def finish(self, read: int) -> None:
        """Wait for the hash; InputError when it could not be made or when the ``read``
        bytes the caller read are not those hashed."""
        self._thread.join()
        if self._error is not None:
            raise InputError(f"cannot read {self._what} file: {self._error.strerror}",
                             path=self._path)
        after = _identity(os.fstat(self._fd))
        if read != self._hashed or after != self._before:
            raise InputError(f"the {self._what} file changed while it was read (its size or "
                             "modification time moved); read it again once it is written",
                             path=self._path)

    def cancel(self) -> None:
        """Stop hashing (the caller gave up reading) and wait for the thread, so the
        handle can be closed under it."""
        self._stop.set()
        self._thread.join()


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def iter_jsonl(raw: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, line bytes) for non-blank lines of a JSONL payload."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if line.strip():
            yield number, line
