"""When does a returned chunk satisfy a target, and when is a path forbidden?

Rules (documented in docs/concepts.md):

- A target's ``file`` is an exact repository path, or a glob when it holds ``*``, ``?``
  or ``[`` (:meth:`PathPattern.target`). In globs ``*`` and ``?`` stay inside one path
  segment and ``**`` spans segments (``test/**/x.ts`` also matches ``test/x.ts``).
- A target's ``symbol`` matches a chunk symbol that is equal to it or ends with it on a
  dotted boundary: target ``createSession`` accepts ``SessionService.createSession``,
  target ``SessionService.createSession`` accepts ``auth.SessionService.createSession``
  but never ``OtherService.createSession``. The file constraint is what tells two
  same-named functions in different modules apart.
- Before that comparison both sides are normalised (:func:`normalize_symbol`): the
  separators ``#`` (``Class#method``), ``::`` (``Class::method``) and ``:``
  (``module:func``) all read as ``.``, so ``Svc#create`` and ``Svc::create`` name
  ``Svc.create``. A bare name against a qualified one keeps the dotted-suffix rule.
- A target's ``roles``, when given, must contain the chunk's role.
- A chunk cut at a line or token budget is seen only up to the cut, and satisfies a
  target only as far as that part goes (:func:`part_satisfies`): a file target by any
  line; a symbol target whose definition lines are known (``lines``, from the label or
  ``eval --gold-lines``) when the part holds them by the span-resolution rule (it holds
  their first line, or they cover at least half of the part's lines); a symbol target
  without lines only when it is the chunk's first symbol (the definition the chunk starts
  with: a whole-file read cut at line 77 holds nothing further down).
- A chunk read outside the repository (``outside_repo``: an agent's ``/src/a.ts`` beside
  the checkout at ``/testbed``, an MCP server's path outside its checkout) never
  satisfies a target, whatever its path reads once normalised.
- A forbidden pattern is a glob when it holds glob characters, else a literal string
  prefix (:meth:`PathPattern.forbidden`): ``src/legacy`` also forbids
  ``src/legacy_old.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from codegold.model import CaseResult, Chunk, Target
from codegold.model.paths import (
    PathPattern,
    PatternMode,
    all_canonical,
    is_canonical,
    normalize_path,
)


def file_matches(pattern: str, path: str) -> bool:
    """Whether ``path`` matches a target's ``file`` (exact path or glob)."""
    return PathPattern.target(pattern).matches(path)


_SEPARATORS = ("::", "#", ":")


def normalize_symbol(symbol: str) -> str:
    """``Class#method``, ``Class::method`` and ``module:func`` in dotted form."""
    if "#" not in symbol and ":" not in symbol:
        return symbol
    for separator in _SEPARATORS:
        symbol = symbol.replace(separator, ".")
    return symbol


def symbol_matches(wanted: str, symbols: tuple[str, ...]) -> bool:
    """Whether one of ``symbols`` names ``wanted`` (equal, or a dotted-suffix match)."""
    wanted = normalize_symbol(wanted)
    for raw in symbols:
        symbol = normalize_symbol(raw)
        if symbol == wanted or (symbol.endswith(wanted) and symbol[-len(wanted) - 1] == "."):
            return True
    return False


# The span-resolution rule's share: a definition covering at least half of a span's lines
# is held by it (index.holding.HEADER_OVERLAP, which this layer cannot import).
PART_OVERLAP = 0.5


def part_satisfies(chunk: Chunk, target: Target, first: int, last: int) -> bool:
    """Whether lines ``first..last`` of ``chunk`` (what a budget left of it) satisfy
    ``target`` (module docstring)."""
    if last < first or not target_matches(chunk, target):
        return False
    if target.symbol is None:
        return True
    if target.lines is not None:
        start, end = target.lines
        if first <= start <= last:
            return True
        shared = max(0, min(last, end) - max(first, start) + 1)
        return shared >= PART_OVERLAP * (last - first + 1)
    symbols = chunk.judged_symbols()
    return bool(symbols) and symbol_matches(target.symbol, symbols[:1])


def cut_part(result: CaseResult, rank: int, chunk: Chunk) -> tuple[int, int] | None:
    """The lines of ``chunk`` that count when it is the one the budget cut (at ``rank``,
    the last visible one); None when it was seen whole or not at all."""
    use = result.budget_use
    if use is None or use.cut_chunk_id != chunk.chunk_id or rank != result.cutoff \
            or chunk.start_line is None or use.cut_lines is None:
        return None
    return chunk.start_line, chunk.start_line + use.cut_lines - 1


def seen_satisfies(result: CaseResult, rank: int, chunk: Chunk, target: Target) -> bool:
    """Whether the visible chunk at ``rank`` satisfies ``target`` as far as it was seen
    (a chunk cut at the budget only by its part, as scoring judges it)."""
    part = cut_part(result, rank, chunk)
    if part is None:
        return target_matches(chunk, target)
    return part_satisfies(chunk, target, *part)


def target_matches(chunk: Chunk, target: Target) -> bool:
    """The acceptance rule for one chunk and one target."""
    if chunk.outside_repo:
        return False
    return _accepts(chunk, normalize_path(chunk.file), target, PathPattern.target(target.file))


def _accepts(chunk: Chunk, path: str, target: Target, pattern: PathPattern) -> bool:
    """:func:`target_matches` given the chunk's normalized path and the target's pattern."""
    return pattern.matches(path) and _fits(chunk, target)


def _fits(chunk: Chunk, target: Target) -> bool:
    """The rest of :func:`_accepts` once the path matches: the symbol and the roles."""
    if target.symbol is not None and not symbol_matches(target.symbol, chunk.judged_symbols()):
        return False
    return not (target.roles and chunk.judged_role() not in target.roles)


class GroupMatcher:
    """Precompiled acceptance test for the groups of one case.

    Exact-path targets are looked up by file in a dict, so a long ranking is checked in
    one pass without trying every target on every chunk.
    """

    __slots__ = ("_exact", "_globbed", "_only_path", "_targets", "has_globs")

    def __init__(self, groups: tuple[tuple[str, bool, tuple[Target, ...]], ...]) -> None:
        self._targets = [targets for _, _, targets in groups]
        # Each target with its pattern, built once here (a case file's thousands of
        # distinct targets would otherwise evict each other from the pattern cache).
        self._exact: dict[str, list[tuple[int, Target, PathPattern]]] = {}
        self._globbed: list[tuple[int, Target, PathPattern]] = []
        for index, (_, _, targets) in enumerate(groups):
            for target in targets:
                pattern = PathPattern.target(target.file)
                if pattern.mode is PatternMode.GLOB:
                    self._globbed.append((index, target, pattern))
                else:
                    self._exact.setdefault(pattern.text, []).append((index, target, pattern))
        self.has_globs = bool(self._globbed)
        # The one exact path when there is one (most cases): counted, not intersected.
        self._only_path = next(iter(self._exact)) if len(self._exact) == 1 else None

    def may_match(self, path: str) -> bool:
        """Cheap pre-check on a raw chunk path; False means :meth:`satisfied` is empty."""
        return self.has_globs or path in self._exact or not is_canonical(path)

    def candidates(self, chunks: Sequence[Chunk]) -> Sequence[int]:
        """Positions (0-based, ascending) of the chunks :meth:`may_match` lets through:
        :meth:`satisfied` is empty for every other one. Where every path is in repository
        form (as retrievers give them) this is a few passes over the paths, not a call
        per chunk."""
        if self.has_globs:
            return range(len(chunks))
        exact = self._exact
        paths = [chunk.file for chunk in chunks]
        if all_canonical(paths):
            # Each path is as given: the positions of the gold paths among them.
            only = self._only_path
            gold = (only,) if only is not None else exact.keys() & paths
            positions: list[int] = []
            for path in gold:
                at = -1
                for _ in range(paths.count(path)):
                    at = paths.index(path, at + 1)
                    positions.append(at)
            return sorted(positions)
        return [at for at, path in enumerate(paths) if path in exact or not is_canonical(path)]

    def satisfied(self, chunk: Chunk) -> set[int]:
        """Indices of the groups this chunk satisfies."""
        if chunk.outside_repo:
            return set()
        path = normalize_path(chunk.file)
        candidates = self._exact.get(path, ())
        if not candidates and not self._globbed:
            return set()  # the common case deep in a ranking: nothing to check
        found: set[int] = set()
        # An exact target's path is the key it was found by: only the rest is checked.
        for index, target, _ in candidates:
            if index not in found and _fits(chunk, target):
                found.add(index)
        for index, target, pattern in self._globbed:
            if index not in found and _accepts(chunk, path, target, pattern):
                found.add(index)
        return found

    def satisfied_part(self, chunk: Chunk, first: int, last: int) -> set[int]:
        """Indices of the groups lines ``first..last`` of ``chunk`` satisfy (a chunk cut
        at the budget, :func:`part_satisfies`)."""
        whole = self.satisfied(chunk)
        return {i for i in whole
                if any(part_satisfies(chunk, t, first, last) for t in self._targets[i])}
