"""Pinned-revision code index: git snapshot → path policy → structural chunks → SQLite.

Public surface: :func:`build_index`, :class:`IndexReader` and its records,
:func:`chunk_file`, :class:`PathPolicy` / :func:`load_policy`, and the tokenizers in
:mod:`codegold.index.tokens`. The format is documented in ``docs/index.md``.
"""

from codegold.index.build import BuildProgress, build_id, build_index
from codegold.index.chunker import CHUNKER_NAME, CHUNKER_VERSION, chunk_file
from codegold.index.chunkstore import ChunkStore
from codegold.index.many import build_many
from codegold.index.policy import PathPolicy, load_policy
from codegold.index.records import FileChunks, IndexedChunk, InventoryEntry, Reference, SymbolDef
from codegold.index.store import IndexReader, read_manifest
from codegold.index.tokens import code_tokens, path_tokens

__all__ = [
    "CHUNKER_NAME",
    "CHUNKER_VERSION",
    "BuildProgress",
    "ChunkStore",
    "FileChunks",
    "IndexReader",
    "IndexedChunk",
    "InventoryEntry",
    "PathPolicy",
    "Reference",
    "SymbolDef",
    "build_id",
    "build_index",
    "build_many",
    "chunk_file",
    "code_tokens",
    "load_policy",
    "path_tokens",
    "read_manifest",
]
