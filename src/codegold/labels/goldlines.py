"""Gold lines from the index: a symbol target's definition span, for the line-level figures.

A target that names a symbol in an exact file and gives no ``lines`` of its own gets the
span (decorators and doc comments included) of that symbol's definition in the index
built from the case's revision; a name defined more than once in the file takes its
first definition. Targets of cases whose revision has no index, glob targets and targets
without a symbol are left as they are (explicit ``lines:`` on a label always win).
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from codegold.evaluate.match import symbol_matches
from codegold.index.catalog import IndexSet
from codegold.index.store import IndexReader
from codegold.model import Case, CaseSet, Target
from codegold.model.paths import is_glob, normalize_path


def _with_lines(target: Target, reader: IndexReader) -> Target:
    if target.lines is not None or target.symbol is None or is_glob(target.file):
        return target
    path = normalize_path(target.file)
    found = sorted((d for d in reader.definitions_in_file(path)
                    if symbol_matches(target.symbol, (d.qualified,))),
                   key=lambda d: (d.start_line, d.end_line))
    if not found:
        return target
    return msgspec.structs.replace(target, lines=(found[0].start_line, found[0].end_line),
                                   lines_from="index")


def _case_lines(case: Case, reader: IndexReader) -> Case:
    groups = tuple(msgspec.structs.replace(
        g, any_of=tuple(_with_lines(t, reader) for t in g.any_of)) for g in case.groups)
    if groups == case.groups:
        return case
    return msgspec.structs.replace(case, groups=groups)


def fill_gold_lines(case_set: CaseSet, indexes: str | Path) -> CaseSet:
    """``case_set`` with each symbol target's definition span as its gold lines."""
    found = IndexSet.from_path(indexes)
    readers: dict[str, IndexReader | None] = {}
    cases: list[Case] = []
    try:
        for case in case_set.cases:
            if case.revision not in readers:
                directory = found.for_revision(case.revision)
                readers[case.revision] = None if directory is None else IndexReader.open(directory)
            reader = readers[case.revision]
            cases.append(case if reader is None else _case_lines(case, reader))
    finally:
        for reader in readers.values():
            if reader is not None:
                reader.close()
    return msgspec.structs.replace(case_set, cases=tuple(cases))


__all__ = ["fill_gold_lines"]
