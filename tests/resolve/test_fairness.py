"""Judging another chunking fairly: a line window holds a definition by the same rule as
codegold's own chunks, in both directions (no false pass, no false fail)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.evaluate.match import target_matches
from codegold.index import build_index
from codegold.index.store import IndexReader
from codegold.model import Chunk, Target
from codegold.resolve import SpanResolver
from gitrepo import Repo


def _method(name: str, doc_lines: int) -> str:
    doc = "\n".join(f"        line {i} of the docstring of {name}." for i in range(doc_lines))
    return (f"    def {name}(self, store, mode='w'):\n        \"\"\"Write.\n\n{doc}\n"
            f"        \"\"\"\n        return store\n")


DATASET = (
    "import os\n\n\nLIMIT = 3\n\n\n"
    "class Dataset:\n    \"\"\"A dataset.\n\n    Holds variables.\n    \"\"\"\n\n"
    "    __slots__ = ('_variables',)\n\n"
    + _method("to_netcdf", 30) + "\n" + _method("to_zarr", 60) + "\n"
    "    # not hashable\n    __hash__ = None  # type: ignore[assignment]\n\n"
    + _method("close", 3)
    + "\n\ndef open_dataset(path):\n    return Dataset()\n")

PYPROJECT = (
    "[project]\nname = \"demo\"\nversion = \"1\"\n\n"
    + "".join(f"# filler {i}\n" for i in range(80))
    + "[tool.pytest.ini_options]\naddopts = \"-q\"\nmarkers = [\n"
    + "".join(f"  \"mark{i}: marker {i}\",\n" for i in range(30))
    + "]\nfilterwarnings = [\"error\"]\n\n"
    + "".join(f"# more {i}\n" for i in range(80))
    + "[tool.ruff]\nline-length = 100\n")

README = ("# Demo\n\nIntro.\n\n## Installing\n\n"
          + "".join(f"Step {i}.\n" for i in range(30))
          + "\n## Usage\n\n" + "".join(f"Use {i}.\n" for i in range(30)))


GO = ("package store\n\n// Big holds every setting.\ntype Big struct {\n"
      + "".join(f"\tField{i} int\n" for i in range(260)) + "}\n\n"
      "func (b *Big) Run() int {\n\treturn b.Field0\n}\n")
TS = ("export class SessionService {\n  private ttl = 5;\n\n"
      + "".join(f"  method{i}(): number {{\n    return {i};\n  }}\n\n" for i in range(12))
      + "}\n")
YAML = "".join(f"key{i}:\n" + "".join(f"  sub{j}: {j}\n" for j in range(30)) for i in range(8))


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fair")
    repo = Repo(root / "repo")
    sha = repo.commit({"pkg/dataset.py": DATASET, "pyproject.toml": PYPROJECT,
                       "README.md": README, "store/big.go": GO,
                       "web/session.ts": TS, "deploy/values.yaml": YAML})
    build_index(str(repo.path), sha, root / "idx")
    return root / "idx"


def _row(text: str, needle: str) -> int:
    """1-based line of the first line holding ``needle``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def _window(resolver: SpanResolver, file: str, start: int, end: int) -> Chunk:
    return resolver.resolve(Chunk(chunk_id=f"w:{start}", file=file, start_line=start,
                                  end_line=end))


def test_a_window_inside_a_method_does_not_hold_its_class(index: Path) -> None:
    # The false pass: a 40-line window from the middle of to_zarr's docstring.
    resolver = SpanResolver(IndexReader.open(index))
    start = _row(DATASET, "line 10 of the docstring of to_zarr")
    window = _window(resolver, "pkg/dataset.py", start, start + 39)
    assert window.resolved is not None
    assert window.resolved.symbols == ("Dataset.to_zarr",)
    assert not target_matches(window, Target(file="pkg/dataset.py", symbol="Dataset"))
    assert target_matches(window, Target(file="pkg/dataset.py", symbol="to_zarr"))


def test_a_container_is_held_by_its_header_or_its_head(index: Path) -> None:
    resolver = SpanResolver(IndexReader.open(index))
    header = _row(DATASET, "class Dataset:")
    dataset = Target(file="pkg/dataset.py", symbol="Dataset")
    # the header line in the span, however little of the class the span holds
    assert target_matches(_window(resolver, "pkg/dataset.py", header - 3, header), dataset)
    # mostly the head (docstring, __slots__) without the header line
    assert target_matches(_window(resolver, "pkg/dataset.py", header + 1, header + 8), dataset)
    # class-level code after the first method: its own name, not the class
    hashed = _row(DATASET, "__hash__ = None")
    window = _window(resolver, "pkg/dataset.py", hashed - 1, hashed)
    assert window.resolved is not None and window.resolved.symbols == ("Dataset.__hash__",)
    assert not target_matches(window, dataset)


def test_leaf_definitions_keep_the_half_overlap_rule(index: Path) -> None:
    resolver = SpanResolver(IndexReader.open(index))
    start = _row(DATASET, "line 5 of the docstring of to_netcdf")
    # no header line in the window, the method covers all of it
    window = _window(resolver, "pkg/dataset.py", start, start + 9)
    assert target_matches(window, Target(file="pkg/dataset.py", symbol="Dataset.to_netcdf"))


def test_config_keys_tables_and_headings_resolve(index: Path) -> None:
    # The false fail: a window over a config key (or a heading's section) was never
    # resolved to it, while codegold's own chunk of the same lines passes.
    resolver = SpanResolver(IndexReader.open(index))
    markers = _row(PYPROJECT, "markers = [")
    window = _window(resolver, "pyproject.toml", markers + 2, markers + 20)
    assert target_matches(window, Target(file="pyproject.toml", symbol="markers"))
    assert window.resolved is not None and window.resolved.role == "config"
    table = _row(PYPROJECT, "[tool.pytest.ini_options]")
    assert target_matches(_window(resolver, "pyproject.toml", table, table + 5),
                          Target(file="pyproject.toml", symbol="tool.pytest.ini_options"))
    # the table is a container: a window inside one of its keys does not hold it
    assert not target_matches(window, Target(file="pyproject.toml",
                                             symbol="tool.pytest.ini_options"))
    usage = _row(README, "## Usage")
    section = _window(resolver, "README.md", usage + 3, usage + 20)
    assert target_matches(section, Target(file="README.md", symbol="Usage"))
    assert not target_matches(section, Target(file="README.md", symbol="Installing"))


def test_codegold_chunks_meet_the_rule_they_judge_others_by(index: Path) -> None:
    """Every chunk of the index satisfies exactly the symbol targets its bare line span
    satisfies once resolved: codegold's chunking gets no rule of its own."""
    reader = IndexReader.open(index)
    resolver = SpanResolver(reader)
    compared = 0
    for entry in reader.iter_inventory():
        names = sorted({d.qualified for d in reader.definitions_in_file(entry.path)})
        for c in reader.chunks_in_file(entry.path):
            own = Chunk(chunk_id=c.id, file=c.file, start_line=c.start_line,
                        end_line=c.end_line, symbol=c.symbol, symbols=c.symbols, role=c.role)
            bare = _window(resolver, c.file, c.start_line, c.end_line)
            for name in names:
                target = Target(file=c.file, symbol=name)
                assert target_matches(own, target) == target_matches(bare, target), (
                    f"{c.file}:{c.start_line}-{c.end_line} {c.symbols} vs "
                    f"{bare.resolved.symbols if bare.resolved else None} on {name}")
                compared += 1
    assert compared > 50
    # a method's own chunk carries Class.method: it is not the class
    method = next(c for c in reader.chunks_in_file("pkg/dataset.py")
                  if c.symbol == "Dataset.to_zarr")
    assert "Dataset" not in method.symbols
