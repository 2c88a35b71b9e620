"""Path policy: which paths at a revision are indexed, with a hash that goes in the manifest.

Patterns are path filters (:meth:`codegold.model.paths.PathPattern.path_filter`, gitignore
habits): a pattern without ``/`` matches a path's basename at any depth (``*.lock``), a
pattern with ``/`` matches from the repository root (``docs/**/*.md``), ``**`` spans
directories, a plain name matches that file or folder and everything under it
(``src/legacy``, never ``src/legacy_old.py``), and a trailing ``/`` matches everything
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

from codegold.errors import InputError
from codegold.model.paths import PathPattern, normalize_path
from codegold.plumbing.secrets import secret_bearing

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

class _Compiled:
    """A policy list as patterns plus one union expression (most paths match none)."""

    def __init__(self, globs: tuple[str, ...]) -> None:
        self.patterns = tuple(PathPattern.path_filter(glob) for glob in globs)
        union = "|".join(f"(?:{p.regex})" for p in self.patterns)
        self.union = re.compile(union, re.DOTALL) if self.patterns else None

    def first(self, path: str) -> PathPattern | None:
        """The first pattern that matches ``path`` (normalized), or None."""
        if self.union is None or self.union.match(path) is None:
            return None
        return next((p for p in self.patterns if p.matches(path)), None)


@lru_cache(maxsize=64)
def _compiled(globs: tuple[str, ...]) -> _Compiled:
    return _Compiled(globs)


class PathPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """Include/exclude globs and a size limit; ``hash`` identifies it in the manifest.

    ``secrets`` (on by default) leaves secret-bearing files out
    (:data:`codegold.plumbing.secrets.SECRET_FILES`) and has the build redact secret
    values in the text it stores."""

    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    max_bytes: int = DEFAULT_MAX_BYTES
    secrets: bool = True
    # A partial clone's missing blobs are left out (inventory fate ``excluded``) instead of
    # stopping the build.
    skip_missing_blobs: bool = False

    @property
    def hash(self) -> str:
        fields: dict[str, object] = {
            "format": POLICY_FORMAT, "include": list(self.include),
            "exclude": list(self.exclude), "max_bytes": self.max_bytes}
        if not self.secrets:  # only when off, so default policies keep their hash
            fields["secrets"] = False
        if self.skip_missing_blobs:  # likewise only when on
            fields["skip_missing_blobs"] = True
        canonical = msgspec.json.encode(fields)
        return "sha256:" + hashlib.sha256(canonical).hexdigest()[:16]

    def exclusion(self, path: str, size: int | None) -> str | None:
        """Why the policy leaves ``path`` out (None when it is included)."""
        path = normalize_path(path)
        if self.secrets:
            glob = secret_bearing(path)
            if glob is not None:
                return f"policy: secret-bearing file ({glob!r}; set secrets: false to index)"
        excluded = _compiled(self.exclude).first(path)
        if excluded is not None:
            return f"policy: exclude {excluded.text!r}"
        if _compiled(self.include).first(path) is None:
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
    secrets: bool = True
    skip_missing_blobs: bool = False


def load_policy(path: str | Path) -> PathPolicy:
    """Read a policy file (YAML or JSON).

    ``format: 1``; ``include``/``exclude`` lists of globs; ``max_bytes``; and
    ``defaults: true`` (the default) to keep the built-in excludes before the file's own;
    ``secrets: true`` (the default) to leave secret-bearing files out and redact secret
    values in what is stored; ``skip_missing_blobs: true`` to leave out the blobs a
    partial clone lacks instead of stopping.
    """
    from codegold.model.io import load_versioned

    loaded = load_versioned(path, PolicyFileSpec, what="path policy",
                            hint="see `codegold schema index-policy`")
    spec = loaded.value
    for name, globs in (("include", spec.include), ("exclude", spec.exclude)):
        for glob in globs or ():
            try:
                PathPattern.path_filter(glob)
            except InputError as err:
                raise InputError(err.message, path=str(path), field=name,
                                 settings=err.settings) from None
    include = tuple(spec.include or ()) or DEFAULT_INCLUDE
    exclude = (DEFAULT_EXCLUDE if spec.defaults else ()) + tuple(spec.exclude or ())
    return PathPolicy(include=include, exclude=exclude, max_bytes=spec.max_bytes,
                      secrets=spec.secrets, skip_missing_blobs=spec.skip_missing_blobs)
