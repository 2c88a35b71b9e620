"""TREC run and qrels export, at file and at symbol granularity.

For users of trec_eval, ranx and ir_measures. Documents are files (``path``) or symbols
(``path::Symbol``); a ranking is collapsed to the first rank each document reaches.
Relevance is 2 for documents named by a required group and 1 for supporting ones.
Glob targets cannot be listed without the repository, so they are expanded against the
documents that appear in the run (documented limitation).

TREC files are split on whitespace, so a case id or path holding a space or tab would
shift every column after it. :func:`trec_id` percent-encodes whitespace, control
characters and ``%`` itself (as their UTF-8 bytes, ``%20`` for a space); any other text is
written as is, and ``urllib.parse.unquote`` gives the original back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from codegold.evaluate.match import file_matches, symbol_matches
from codegold.model import Case, Chunk
from codegold.model.paths import is_glob, normalize_path

_NEEDS_ESCAPE = re.compile(
    "[%\\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")


def _percent(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8", "surrogatepass"))


def trec_id(text: str) -> str:
    """``text`` as one whitespace-free TREC field: whitespace, controls, invisible format
    characters and ``%`` become ``%XX`` (UTF-8 bytes); reversed by ``urllib.parse.unquote``."""
    return _NEEDS_ESCAPE.sub(_percent, text)


@dataclass(frozen=True)
class TrecExport:
    run: str
    qrels: str


def _docs(chunk: Chunk, granularity: str) -> list[str]:
    path = normalize_path(chunk.file)
    if granularity == "file":
        return [path]
    return [f"{path}::{symbol}" for symbol in chunk.all_symbols()]


def export_trec(pairs: Iterable[tuple[Case, list[Chunk]]], *, granularity: str,
                run_name: str = "codegold") -> TrecExport:
    if granularity not in ("file", "symbol"):
        raise ValueError(f"granularity must be 'file' or 'symbol', not {granularity!r}")
    run_lines: list[str] = []
    qrel_lines: list[str] = []
    name = trec_id(run_name)
    for case, ranked in pairs:
        qid = trec_id(case.id)
        order: list[str] = []
        seen: set[str] = set()
        for chunk in ranked:
            for doc in _docs(chunk, granularity):
                if doc not in seen:
                    seen.add(doc)
                    order.append(doc)
        total = len(order)
        for rank, doc in enumerate(order, start=1):
            run_lines.append(f"{qid} Q0 {trec_id(doc)} {rank} {total - rank + 1} {name}")
        grades: dict[str, int] = {}
        for group in case.groups:
            gain = 2 if group.required else 1
            for target in group.any_of:
                for doc in _target_docs(target.file, target.symbol, order, granularity):
                    grades[doc] = max(grades.get(doc, 0), gain)
        for doc, grade in sorted(grades.items()):
            qrel_lines.append(f"{qid} 0 {trec_id(doc)} {grade}")
    return TrecExport(run="\n".join(run_lines) + "\n", qrels="\n".join(qrel_lines) + "\n")


def _target_docs(file: str, symbol: str | None, seen_docs: list[str], granularity: str) -> list[str]:
    if granularity == "symbol" and symbol is None:
        # A file-level target accepts any symbol of the file: list those the run showed.
        return [d for d in seen_docs if file_matches(file, d.split("::", 1)[0])]
    if not is_glob(file):
        path = normalize_path(file)
        if granularity == "file":
            return [path]
        hits = [d for d in seen_docs if d.split("::", 1)[0] == path
                and symbol_matches(symbol or "", (d.split("::", 1)[1],))]
        return hits or [f"{path}::{symbol}"]
    out = []
    for doc in seen_docs:
        path, _, sym = doc.partition("::")
        if file_matches(file, path) and (granularity == "file" or symbol_matches(symbol or "", (sym,))):
            out.append(doc)
    return out
