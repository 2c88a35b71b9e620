"""Opening and reading input files: special files refused, FIFOs without hanging,
sizes bounded, text decoded as UTF-8 without a byte-order mark, JSONL split into lines."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

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


def bounded_lines(handle: BinaryIO, path: str) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of a JSONL file, read line by line with each line bounded
    by :data:`MAX_LINE_BYTES`, so a file without newlines cannot fill memory."""
    number = 0
    while line := handle.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise SchemaError(f"line longer than {MAX_LINE_BYTES // 1024**2} MiB",
                              path=path, line=number)
        yield number, line


def iter_jsonl(raw: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, line bytes) for non-blank lines of a JSONL payload."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if line.strip():
            yield number, line
