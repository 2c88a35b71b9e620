"""``codegold search``: query one index with the reference retriever, the everyday tool."""

from __future__ import annotations

import click

from codegold.cli._common import config_option, handle_errors, json_option
from codegold.cli._progress import MissingCachesBar
from codegold.cli.search_render import ranked_json, render_ranked
from codegold.errors import InputError
from codegold.workflows.searching import SearchRequest, search


@click.command("search")
@click.argument("index", type=click.Path(file_okay=False))
@click.argument("query")
@click.option("-k", "k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Results to show (at least 1).")
@click.option("--open-file", default=None, help="The file the user has open (boosts nearby code).")
@click.option("--explain", is_flag=True,
              help="Show how the query was read (intent, rewritten query, a long query's "
                   "title terms), each signal's contribution and each multiplier.")
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
    if as_case and as_json:
        raise InputError("--as-case and --json cannot be combined: --as-case prints YAML")
    caches = MissingCachesBar()
    try:
        found = search(SearchRequest(index=index, query=query, k=k, open_file=open_file,
                                     config=config_path, dense=dense, embedder=embedder,
                                     as_case=as_case, pick=pick), caches)
    finally:
        caches.stop()
    if found.stanza is not None:
        click.echo(found.stanza, nl=False)
    elif as_json:
        click.echo(ranked_json(found.result))
    else:
        render_ranked(found.result, explain)
