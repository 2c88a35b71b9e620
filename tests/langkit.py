"""The language suites' helpers: chunk a fixture file as if it lived at a repository path,
and read its definitions."""

from __future__ import annotations

from pathlib import Path

from codegold.index import chunk_file
from codegold.index.records import FileChunks

FIXTURES = Path(__file__).parent / "index" / "fixtures"


def parse(fixture: str, path: str) -> FileChunks:
    """The fixture ``fixture`` chunked as the file at repository path ``path``."""
    return chunk_file(path, (FIXTURES / fixture).read_bytes(), revision="r" * 40)


def found(result: FileChunks) -> dict[str, tuple[str, str, int, int, int]]:
    """qualified name -> (kind, role, start, header, end), the last definition of a name."""
    return {d.qualified: (d.kind, d.role, d.start_line, d.header_line, d.end_line)
            for d in result.definitions}
