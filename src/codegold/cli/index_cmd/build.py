"""``codegold index build``: one pinned-revision index, or one per revision of many."""

from __future__ import annotations

from pathlib import Path

import click

from codegold import workflows
from codegold.cli._common import executor_option, guard, handle_errors, quiet_option
from codegold.cli._progress import RevisionsBar, build_printer
from codegold.cli.index_cmd._lines import CachesShown, say_built
from codegold.execute import parse_executor


@click.command("build")
@click.argument("repo", type=click.Path(file_okay=False, path_type=Path))
@click.option("--revision", "-r", help="Branch, tag or sha to index.")
@click.option("--revisions", "revisions_spec", metavar="FILE|REV,REV,...",
              help="Index many revisions into -o DIR/<commit>: a file with one revision "
                   "per line, else a comma-separated list (./NAME, NAME, when both); an "
                   "item A..B stands for that range's commits, oldest first.")
@click.option("--cases", "cases_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Index every revision these cases pin into -o DIR/<commit>; with REPO a "
                   "folder of clones (owner+name/), each case's revision from its "
                   "repository's clone.")
@click.option("--output", "-o", "output", required=True, type=click.Path(path_type=Path),
              help="Index directory to write: absent, empty, or a codegold index (then "
                   "replaced atomically); never the repository itself. With --revisions or "
                   "--cases: the folder that holds one index per revision.")
@click.option("--store", type=click.Path(path_type=Path),
              help="Chunk store folder shared by builds of this repository: files chunked "
                   "for any earlier revision are not parsed again (default with --revisions "
                   "or --cases: DIR/.chunkstore; a single build uses none unless given).")
@click.option("--no-store", is_flag=True, help="With --revisions or --cases: no chunk store.")
@click.option("--policy", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Path policy file (include/exclude globs, max_bytes).")
@click.option("--reuse", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Previous index whose unchanged files are copied, not re-parsed "
                   "(default: the index already at -o, if any).")
@click.option("--repository", help="Repository name for the manifest (default: from the "
                                   "origin remote, else the directory name).")
@click.option("--embed", is_flag=True,
              help="Also embed every chunk for dense retrieval now (needs codegold[dense]; "
                   "as `codegold index embed`), so a run with --dense embeds nothing.")
@click.option("--skip-missing-blobs", is_flag=True, help="Leave out files a partial clone lacks.")
@executor_option()
@quiet_option("No progress on stderr.")
@handle_errors
def build_command(repo: Path, revision: str | None, revisions_spec: str | None,
                  cases_file: Path | None, output: Path, store: Path | None, no_store: bool,
                  policy: Path | None, reuse: Path | None, repository: str | None,
                  embed: bool, skip_missing_blobs: bool, executor: str, quiet: bool) -> None:
    """Index REPO at REVISION into OUTPUT (manifest.json + index.sqlite), or at many
    revisions (--revisions, --cases) into OUTPUT/<commit>, one index each.

    \b
    Example:
      codegold index build ~/src/shop --revision v2.3.1 -o idx/ --policy policy.yaml
      codegold index ~/src/shop --revision main -o idx/ --reuse old-idx/ --quiet
      codegold index ~/src/shop --revisions revisions.txt -o indexes/
      codegold index ~/src/shop --cases cases.yaml -o indexes/ --store ~/.cache/shop-chunks
      codegold index clones/ --cases swebench.yaml -o indexes/   # clones/owner+name/
      codegold index ~/src/shop --revisions revisions.txt -o indexes/ --executor ray
    """
    request = workflows.BuildRequest(
        repo=repo, output=output, revision=revision, revisions=revisions_spec,
        cases=cases_file, store=store, no_store=no_store, policy=policy, reuse=reuse,
        repository=repository, embed=embed, skip_missing_blobs=skip_missing_blobs,
        executor=parse_executor(executor))
    inputs = (str(policy) if policy else None, str(cases_file) if cases_file else None)
    guard(str(output), *inputs, directory=True)
    guard(str(store) if store else None, *inputs, option="--store", directory=True)
    shown = CachesShown(quiet, builds=(bar := RevisionsBar(quiet)))
    try:
        built = workflows.build_indexes(request, shown, progress=build_printer(quiet),
                                        many_progress=bar)
    finally:
        shown.close()
    say_built(built, output)
