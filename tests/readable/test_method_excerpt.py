"""A method's excerpt shows the method's own lines, with its class header as context,
not the class header filling the whole excerpt."""

from __future__ import annotations

from pathlib import Path

import msgspec

from codegold.index import build_index
from codegold.index.chunker import chunk_file
from codegold.index.store import IndexReader
from codegold.model import Chunk
from codegold.resolve import SpanResolver
from gitrepo import Repo

HEADER = "class Dataset(\n" + "".join(f"    Mixin{i},\n" for i in range(40)) + "):\n"
CODE = (HEADER + '    """A dataset."""\n\n    x = 1\n\n'
        "    def to_zarr(self, store):\n        write_everything(store)\n        return store\n")


SHORT = ('class Dataset:\n    """A dataset."""\n\n' + "".join(f"    x{i} = {i}\n" for i in range(40))
         + "\n    def to_zarr(self, store):\n        write_everything(store)\n        return store\n")


def test_the_excerpt_starts_with_the_methods_own_lines() -> None:
    for code in (SHORT, CODE):
        chunk = next(c for c in chunk_file("pkg/ds.py", code.encode()).chunks
                     if c.symbol == "Dataset.to_zarr")
        assert not chunk.text.lstrip().startswith("def")  # the text starts with its header
        excerpt = chunk.to_chunk().excerpt or ""
        first, second = excerpt.splitlines()[:2]
        assert first.endswith(" …")
        assert second.strip().startswith("def to_zarr")
        assert "write_everything(store)" in excerpt
    short = next(c for c in chunk_file("pkg/ds.py", SHORT.encode()).chunks
                 if c.symbol == "Dataset.to_zarr")
    assert (short.to_chunk().excerpt or "").startswith("class Dataset: …\n")


def test_such_an_excerpt_still_vouches_for_its_revision(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"pkg/ds.py": CODE})
    build_index(str(repo.path), sha, tmp_path / "idx")
    reader = IndexReader.open(tmp_path / "idx")
    indexed = next(c for c in reader.chunks_in_file("pkg/ds.py") if c.symbol == "Dataset.to_zarr")
    bare = msgspec.structs.replace(indexed.to_chunk(), revision=None, symbol=None, symbols=())
    resolved = SpanResolver(reader).resolve(Chunk(**{f: getattr(bare, f) for f in
                                                    ("chunk_id", "file", "start_line",
                                                     "end_line", "excerpt")}))
    assert resolved.resolved is not None
    assert resolved.resolved.revision == sha and resolved.resolved.revision_from == "excerpt"
