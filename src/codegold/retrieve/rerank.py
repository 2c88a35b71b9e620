"""Reranking fused candidates with what the index knows about each chunk.

Multipliers, all from the config's ``rerank`` section: the chunk's role given the query's
intent; a penalty for test, generated, vendored, migration, legacy and docs paths unless
the query asks for them; a boost near the user's open file; a small penalty for a chunk
that lacks its signature. Then same-file decay spreads the top ranks over more files.
"""

from __future__ import annotations

import re

import msgspec

from codegold.index.store import IndexedChunk
from codegold.retrieve.config import RerankConfig
from codegold.retrieve.globs import GlobSet

# Roles that are themselves a path category.
_ROLE_CATEGORIES = frozenset({"test", "generated", "vendored", "migration", "docs"})
# Those of them that a question asking for them wants instead of definitions. Not docs:
# "improve the docs of `Field`" asks for a docstring, which lives in the definition (on
# 1,494 mined commits, nine such messages lost their answer when docs counted here).
_ASKED_ROLES = _ROLE_CATEGORIES - {"docs"}


class Scored(msgspec.Struct, frozen=True, kw_only=True):
    """A chunk with its score and the reasons for it (signal contributions, multipliers)."""

    chunk: IndexedChunk
    score: float
    contributions: dict[str, float] = msgspec.field(default_factory=dict)
    factors: dict[str, float] = msgspec.field(default_factory=dict)


class Categories:
    """Path categories of a chunk: from its role, then from the configured path patterns."""

    def __init__(self, patterns: dict[str, list[str]]) -> None:
        # Swift and .NET projects write `Examples/`, `Demo/`, `Docs/` where others write
        # them in lower case: a lower-case pattern matches any case (a capital, as in
        # `NEWS*`, asks for that case).
        self.sets = {name: GlobSet(globs, smart_case=True)
                     for name, globs in sorted(patterns.items())}
        # Categories known file by file (from the whole tree, not a pattern).
        self.files: dict[str, frozenset[str]] = {}

    def with_files(self, category: str, files: frozenset[str]) -> Categories:
        """A copy that also puts each of ``files`` in ``category``."""
        out = Categories({})
        out.sets = self.sets
        out.files = {**self.files, category: self.files.get(category, frozenset()) | files}
        return out

    def of(self, chunk: IndexedChunk) -> frozenset[str]:
        found = {chunk.role} & _ROLE_CATEGORIES
        found.update(self.of_path(chunk.file))
        return frozenset(found)

    def of_path(self, path: str) -> frozenset[str]:
        """The categories the configured path patterns (and file lists) give ``path``."""
        found = {name for name, globs in self.sets.items() if globs.matches(path)}
        found.update(name for name, files in self.files.items() if path in files)
        return frozenset(found)




_COMMENT_OR_BRACE = re.compile(r"^(?://|#|\*|/\*|\"\"\"|'''|[{}()\[\];,]*$|end$)")
_OPENS_BODY = re.compile(r"(?:\{|:|=>|->.*\{)\s*(?://.*|#.*)?$")


def is_forwarder(chunk: IndexedChunk) -> bool:
    """A function or method whose whole body hands the call on to another one of the same
    name (``func GET(p string) { return engine().GET(p) }``, ``def run(self): return
    self._app.run()``): a facade, a copy of the API in another role, not where the
    behaviour is."""
    if chunk.role != "definition" or chunk.kind not in ("function", "method") or not chunk.symbol:
        return False
    name = chunk.symbol.replace("::", ".").rsplit(".", 1)[-1]
    if len(name) < 2 or not name.isidentifier():
        return False
    lines = [line.strip() for line in chunk.text.splitlines()]
    code = [line for line in lines if line and not _COMMENT_OR_BRACE.match(line)]
    opened = next((i for i, line in enumerate(code) if _OPENS_BODY.search(line)), None)
    if opened is None:
        return False
    body = code[opened + 1:]
    if not 1 <= len(body) <= 2:
        return False
    call = re.compile(rf"[.:]{re.escape(name)}\s*\(")
    return any(call.search(line) for line in body)


# Where languages mark a definition deprecated: before its name (Java and Kotlin
# ``@Deprecated``, Javadoc, JSDoc and PHPDoc ``@deprecated``, Python's ``@deprecated``
# decorator, Go's ``// Deprecated:`` paragraph, Rust's ``#[deprecated]``, C#'s
# ``[Obsolete]``), or at the start of its body (a docstring's ``.. deprecated::`` or
# ``Deprecated:`` paragraph, Python's ``warnings.warn(..., DeprecationWarning)``; code
# that merely handles deprecation warnings, such as a test helper expecting them, is not
# itself deprecated).
_DEPRECATED_BEFORE = re.compile(
    r"@[Dd]eprecated\b|//\s*Deprecated:|#\[deprecated\b|\[Obsolete\b|^\s*#\s*Deprecated:")
_DEPRECATED_DOC = re.compile(r"\.\. deprecated::|^\s*(?:\"\"\"|\'\'\')?\s*Deprecated[:.]", re.M)
_DEPRECATED_WARNING = re.compile(r"\bwarn\(.{0,300}?\b(?:Pending)?DeprecationWarning\b", re.S)
# Lines after the declaration where a body's deprecation notice is looked for.
_BODY_LINES = 8


def is_deprecated(chunk: IndexedChunk) -> bool:
    """Whether the chunk's definition (or one that encloses it: a member chunk's text
    starts with its class's header) is marked deprecated: a copy kept for old callers,
    whose replacement is the answer."""
    if not chunk.symbol or chunk.role not in ("definition", "declaration"):
        return False
    if "eprecat" not in chunk.text and "Obsolete" not in chunk.text:
        return False  # every marker below holds one of the two (most chunks hold neither)
    name = chunk.symbol.replace("::", ".").rsplit(".", 1)[-1]
    if not name:
        return False
    declared = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    lines = chunk.text.splitlines()
    at = next((i for i, line in enumerate(lines) if declared.search(line)), None)
    if at is None:
        return False
    if any(_DEPRECATED_BEFORE.search(line) for line in lines[:at + 1]):
        return True
    body = "\n".join(lines[at + 1:at + 1 + _BODY_LINES])
    return bool(_DEPRECATED_DOC.search(body) or _DEPRECATED_WARNING.search(body))


def _shared_segments(a: str, b: str) -> int:
    count = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if x != y:
            break
        count += 1
    return count


def multipliers(chunk: IndexedChunk, *, config: RerankConfig, intent: str,
                asks_for: frozenset[str], open_file: str | None,
                categories: Categories, named: bool = False) -> dict[str, float]:
    """The rerank multipliers of one chunk, by name (those equal to 1 left out).
    ``named``: the query names the chunk's symbol (the symbol signal found it), so a
    forwarder is what was asked for."""
    preference = config.role_preference.get(intent, {})
    factors: dict[str, float] = {}
    role_factor = preference.get(chunk.role, 1.0)
    if role_factor > 1.0 and chunk.role not in asks_for and asks_for & _ASKED_ROLES:
        # "Which migration stores tokens hashed?": the role asked for is the answer; no
        # other role is lifted above it.
        role_factor = 1.0
    if role_factor != 1.0:
        factors[f"role:{chunk.role}"] = role_factor
    found = categories.of(chunk)
    if intent == "examples":
        # Tests are usage examples: asking for one does not push them down.
        asks_for = asks_for | frozenset(config.example_categories)
    for category in sorted(found - asks_for):
        penalty = config.category_penalty.get(category, 1.0)
        if penalty != 1.0:
            factors[f"path:{category}"] = penalty
    # A category only paths tell (``legacy``), asked for by name ("the legacy
    # create_session"): the chunks in it are what the asker wants over the current code,
    # which the query's other words match just as well. (Role categories are weighed by
    # the role preference of the query's intent instead.)
    for category in sorted((found & asks_for) - _ROLE_CATEGORIES):
        penalty = config.category_penalty.get(category, 1.0)
        if 0.0 < penalty < 1.0:
            factors[f"asked:{category}"] = 1.0 / penalty
    if open_file:
        open_dir = open_file.rsplit("/", 1)[0] if "/" in open_file else ""
        if chunk.file == open_file:
            factors["open_file"] = config.open_file.same_file
        elif open_dir and chunk.file.rsplit("/", 1)[0] == open_dir:
            factors["open_dir"] = config.open_file.same_dir
        else:
            shared = _shared_segments(chunk.file, open_file)
            if shared:
                factors["open_prefix"] = 1.0 + config.open_file.per_shared_segment * shared
    if not chunk.has_signature:
        factors["no_signature"] = config.no_signature
    if config.forwarder != 1.0 and not named and is_forwarder(chunk):
        factors["forwarder"] = config.forwarder
    if (config.deprecated != 1.0 and not named and "legacy" not in asks_for
            and is_deprecated(chunk)):
        factors["deprecated"] = config.deprecated
    return factors


def rerank(items: list[Scored], *, config: RerankConfig, intent: str,
           asks_for: frozenset[str], open_file: str | None,
           categories: Categories | None = None) -> list[Scored]:
    """Apply the multipliers and same-file decay; return best first (ties on chunk id).

    ``categories`` is the compiled form of ``config.category_patterns``; pass one built
    once to avoid recompiling per query.
    """
    matcher = categories or Categories(config.category_patterns)
    boosted: list[Scored] = []
    for item in items:
        factors = multipliers(item.chunk, config=config, intent=intent, asks_for=asks_for,
                              open_file=open_file, categories=matcher,
                              named="symbol" in item.contributions)
        score = item.score
        for value in factors.values():
            score *= value
        boosted.append(Scored(chunk=item.chunk, score=score, contributions=item.contributions,
                              factors=factors))
    boosted.sort(key=lambda s: (-s.score, s.chunk.id))
    return same_file_decay(boosted, config.same_file_decay)


def same_file_decay(items: list[Scored], decay: float) -> list[Scored]:
    """Multiply the n-th chunk of each file by ``decay ** (n - 1)`` and re-sort."""
    if decay >= 1.0:
        return items
    seen: dict[str, int] = {}
    out: list[Scored] = []
    for item in items:
        n = seen.get(item.chunk.file, 0)
        seen[item.chunk.file] = n + 1
        if n == 0:
            out.append(item)
            continue
        factor = decay ** n
        out.append(Scored(chunk=item.chunk, score=item.score * factor,
                          contributions=item.contributions,
                          factors={**item.factors, "same_file": factor}))
    out.sort(key=lambda s: (-s.score, s.chunk.id))
    return out
