"""A short fingerprint of everything that decides how bytes become chunks."""

from __future__ import annotations

import hashlib
from importlib import metadata, resources

from codegold.index.languages import LANGUAGES

# Modules whose code shapes chunks, symbols, roles or lexical fields (with every language
# module and query file under languages/). The store and the build driver are left out:
# they move rows around without changing them.
_SOURCES = ("categories.py", "chunker.py", "drafts.py", "grammars.py", "structure.py",
            "textchunks.py", "tokens.py")
# tree-sitter and every registered language's grammar wheel (its module, spelled as a
# distribution: tree_sitter_c_sharp is tree-sitter-c-sharp)
_DISTRIBUTIONS = ("tree-sitter", *sorted({spec.module.replace("_", "-")
                                          for spec in LANGUAGES.values()}))


def chunker_fingerprint() -> str:
    digest = hashlib.sha256()
    package = resources.files("codegold.index")
    languages = package.joinpath("languages")
    names = [*_SOURCES,
             *sorted(f"languages/{p.name}" for p in languages.iterdir() if p.name.endswith(".py")),
             *sorted(f"languages/queries/{p.name}" for p in languages.joinpath("queries").iterdir()
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
