"""What ``codegold search`` prints: the ranked chunks as text (path:lines, symbol, role,
score, the query-densest lines of each, and with --explain each signal) or as JSON."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import msgspec
from rich.text import Text

from codegold.cli._common import stdout_console
from codegold.index.tokens import code_tokens
from codegold.plumbing.text import rich_safe, terminal_safe

if TYPE_CHECKING:
    from codegold.retrieve.reference import RetrievalResult


def ranked_json(result: RetrievalResult) -> str:
    chunks = [s.chunk.to_chunk(score=round(s.score, 6)) for s in result.ranked]
    return msgspec.json.encode({"rewritten": result.rewritten, "ranked": chunks}).decode()


def render_ranked(result: RetrievalResult, explain: bool) -> None:
    console = stdout_console()
    terms = set(result.analysis.terms)
    analysis = result.analysis
    if explain:
        console.print(f"[bold]query[/] intent={analysis.intent} "
                      f"asks_for={sorted(analysis.asks_for) or '-'}")
        console.print(f"  rewritten: {rich_safe(result.rewritten[:300])}")
        if analysis.title_terms:
            # A query of several lines: its first line's terms weigh more in BM25.
            console.print(f"  title terms: {rich_safe(' '.join(analysis.title_terms)[:300])}")
        console.print(f"  signals: {result.signal_hits}  timing_ms: {result.timing_ms}")
    if not result.ranked:
        console.print("no results")
        return
    for rank, item in enumerate(result.ranked, start=1):
        chunk = item.chunk
        header = Text(f"{rank:>2}. ", style="bold")
        header.append(f"{terminal_safe(chunk.file)}:{chunk.start_line}-{chunk.end_line}",
                      style="cyan")
        header.append(f"  {terminal_safe(chunk.symbol or '-')}", style="green")
        header.append(f"  [{terminal_safe(chunk.role)}]  {item.score:.4f}", style="dim")
        console.print(header)
        if explain:
            parts = ", ".join(f"{name}={value:.4f}" for name, value in
                              sorted(item.contributions.items()))
            factors = ", ".join(f"{name}×{value:.2f}" for name, value in sorted(item.factors.items()))
            console.print(f"     signals: {parts or '-'}   rerank: {factors or '-'}", style="dim")
        for line in _excerpt(chunk.text, terms, chunk.start_line, chunk.end_line):
            console.print(Text("     ") + line)


def excerpt_line_numbers(text: str, start_line: int, end_line: int) -> list[int | None]:
    """The file line number of each line of a chunk's text (split on ``\n``).

    A chunk's text is its lines ``start_line..end_line``, preceded by the enclosing
    declarations' header lines for a member or a later part of a split definition; those
    header lines come from elsewhere in the file and get None.
    """
    count = len(text.split("\n"))
    body = end_line - start_line + 1
    offset = count - body if 0 < body <= count else 0
    return [None if i < offset else start_line + i - offset for i in range(count)]


def _excerpt(text: str, terms: set[str], start_line: int, end_line: int,
             lines: int = 4) -> list[Text]:
    """The most query-dense lines of a chunk, with their line numbers in the file and the
    query terms highlighted; a header line repeated from elsewhere is marked ``·``."""
    source = text.split("\n")
    numbers = excerpt_line_numbers(text, start_line, end_line)
    width = len(str(max(end_line, 1)))
    scored = sorted(range(len(source)), key=lambda i: (
        -sum(t in terms for t in code_tokens(source[i])), i))
    chosen = sorted(scored[:lines])
    out: list[Text] = []
    for i in chosen:
        shown = terminal_safe(source[i][:160])
        number = numbers[i]
        label = (str(number) if number is not None else "·").rjust(width)
        line = Text(f"{label} │ ", style="dim")
        body = Text(shown)
        for m in re.finditer(r"\w+", shown):
            if any(t in terms for t in code_tokens(m.group())):
                body.stylize("bold yellow", m.start(), m.end())
        out.append(line + body)
    return out
