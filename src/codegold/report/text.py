"""Small formatting helpers shared by the renderers (numbers, ranks, untrusted text)."""

from __future__ import annotations

from codegold.model import CaseResult

_MD_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def md(text: str) -> str:
    """Untrusted text inside a Markdown table cell: no HTML, links, emphasis or new cells."""
    out = []
    for ch in text.replace("\r", " ").replace("\n", " "):
        if ch in _MD_ENTITIES:
            out.append(_MD_ENTITIES[ch])
        elif ch in "\\`*_{}[]()#|!~":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def rank_text(case: CaseResult) -> str:
    """First relevant rank in words: ``3``, ``7 (past cutoff 5)``, ``none``."""
    if case.first_relevant_rank is not None:
        return str(case.first_relevant_rank)
    if case.first_relevant_rank_any_depth is not None:
        return f"{case.first_relevant_rank_any_depth} (past cutoff {case.cutoff})"
    return "none"
