"""Does a labelled target exist, as labelled, at its pinned revision? One answer for all.

``codegold cases check`` (before any run) and diagnosis's ``stale_label`` (after one) both
ask this question; both call :func:`look_up` and :func:`judge_target` here, so they can
never disagree about a label. The facts come from the index of the case revision, or,
without one, from the file at that revision in ``--repo`` parsed by codegold's chunker.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from codegold.evaluate.match import file_matches, symbol_matches
from codegold.index.records import IndexedChunk, InventoryEntry, SymbolDef
from codegold.labels.sources import IndexView, RepoView
from codegold.model import Target
from codegold.model.paths import PathPattern, is_glob, normalize_path

SUGGESTIONS = 3
_LIKENESS_CHARS = 200

LABEL_FAULTS = ("file_missing", "glob_matches_nothing", "symbol_missing", "defined_elsewhere",
                "role_mismatch")
"""Verdict codes that mean the label is wrong (``unknown`` means it could not be told)."""


@dataclass(frozen=True)
class LabelSource:
    """Where facts about one revision come from: its index, else ``repo`` parsed on demand.
    ``index`` is set only when it was built from ``revision``."""

    revision: str
    index: IndexView | None
    repo: RepoView | None = None
    index_note: str | None = None


@dataclass(frozen=True)
class TargetFacts:
    """One target at the source revision, as far as the index or git can tell.

    ``source`` says where definitions and chunks came from: ``index`` (the index of the
    revision), ``parse`` (the file at the revision from the repository, parsed by codegold's
    chunker) or None (nothing to parse: no index, no repository).
    """

    target: Target
    files: tuple[str, ...] | None  # paths the target names; None when nothing can list them
    present: tuple[str, ...]  # of those, the ones that exist at the revision
    existence_known: bool
    entries: tuple[InventoryEntry, ...]  # inventory (index or parse) of the present files
    chunks: tuple[IndexedChunk, ...]  # chunks of the present files
    definitions: tuple[SymbolDef, ...]  # parser definitions of the target symbol there
    source: str | None
    suggestions: tuple[str, ...] = ()  # "did you mean" names or paths
    elsewhere: tuple[SymbolDef, ...] = ()  # definitions of the symbol in other files (index)
    renamed_to: str | None = None  # where git's rename detection says the file went


@dataclass(frozen=True)
class LabelVerdict:
    """What is wrong with a label (``code`` in :data:`LABEL_FAULTS`), or ``unknown``."""

    code: str
    summary: str
    evidence: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()

    @property
    def wrong(self) -> bool:
        return self.code in LABEL_FAULTS


def short_name(symbol: str) -> str:
    return re.split(r"\.|::|#", symbol)[-1]


def forbidding_pattern(forbidden: Sequence[str], target: Target) -> str | None:
    """The forbidden pattern that ``target`` itself falls under, if any."""
    for pattern in forbidden:
        if is_glob(target.file):
            prefix = target.file.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0]
            if "/" in prefix and PathPattern.forbidden(pattern).matches(
                    prefix.rsplit("/", 1)[0] + "/"):
                return pattern
        elif PathPattern.forbidden(pattern).matches(normalize_path(target.file)):
            return pattern
    return None


def all_paths(source: LabelSource) -> list[str] | None:
    if source.index is not None:
        return [e.path for e in source.index.iter_inventory()]
    if source.repo is not None:
        return source.repo.paths(source.revision)
    return None


def _exists(source: LabelSource, path: str) -> bool | None:
    if source.index is not None:
        return source.index.inventory(path) is not None
    if source.repo is not None:
        return source.repo.exists(source.revision, path)
    return None


def _parse_from_repo(repo: RepoView, revision: str, path: str
                     ) -> tuple[InventoryEntry, tuple[IndexedChunk, ...], tuple[SymbolDef, ...]] | None:
    from codegold.index.chunker import chunk_file

    text = repo.text(revision, path)
    if text is None:
        return None
    parsed = chunk_file(path, text.encode("utf-8"), revision=revision)
    return parsed.entry, parsed.chunks, parsed.definitions


def defines(chunk: IndexedChunk, symbol: str) -> bool:
    return symbol_matches(symbol, chunk.symbols or ((chunk.symbol,) if chunk.symbol else ()))


def look_up(source: LabelSource, target: Target) -> TargetFacts:
    """Gather what the index (or a parse of the file from the repository) says about ``target``."""
    if is_glob(target.file):
        paths = all_paths(source)
        files = None if paths is None else tuple(sorted(p for p in paths if file_matches(target.file, p)))
    else:
        files = (normalize_path(target.file),)
    exists = {f: _exists(source, f) for f in files or ()}
    present = tuple(f for f in files or () if exists[f] is not False)
    known = any(v is not None for v in exists.values())
    entries: list[InventoryEntry] = []
    chunks: list[IndexedChunk] = []
    defs: list[SymbolDef] = []
    elsewhere: list[SymbolDef] = []
    kind: str | None = None
    if source.index is not None:
        kind = "index"
        for path in present:
            entry = source.index.inventory(path)
            if entry is not None:
                entries.append(entry)
            chunks += source.index.chunks_in_file(path)
        if target.symbol is not None:
            for d in source.index.definitions(target.symbol):
                if symbol_matches(target.symbol, (d.qualified,)):
                    (defs if d.file in present else elsewhere).append(d)
    elif source.repo is not None and known:
        kind = "parse"
        for path in present:
            parsed = _parse_from_repo(source.repo, source.revision, path)
            if parsed is None:
                continue
            entries.append(parsed[0])
            chunks += parsed[1]
            if target.symbol is not None:
                defs += [d for d in parsed[2] if symbol_matches(target.symbol, (d.qualified,))]
    renamed = None
    if (source.repo is not None and files and not is_glob(target.file) and known
            and not present):
        renamed = source.repo.renamed_to(source.revision, files[0])
    looked = TargetFacts(target=target, files=files, present=present, existence_known=known,
                         entries=tuple(entries), chunks=tuple(chunks), definitions=tuple(defs),
                         source=kind, elsewhere=tuple(elsewhere), renamed_to=renamed)
    return replace(looked, suggestions=_suggest(source, looked))


def _suggest(source: LabelSource, t: TargetFacts) -> tuple[str, ...]:
    """Closest real names for a label that names nothing: where the symbol is defined
    instead, names defined in the file that resemble it, where git says the file went,
    files with the same name."""
    out: list[str] = []
    symbol = t.target.symbol
    if t.renamed_to is not None:
        out.append(t.renamed_to)
    if symbol is not None and not t.definitions and source.index is not None:
        out += [f"{d.qualified} ({d.file}:{d.start_line})" for d in t.elsewhere]
        out += [f"{d.qualified} ({d.file}:{d.start_line})"
                for d in source.index.definitions(short_name(symbol))
                if not (d.file in t.present and symbol_matches(symbol, (d.qualified,)))]
    if symbol is not None and not t.definitions and t.chunks:
        out += [f"{n} ({path})" for n, path in _closest_names(symbol, t.chunks)]
    if t.files is not None and not t.present and not is_glob(t.target.file):
        base = posixpath.basename(t.target.file)
        paths = all_paths(source) or []
        near = [p for p in paths if posixpath.basename(p) == base]
        out += near or difflib.get_close_matches(t.target.file[:_LIKENESS_CHARS], paths, n=SUGGESTIONS)
    return tuple(dict.fromkeys(out))[:SUGGESTIONS * 2]


def _closest_names(symbol: str, chunks: Sequence[IndexedChunk]) -> list[tuple[str, str]]:
    """The names defined in ``chunks`` closest to ``symbol`` (qualified or short form)."""
    where: dict[str, str] = {}
    for c in chunks:
        for name in c.symbols or ((c.symbol,) if c.symbol else ()):
            where.setdefault(name, c.file)

    # Comparing is quadratic in the lengths: a hostile label or chunk name is cut short.
    wanted, short = symbol[:_LIKENESS_CHARS], short_name(symbol)[:_LIKENESS_CHARS]

    def likeness(name: str) -> float:
        return max(difflib.SequenceMatcher(None, wanted, name[:_LIKENESS_CHARS]).ratio(),
                   difflib.SequenceMatcher(None, short, short_name(name)[:_LIKENESS_CHARS]).ratio())

    ranked = sorted(where, key=lambda n: (-likeness(n), n))
    return [(n, where[n]) for n in ranked[:SUGGESTIONS]]


def structural(entries: Sequence[InventoryEntry], path: str) -> bool:
    """Whether the parser read all of ``path``, so its symbol table can deny a definition.

    A file cut into line windows has no symbol table, and one chunked around syntax
    errors may have lost the definitions inside them: neither can deny."""
    entry = next((e for e in entries if e.path == path), None)
    return (entry is not None and entry.fate == "indexed"
            and (entry.chunker or "").startswith("tree-sitter:")
            and "syntax error" not in (entry.reason or ""))


def wants_definition(target: Target) -> bool:
    """Whether the target's symbol names something defined in its file. A call-site,
    reference or test target may name the symbol it uses, defined elsewhere."""
    return not target.roles or bool({"definition", "declaration"} & set(target.roles))


def role_at(t: TargetFacts, d: SymbolDef) -> str | None:
    """The role the index gives the chunk that holds ``d``'s header."""
    holding = [c for c in t.chunks if c.file == d.file and c.start_line <= d.start_line <= c.end_line]
    holder = next((c for c in holding if c.id == d.chunk_id), holding[0] if holding else None)
    return holder.role if holder is not None else None


def _did_you_mean(t: TargetFacts) -> tuple[str, ...]:
    return (f"did you mean: {'; '.join(t.suggestions)}",) if t.suggestions else ()


def _kind_of_file(t: TargetFacts, path: str) -> str:
    entry = next((e for e in t.entries if e.path == path), None)
    return f" (a {entry.category} file)" if entry is not None and entry.category != "source" else ""


def judge_target(source: LabelSource, t: TargetFacts) -> LabelVerdict | None:
    """Whether the label ``t.target`` contradicts the repository at its own revision: None
    (it holds, as far as the facts tell), a verdict in :data:`LABEL_FAULTS`, or ``unknown``.

    A file present but left out of the index is not a label fault (the index's decision);
    callers that care ask the inventory (``t.entries``)."""
    target, rev, full = t.target, source.revision[:12], source.revision
    if t.files is None:
        return LabelVerdict("unknown", f"cannot list files at {rev}: "
                            f"{source.index_note or 'no index'} and no --repo")
    if is_glob(target.file) and not t.files:
        return LabelVerdict("glob_matches_nothing", f"glob {target.file} matches no file at "
                            f"revision {rev}", (f"no path at {full} matches {target.file}",))
    if not t.files or (t.existence_known and not t.present):
        moved = (f"git rename detection: {target.file} became {t.renamed_to} by {rev}",
                 ) if t.renamed_to else ()
        return LabelVerdict("file_missing", f"{target.file} does not exist at revision {rev}",
                            (f"target file {target.file} is absent at the pinned revision {full}",
                             *moved, *_did_you_mean(t)), t.suggestions)
    if not t.existence_known:
        return LabelVerdict("unknown", f"no index at revision {rev} and no --repo to look in")
    symbol = target.symbol
    # Only files whose content was read can deny a definition; an excluded file is
    # the index's decision, not the label's.
    read = [e.path for e in t.entries if e.fate in ("indexed", "fallback")]
    if (symbol is not None and wants_definition(target) and not t.definitions and read
            and not any(defines(c, symbol) for c in t.chunks)):
        # The parse decides; only a file the parser could not read (line windows) falls
        # back to text, and then only to deny: a name absent from the text is not defined.
        parsed = [p for p in read if structural(t.entries, p)]
        text = "\n".join(c.text for c in t.chunks)
        named = re.search(rf"\b{re.escape(short_name(symbol))}\b", text) is not None
        if parsed or not named:
            how = ("the parser's symbol table has no such definition" if parsed
                   else f"the name {short_name(symbol)!r} does not occur in the file")
            summary = f"{symbol} is not defined in {target.file} at {rev}"
            evidence = (f"{how} in {', '.join(read)} at {full}", *_did_you_mean(t))
            if named and t.elsewhere:
                d = t.elsewhere[0]
                kind = _kind_of_file(t, read[0])
                return LabelVerdict(
                    "defined_elsewhere", f"{summary}: {target.file}{kind} only names it "
                    f"(an import, re-export or use); its definition is in {d.file}:{d.start_line}",
                    evidence, t.suggestions)
            return LabelVerdict("symbol_missing", summary, evidence, t.suggestions)
    if target.roles:
        roles = {r for r in (role_at(t, d) for d in t.definitions) if r is not None}
        if symbol is None:
            roles = {c.role for c in t.chunks}
        elif not t.definitions:
            # A docs heading or a config key names a chunk without a row in the symbol
            # table; the scorer accepts such a chunk, so its role is the one to judge.
            roles = {c.role for c in t.chunks if defines(c, symbol)}
        if roles and not roles & set(target.roles):
            where = (", ".join(f"{d.qualified} at {d.file}:{d.start_line}-{d.end_line}"
                               for d in t.definitions) or ", ".join(t.present))
            kind = _kind_of_file(t, t.definitions[0].file if t.definitions else t.present[0])
            return LabelVerdict(
                "role_mismatch", f"the label asks for role {'/'.join(target.roles)} but the "
                f"index gives {target.symbol or target.file} role {'/'.join(sorted(roles))}",
                (f"{where}{kind}: indexed role(s) {', '.join(sorted(roles))}; the label wants "
                 f"{'/'.join(target.roles)}",))
    return None
