"""The export workflow: codegold data in other tools' formats (TREC runs and qrels for
trec_eval, ranx and ir_measures). The caller has guarded every output against
overwriting an input."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from codegold.errors import InputError
from codegold.evaluate.trec import export_trec
from codegold.model import Case, Chunk, iter_attempts, load_cases, load_results
from codegold.plumbing.outputs import write_text_atomic

GRANULARITIES = ("file", "symbol")


@dataclass(frozen=True)
class TrecRequest:
    """TREC files from ``source`` (results.json, or attempts.jsonl with ``cases``) at
    ``output``.file.run/.qrels and ``output``.symbol.run/.qrels; a prefix that names a
    folder is refused when the request is made."""

    source: str
    output: str  # the path prefix
    cases: str | None = None  # the gold cases, for an attempts file

    def __post_init__(self) -> None:
        prefix = self.output
        if not prefix or prefix.endswith(("/", os.sep)) or os.path.basename(prefix) in (".", ".."):
            raise InputError(f"{{output}} takes a path prefix such as out/run (files "
                             f"PREFIX.file.run ...), found {prefix!r}", settings=("output",))

    @property
    def paths(self) -> list[str]:
        """Every file the export writes, in the order it writes them."""
        return [f"{self.output}.{g}.{s}" for g in GRANULARITIES for s in ("run", "qrels")]


def export_trec_files(request: TrecRequest,
                      wrote: Callable[[str], None] | None = None) -> list[str]:
    """Write the TREC runs and qrels (``wrote`` hears each file as it is written); return
    their paths. From results.json a run holds the chunks kept there; from attempts.jsonl
    each case's full final ranking (the attempt no retry replaced)."""
    pairs: list[tuple[Case, list[Chunk]]]
    if request.source.endswith(".jsonl"):
        if not request.cases:
            raise InputError("an attempts file needs {cases} to know the gold targets",
                             path=request.source, settings=("cases",))
        case_set = load_cases(request.cases)
        by_id = {c.id: c for c in case_set.cases}
        final: dict[str, list[Chunk]] = {}
        ordered = list(iter_attempts(request.source))
        retried = {a.retry_of for a in ordered if a.retry_of}
        for attempt in ordered:
            if attempt.case_id in by_id and attempt.attempt_id not in retried:
                final[attempt.case_id] = attempt.ranked
        pairs = [(c, final.get(c.id, [])) for c in case_set.cases]
    else:
        result = load_results(request.source)
        pairs = [(r.case, r.ranked) for r in result.cases]
    written = []
    for granularity in GRANULARITIES:
        exported = export_trec(pairs, granularity=granularity)
        for suffix, text in (("run", exported.run), ("qrels", exported.qrels)):
            path = f"{request.output}.{granularity}.{suffix}"
            write_text_atomic(path, text)
            written.append(path)
            if wrote is not None:
                wrote(path)
    return written
