"""``codegold export trec``: TREC run + qrels for trec_eval, ranx and ir_measures users."""

from __future__ import annotations

import click

from codegold.cli._common import guard, handle_errors
from codegold.workflows.exporting import TrecRequest, export_trec_files


@click.group("export")
def command() -> None:
    """Export codegold data to other tools' formats.

    \b
    Example:
      codegold export trec results.json -o out/run
    """


@command.command("trec")
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("--cases", type=click.Path(dir_okay=False),
              help="Gold cases; required when SOURCE is an attempts file.")
@click.option("-o", "--output", "prefix", required=True,
              help="Path prefix: writes PREFIX.file.run/.qrels and PREFIX.symbol.run/.qrels.")
@handle_errors
def trec(source: str, cases: str | None, prefix: str) -> None:
    """Write TREC runs and qrels from SOURCE (results.json or attempts.jsonl).

    From results.json the run holds the chunks kept there (the cutoff plus a few past
    it); from attempts.jsonl (with --cases) it holds each case's full final ranking.

    \b
    Example:
      codegold export trec results.json -o out/run
      codegold export trec attempts.jsonl --cases cases.yaml -o out/run
      trec_eval -m recip_rank out/run.file.qrels out/run.file.run
    """
    request = TrecRequest(source=source, output=prefix, cases=cases)
    for path in request.paths:
        guard(path, source, cases)
    export_trec_files(request, wrote=lambda path: click.echo(f"wrote {path}"))
