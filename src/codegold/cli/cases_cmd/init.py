"""``codegold cases init``: a starting cases.yaml, policy.yaml and owners.yaml."""

from __future__ import annotations

import click

from codegold.cli._common import handle_errors
from codegold.errors import InputError
from codegold.workflows import curating


@click.command("init")
@click.argument("repo", type=click.Path(file_okay=False), default=".")
@click.option("-o", "--output", "folder", type=click.Path(file_okay=False), default="evals",
              show_default=True, help="Folder to write cases.yaml, policy.yaml, owners.yaml into.")
@click.option("--revision", default="HEAD", show_default=True,
              help="Commit (or tag, branch) the example case is pinned to.")
@handle_errors
def init(repo: str, folder: str, revision: str) -> None:
    """Write a starting cases.yaml, policy.yaml and owners.yaml for the repository REPO.

    The case file holds one real case (a definition found in the repository, pinned to
    the resolved commit), lists the languages found and the folders that look like
    traps (vendored, generated, legacy, migrations, build output). Existing files are
    never overwritten.

    \b
    Example:
      codegold cases init . -o evals
      codegold index . --revision HEAD -o .codegold/idx
      codegold cases check evals/cases.yaml --index .codegold/idx
    """
    if revision.startswith("-"):
        raise InputError(f"--revision must name a commit, found {revision!r}")
    started = curating.start_evals(curating.InitRequest(repo=repo, folder=folder,
                                                        revision=revision))
    click.echo(f"wrote {', '.join(str(p) for p in started.written)} for {started.repository} "
               f"at {started.revision[:12]}", err=True)
