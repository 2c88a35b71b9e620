"""A short fingerprint of everything that decides how bytes become chunks."""

from __future__ import annotations

import hashlib
from importlib import metadata, resources

# Modules whose code shapes chunks, symbols, roles or lexical fields. The store and the
# build driver are left out: they move rows around without changing them.
_SOURCES = ("categories.py", "chunker.py", "drafts.py", "grammars.py", "structure.py",
            "textchunks.py", "tokens.py")
_DISTRIBUTIONS = ("tree-sitter", "tree-sitter-python", "tree-sitter-javascript",
                  "tree-sitter-typescript", "tree-sitter-go", "tree-sitter-java",
                  "tree-sitter-rust", "tree-sitter-ruby", "tree-sitter-c-sharp")


def chunker_fingerprint() -> str:
    digest = hashlib.sha256()
    package = resources.files("codegold.index")
    names = [*_SOURCES, *sorted(f"queries/{p.name}" for p in package.joinpath("queries").iterdir()
                                if p.name.endswith(".scm"))]
    for name in names:
        digest.update(name.encode() + b"\0" + package.joinpath(name).read_bytes() + b"\0")
    # secret detection rewrites the text chunks are cut from
    digest.update(b"secrets\0" + resources.files("codegold.plumbing").joinpath(
        "secrets.py").read_bytes() + b"\0")
    for dist in _DISTRIBUTIONS:
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"{dist}=={version}\0".encode())
    return digest.hexdigest()[:10]
