"""``codegold search``: query one index with the reference retriever, the everyday tool."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import click
import msgspec
import yaml
from rich.text import Text

from codegold.cli._common import config_option, handle_errors, json_option, stdout_console
from codegold.errors import InputError
from codegold.index.tokens import code_tokens
from codegold.model.cases import ROLES
from codegold.plumbing.text import rich_safe, terminal_safe
from codegold.retrieve.config import load_config
from codegold.workflows.searching import SearchRequest, search

if TYPE_CHECKING:
    from rich.text import Text

    from codegold.model import Chunk
    from codegold.model.manifest import Manifest
    from codegold.retrieve.reference import RetrievalResult


@click.command("search")
@click.argument("index", type=click.Path(file_okay=False))
@click.argument("query")
@click.option("-k", "k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Results to show (at least 1).")
@click.option("--open-file", default=None, help="The file the user has open (boosts nearby code).")
@click.option("--explain", is_flag=True, help="Show each signal's contribution and each multiplier.")
@config_option()
@click.option("--dense/--no-dense", default=None,
              help="Turn dense retrieval on (needs codegold[dense]) or off. Default: off "
                   "(signals.dense.enabled: false).")
@click.option("--embedder", default=None, help="minilm-int8 (default) | dir:PATH (ONNX) | openai:URL#MODEL")
@json_option("Print the ranked chunks as JSON.")
@click.option("--as-case", is_flag=True,
              help="Print a case stanza (YAML) for the picked results instead, pinned to the "
                   "index's revision, with no cutoff (the case file's defaults give it; -k "
                   "is only how deep to search): paste it under `cases:` in a case file.")
@click.option("--pick", default=None, metavar="RANKS",
              help="With --as-case: the ranks to accept, e.g. 1,3 (default 1). They form one "
                   "accepted group (any of them); split it into groups when each is required.")
@handle_errors
def command(index: str, query: str, k: int, open_file: str | None, explain: bool,
            config_path: str | None, dense: bool | None, embedder: str | None, as_json: bool,
            as_case: bool, pick: str | None) -> None:
    """Search INDEX for QUERY: path:lines, symbol, role, score and an excerpt per result.

    With --as-case, print a ready case stanza for the chosen results instead (file,
    symbol and role of each, the query, and the index's repository and revision).

    \b
    Example:
      codegold search idx/ "how does createSession handle expired tokens" -k 5
      codegold search idx/ "SessionService.create" --open-file src/auth/login.ts --explain
      codegold search idx/ "where is createSession defined" --as-case --pick 1,3
    """
    if pick is not None and not as_case:
        raise InputError("--pick needs --as-case")
    if as_case and as_json:
        raise InputError("--as-case and --json cannot be combined: --as-case prints YAML")
    ranks = _parse_pick(pick or "1", k) if as_case else []
    _build_missing_caches(index, load_config(config_path))
    found = search(SearchRequest(index=index, query=query, k=k, open_file=open_file,
                                 config=config_path, dense=dense, embedder=embedder))
    result = found.result
    if as_case:
        chunks = [s.chunk.to_chunk() for s in result.ranked]
        if len(chunks) < max(ranks):
            raise InputError(f"--pick {pick or '1'} asks for rank {max(ranks)}, but the "
                             f"search returned {len(chunks)} result(s)")
        click.echo(case_stanza(query, found.manifest, [chunks[r - 1] for r in ranks]),
                   nl=False)
        return
    if as_json:
        chunks = [s.chunk.to_chunk(score=round(s.score, 6)) for s in result.ranked]
        click.echo(msgspec.json.encode({"rewritten": result.rewritten,
                                        "ranked": chunks}).decode())
        return
    _render(result, explain)


_MAX_PICKS = 100


def _build_missing_caches(index: str, config: Any) -> None:
    """Say so on stderr, with progress, when this first query must build BM25 caches
    (an index from before `codegold index` built them, or a config with other BM25
    parameters), instead of a silent wait."""
    from codegold.cli._common import ProgressLine
    from codegold.retrieve.warm import missing_engines, warm_lexical

    missing = missing_engines(index, config)
    if not missing:
        return
    click.echo(f"building {len(missing)} BM25 cache(s) of this index, once (`codegold index` "
               "builds them ahead)", err=True)
    with ProgressLine("BM25 caches") as bar:
        warm_lexical(index, config, keep=True,
                     progress=lambda event: bar.update(completed=event.done, total=event.total))


def _parse_pick(text: str, k: int) -> list[int]:
    """``1,3`` -> [1, 3]: distinct ranks from 1 to ``k``, in the order given."""
    ranks: list[int] = []
    parts = text.split(",")
    if len(parts) > _MAX_PICKS:
        raise InputError(f"--pick names {len(parts)} ranks; at most {_MAX_PICKS}")
    for part in parts:
        item = part.strip()
        if not (item.isascii() and item.isdigit()) or len(item) > 6:
            raise InputError(f"--pick expects ranks like 1,3; found {part[:20]!r}")
        rank = int(item)
        if not 1 <= rank <= k:
            raise InputError(f"--pick rank {rank} is outside 1..{k} (-k {k})")
        if rank not in ranks:
            ranks.append(rank)
    return ranks


def case_stanza(query: str, manifest: Manifest, chunks: list[Chunk],
                cutoff: int | None = None) -> str:
    """A case (YAML list item) accepting any of ``chunks``, pinned to ``manifest``'s
    repository and revision; a role the case format does not know is left out. It names
    a cutoff only when given one: by default the case file's ``defaults`` decide it (the
    production cutoff is the answer stage's, not how deep a search looked)."""
    if not manifest.revision:
        raise InputError("the index's manifest names no revision to pin the case to")
    slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")[:60].strip("-") or "new-case"
    targets: list[dict[str, object]] = []
    for chunk in chunks:
        target: dict[str, object] = {"file": chunk.file}
        if chunk.symbol:
            target["symbol"] = chunk.symbol
        if chunk.role in ROLES:
            target["roles"] = [chunk.role]
        targets.append(target)
    case: dict[str, object] = {"id": slug, "query": query}
    if manifest.repository:
        case["repository"] = manifest.repository
    case["revision"] = manifest.revision
    if cutoff is not None:
        case["cutoff"] = cutoff
    case["accepted"] = targets
    return yaml.safe_dump([case], sort_keys=False, allow_unicode=False, width=100)


def _render(result: RetrievalResult, explain: bool) -> None:
    console = stdout_console()
    terms = set(result.analysis.terms)
    analysis = result.analysis
    if explain:
        console.print(f"[bold]query[/] intent={analysis.intent} "
                      f"asks_for={sorted(analysis.asks_for) or '-'}")
        console.print(f"  rewritten: {rich_safe(result.rewritten[:300])}")
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
