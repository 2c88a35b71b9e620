"""Path policy: which paths at a revision are indexed, with a hash that goes in the manifest.

Globs follow gitignore habits: a pattern without ``/`` matches a path's basename at any
depth (``*.lock``), a pattern with ``/`` matches from the repository root
(``docs/**/*.md``), ``**`` spans directories, and a trailing ``/`` matches everything
under a directory (``node_modules/`` at any depth). Exclusion wins over inclusion.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from codegold.model.paths import glob_regex

POLICY_FORMAT = 1
DEFAULT_MAX_BYTES = 1_000_000

DEFAULT_INCLUDE: tuple[str, ...] = ("**",)
DEFAULT_EXCLUDE: tuple[str, ...] = (
    # lock files: machine-written, huge, never the evidence a question needs
    "*.lock", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "go.sum",
    # minified bundles and source maps
    "*.min.js", "*.min.css", "*.map", "*.bundle.js",
    # binaries by extension (content with NUL bytes is skipped anyway)
    "*.png", "*.jpg", "*.jpeg", "*.gif", "*.ico", "*.webp", "*.bmp", "*.pdf", "*.zip",
    "*.gz", "*.tgz", "*.bz2", "*.xz", "*.7z", "*.jar", "*.war", "*.class", "*.pyc", "*.pyo",
    "*.so", "*.dylib", "*.dll", "*.exe", "*.o", "*.a", "*.woff", "*.woff2", "*.ttf", "*.otf",
    "*.eot", "*.mp3", "*.mp4", "*.wav", "*.sqlite", "*.db", "*.whl", "*.npy", "*.pkl",
    # dependency trees checked in by accident
    "node_modules/", ".git/",
)


def _glob_regex(pattern: str) -> str:
    anchored = "/" in pattern.rstrip("/")
    directory = pattern.endswith("/")
    core = glob_regex(pattern.strip("/"))
    prefix = "" if anchored else "(?:.*/)?"
    suffix = "/.*" if directory else "(?:/.*)?"
    return f"^{prefix}{core}{suffix}$"


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A compiled matcher for one policy glob (see the module docstring for its rules)."""
    return re.compile(_glob_regex(pattern))


def glob_match(pattern: str, path: str) -> bool:
    return compile_glob(pattern).match(path) is not None


class PathPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """Include/exclude globs and a size limit; ``hash`` identifies it in the manifest."""

    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    max_bytes: int = DEFAULT_MAX_BYTES

    @property
    def hash(self) -> str:
        canonical = msgspec.json.encode(
            {"format": POLICY_FORMAT, "include": list(self.include),
             "exclude": list(self.exclude), "max_bytes": self.max_bytes})
        return "sha256:" + hashlib.sha256(canonical).hexdigest()[:16]

    def exclusion(self, path: str, size: int | None) -> str | None:
        """Why the policy leaves ``path`` out (None when it is included)."""
        for pattern in self.exclude:
            if glob_match(pattern, path):
                return f"policy: exclude {pattern!r}"
        if not any(glob_match(pattern, path) for pattern in self.include):
            return "policy: not matched by include"
        if size is not None and size > self.max_bytes:
            return f"too large: {size} bytes > max_bytes {self.max_bytes}"
        return None


Glob = Annotated[str, Meta(min_length=1, description="a non-empty path glob")]


class PolicyFileSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A path policy file as written (``format: 1`` may be omitted)."""

    format: Literal[1] = 1
    include: list[Glob] | None = None
    exclude: list[Glob] | None = None
    max_bytes: Annotated[int, Meta(ge=1)] = DEFAULT_MAX_BYTES
    defaults: bool = True


def load_policy(path: str | Path) -> PathPolicy:
    """Read a policy file (YAML or JSON).

    ``format: 1``; ``include``/``exclude`` lists of globs; ``max_bytes``; and
    ``defaults: true`` (the default) to keep the built-in excludes before the file's own.
    """
    from codegold.model._files import load_versioned

    spec = load_versioned(path, PolicyFileSpec, what="path policy",
                          hint="see `codegold schema index-policy`").value
    include = tuple(spec.include or ()) or DEFAULT_INCLUDE
    exclude = (DEFAULT_EXCLUDE if spec.defaults else ()) + tuple(spec.exclude or ())
    return PathPolicy(include=include, exclude=exclude, max_bytes=spec.max_bytes)
