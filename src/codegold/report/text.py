"""Small formatting helpers shared by the renderers (numbers, ranks, untrusted text)."""

from __future__ import annotations

from codegold.model import CaseResult
from codegold.plumbing.text import md_text

__all__ = ["md", "num", "rank_text"]

# The one Markdown escaper lives in plumbing; renderers keep importing it from here.
md = md_text


def num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def rank_text(case: CaseResult) -> str:
    """First relevant rank in words: ``3``, ``7 (past cutoff 5)``, ``none``."""
    if case.first_relevant_rank is not None:
        return str(case.first_relevant_rank)
    if case.first_relevant_rank_any_depth is not None:
        return f"{case.first_relevant_rank_any_depth} (past cutoff {case.cutoff})"
    return "none"
