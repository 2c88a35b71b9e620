"""The language suites' helpers: chunk a fixture file as if it lived at a repository path,
read its definitions, and load the language benchmark script."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from codegold.index import chunk_file
from codegold.index.records import FileChunks

FIXTURES = Path(__file__).parent / "index" / "fixtures"
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def parse(fixture: str, path: str) -> FileChunks:
    """The fixture ``fixture`` chunked as the file at repository path ``path``."""
    return chunk_file(path, (FIXTURES / fixture).read_bytes(), revision="r" * 40)


def found(result: FileChunks) -> dict[str, tuple[str, str, int, int, int]]:
    """qualified name -> (kind, role, start, header, end), the last definition of a name."""
    return {d.qualified: (d.kind, d.role, d.start_line, d.header_line, d.end_line)
            for d in result.definitions}


@cache
def languages_benchmark() -> ModuleType:
    """``benchmarks/languages.py`` as a module (the benchmarks folder is no package),
    loaded once."""
    spec = importlib.util.spec_from_file_location("bench_languages", BENCHMARKS / "languages.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_languages"] = module
    spec.loader.exec_module(module)
    return module
