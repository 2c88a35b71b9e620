"""``codegold cases from-log``: draft cases from assistant traces or search logs."""

from __future__ import annotations

import click

from codegold.cli._common import handle_errors
from codegold.plumbing.outputs import guard_output
from codegold.plumbing.text import terminal_safe
from codegold.workflows import curating


@click.command("from-log")
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Draft case file (YAML) to write.")
@click.option("--map", "mappings", multiple=True, metavar="FIELD=PATH",
              help="Where a field sits in your records (dotted path, list indices allowed); "
                   "fields: id, query, repository, revision, timestamp, retrieved, cited, feedback.")
@click.option("--repo", type=click.Path(file_okay=False), default=None,
              help="Git repository to resolve a record's timestamp to the commit then current.")
@click.option("--repository", default=None, help="Repository name for records that name none.")
@click.option("--index", "index_dir", type=click.Path(file_okay=False), default=None,
              help="Index (or folder of indexes) of the records' revisions: a cited line span "
                   "becomes the symbols it holds, not just its file.")
@click.option("--cutoff", type=click.IntRange(min=1, max=1000), default=5, show_default=True,
              help="Production cutoff k written into the drafts' defaults.")
@click.option("--name", "names", multiple=True,
              help="A user name to scrub wherever it appears (repeat the option).")
@click.option("--names-file", type=click.Path(dir_okay=False), default=None,
              help="A file of user names to scrub, one per line.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), default=None,
              help="Write the scrub report (what was removed where, never the values) as JSON.")
@handle_errors
def from_log(log: str, output: str, mappings: tuple[str, ...], repo: str | None,
             repository: str | None, index_dir: str | None, cutoff: int,
             names: tuple[str, ...], names_file: str | None, report_path: str | None) -> None:
    """Draft cases from assistant traces or search logs in LOG (JSONL or a JSON list).

    Secrets (cloud keys, tokens, private keys, high-entropy strings, credentials in URLs,
    password assignments) and personal data (e-mails, IP addresses, phone and card
    numbers, home folders, the user names you list) are replaced by typed placeholders
    before anything is written; the report says what was removed and where, never the
    value. A record becomes a draft when it names a revision (or a timestamp and --repo)
    and evidence: what the answer cited, or the first retrieved chunk when the feedback
    was positive. A cited line span is kept: with --index, as the symbols it holds (the
    rule span resolution applies); without, named in the rationale. Drafts carry the tag
    status=draft: review them, then `cases check`.

    \b
    Example:
      codegold cases from-log traces.jsonl -o drafts.yaml --report scrub.json
      codegold cases from-log traces.jsonl -o drafts.yaml --index indexes/
      codegold cases from-log spans.json -o drafts.yaml --repo . \\
          --map query=attributes.gen_ai.prompt --map timestamp=start_time
    """
    guard_output(output, inputs=(log, names_file, report_path))
    if report_path is not None:
        guard_output(report_path, inputs=(log, names_file), option="--report")
    report = curating.cases_from_log(curating.FromLogRequest(
        log=log, output=output, mappings=mappings, repo=repo, repository=repository,
        cutoff=cutoff, names=names, names_file=names_file, report=report_path,
        index=index_dir))
    removed = ", ".join(f"{n} {kind}" for kind, n in report.removed.items()) or "nothing"
    click.echo(f"{report.drafts} draft case(s) from {report.records} record(s) written to "
               f"{output}; scrubbed: {removed}", err=True)
    for why, n in report.skipped.items():
        click.echo(f"skipped {n}: {terminal_safe(why)}", err=True)
