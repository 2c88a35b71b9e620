"""``codegold export trec``: TREC run + qrels for trec_eval, ranx and ir_measures users."""

from __future__ import annotations

import os

import click

from codegold.cli._common import guard, handle_errors
from codegold.errors import InputError
from codegold.evaluate.trec import export_trec
from codegold.model import Case, Chunk, iter_attempts, load_cases, load_results
from codegold.plumbing.outputs import write_text_atomic


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
    if not prefix or prefix.endswith(("/", os.sep)) or os.path.basename(prefix) in (".", ".."):
        raise InputError(f"-o takes a path prefix such as out/run (files PREFIX.file.run ...), "
                         f"found {prefix!r}")
    paths = [f"{prefix}.{g}.{s}" for g in ("file", "symbol") for s in ("run", "qrels")]
    for path in paths:
        guard(path, source, cases)
    pairs: list[tuple[Case, list[Chunk]]]
    if source.endswith(".jsonl"):
        if not cases:
            raise InputError("an attempts file needs --cases to know the gold targets",
                             path=source)
        case_set = load_cases(cases)
        by_id = {c.id: c for c in case_set.cases}
        final: dict[str, list[Chunk]] = {}
        retried: set[str] = set()
        ordered = list(iter_attempts(source))
        retried = {a.retry_of for a in ordered if a.retry_of}
        for attempt in ordered:
            if attempt.case_id in by_id and attempt.attempt_id not in retried:
                final[attempt.case_id] = attempt.ranked
        pairs = [(c, final.get(c.id, [])) for c in case_set.cases]
    else:
        result = load_results(source)
        pairs = [(r.case, r.ranked) for r in result.cases]
    for granularity in ("file", "symbol"):
        exported = export_trec(pairs, granularity=granularity)
        for suffix, text in (("run", exported.run), ("qrels", exported.qrels)):
            path = f"{prefix}.{granularity}.{suffix}"
            write_text_atomic(path, text)
            click.echo(f"wrote {path}")
