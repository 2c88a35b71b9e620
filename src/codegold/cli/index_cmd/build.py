"""``codegold index build``: one pinned-revision index, or one per revision of many."""

from __future__ import annotations

from pathlib import Path

import click

from codegold import workflows
from codegold.cli._common import executor_option, guard, handle_errors, quiet_option, start_executor
from codegold.cli._progress import RevisionsBar, build_printer
from codegold.cli.index_cmd._lines import prepare_caches, written
from codegold.errors import InputError
from codegold.execute import parse_executor
from codegold.index import load_policy
from codegold.model import load_cases
from codegold.plumbing.text import terminal_safe as _safe


@click.command("build")
@click.argument("repo", type=click.Path(file_okay=False, path_type=Path))
@click.option("--revision", "-r", help="Branch, tag or sha to index.")
@click.option("--revisions", "revisions_spec", metavar="FILE|REV,REV,...",
              help="Index many revisions into -o DIR/<commit>: a file with one revision per "
                   "line, or a comma-separated list.")
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
@click.option("--no-store", is_flag=True, help="With --revisions or --cases: build each "
                                               "revision from scratch, no chunk store.")
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
@executor_option()
@quiet_option("No progress on stderr.")
@handle_errors
def build_command(repo: Path, revision: str | None, revisions_spec: str | None,
                  cases_file: Path | None, output: Path, store: Path | None, no_store: bool,
                  policy: Path | None, reuse: Path | None, repository: str | None,
                  embed: bool, executor: str, quiet: bool) -> None:
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
    given = [name for name, value in (("--revision", revision), ("--revisions", revisions_spec),
                                      ("--cases", cases_file)) if value is not None]
    if len(given) != 1:
        raise InputError(f"index needs exactly one of --revision, --revisions or --cases "
                         f"(got {', '.join(given) or 'none'})")
    if store is not None and no_store:
        raise InputError("--store and --no-store contradict each other; give one")
    where = parse_executor(executor)
    if revision is not None and where.kind != "local":
        raise InputError(f"--executor {where} applies to many-revision builds (--revisions "
                         "or --cases); a single --revision builds here")
    inputs = (str(policy) if policy else None, str(cases_file) if cases_file else None)
    guard(str(output), *inputs, directory=True)
    if store is not None:
        guard(str(store), *inputs, option="--store", directory=True)
    loaded = load_policy(policy) if policy is not None else None
    if revision is not None:
        manifest = workflows.index(
            workflows.IndexRequest(repo=repo, revision=revision, output=output, policy=loaded,
                                   reuse=reuse, repository=repository, store=store),
            progress=build_printer(quiet))
        prepare_caches([output], quiet=quiet, embed=embed, store=store)
        click.echo(written(output, manifest))
        return
    if reuse is not None:
        raise InputError("--reuse applies to a single --revision build; many-revision "
                         "builds share the chunk store instead")
    if output.resolve() == repo.resolve():
        raise InputError("-o is the repository being indexed; a folder of indexes goes "
                         "beside it or below it (say .codegold/indexes), never the "
                         "repository itself", path=str(output))
    sources = (workflows.case_revision_sources(repo, load_cases(str(cases_file)).cases)
               if cases_file is not None else workflows.revision_sources(repo, revisions_spec or ""))
    bar = RevisionsBar(quiet)
    try:
        result = workflows.index_many(
            workflows.IndexManyRequest(sources=sources, output=output, store=store,
                                       use_store=not no_store, policy=loaded,
                                       repository=repository),
            executor=start_executor(where), progress=bar)
    finally:
        bar.stop()
    prepare_caches([output / str(m.revision) for m in result.built], quiet=quiet, embed=embed,
                   store=result.store)
    for manifest in result.built:
        click.echo(written(output / str(manifest.revision), manifest))
    store_note = f", chunk store {result.store}" if result.store else ""
    click.echo(_safe(f"{len(result.built)} indexes built, {len(result.skipped)} already there "
                     f"in {output}; parsed {result.parsed} files, reused {result.reused}"
                     f"{store_note}"))
