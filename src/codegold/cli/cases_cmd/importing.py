"""``codegold cases import``: cases from benchmark files (SWE-bench)."""

from __future__ import annotations

import click

from codegold.cli._common import handle_errors
from codegold.cli.cases_cmd._lines import say_skipped
from codegold.errors import InputError
from codegold.plumbing.outputs import guard_output
from codegold.workflows import curating


@click.group("import")
def import_group() -> None:
    """Import cases from benchmark files.

    \b
    Example:
      codegold cases import swebench instances.jsonl --repo ../flask -o swebench.yaml
    """


@import_group.command("swebench")
@click.argument("instances", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Case file (YAML) to write.")
@click.option("--repo", type=click.Path(file_okay=False), default=None,
              help="Local clone of the instances' repository.")
@click.option("--repos-dir", type=click.Path(file_okay=False), default=None,
              help="Folder of local clones, named owner__name, owner+name or name.")
@click.option("--cutoff", type=click.IntRange(min=1, max=1000), default=5, show_default=True)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Import at most N instances.")
@handle_errors
def import_swebench_cmd(instances: str, output: str, repo: str | None, repos_dir: str | None,
                        cutoff: int, limit: int | None) -> None:
    """Turn SWE-bench-style INSTANCES (JSONL, JSON or Parquet) into gold cases.

    One case per instance: the query is the problem statement, the revision the base
    commit, and each file the reference patch changes (new files excluded) is one
    required group whose alternatives are the definitions the patch changed, found by
    parsing that file at the base commit. SWE-bench, Lite, Verified and Multi-SWE-bench
    field names are understood.

    \b
    Example:
      codegold cases import swebench lite.jsonl --repos-dir clones/ -o swebench.yaml
      codegold cases check swebench.yaml --repo clones/flask --index idx/
    """
    if repo is None and repos_dir is None:
        raise InputError("give --repo (one repository) or --repos-dir (a folder of clones)")
    guard_output(output, inputs=(instances,))
    report = curating.cases_from_swebench(curating.SwebenchRequest(
        instances=instances, output=output, repo=repo, repos_dir=repos_dir, cutoff=cutoff,
        limit=limit))
    click.echo(f"{report.drafts} case(s) from {report.items} instance(s) written to {output}",
               err=True)
    say_skipped(report.skipped)
