"""Opening and reading input files: special files refused, FIFOs without hanging,
sizes bounded, text decoded as UTF-8 without a byte-order mark, JSONL split into lines."""

from __future__ import annotations

import os
import stat
from collections.abc import Generator, Iterable, Iterator
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


_BLOCK_BYTES = 1024**2  # read at a time by hashed_lines (measured: 1 MiB beats 256 KiB and 4 MiB)


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


def hashed_lines(handle: BinaryIO, path: str,
                 digest: Any) -> Generator[tuple[int, bytes], None, None]:
    """:func:`bounded_lines`, with every byte read fed to ``digest`` (a hashlib object):
    the file is read and hashed in blocks and the lines cut out of them, which costs
    less than a read and a hash per line. (A worker thread reading and hashing ahead was
    tried: on a machine shared with other work, handing the interpreter lock back and
    forth cost more than it saved.)"""
    read = getattr(handle, "read1", handle.read)

    def blocks() -> Iterator[bytes]:
        while block := read(_BLOCK_BYTES):
            digest.update(block)
            yield block

    yield from _split_lines(blocks(), path)


def iter_jsonl(raw: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, line bytes) for non-blank lines of a JSONL payload."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if line.strip():
            yield number, line
