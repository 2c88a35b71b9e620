"""``codegold run``: run gold cases through a retriever into attempts.jsonl (never scores)."""

from __future__ import annotations

import click

from codegold.cli._common import handle_errors, stderr_console


@click.command("run")
@click.argument("cases", type=click.Path(dir_okay=False))
@click.option("--index", "index", type=click.Path(), default=None,
              help="An index directory, or a folder of index directories (one per revision).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="attempts.jsonl to write (one line appended and flushed per case).")
@click.option("--repo", type=click.Path(file_okay=False), default=None,
              help="Git repository: build each case revision's missing index into --index.")
@click.option("--retriever", "spec", default="reference", show_default=True,
              help="reference | command:CMD | http(s)://URL | python:module:function")
@click.option("--resume", is_flag=True, help="Continue an interrupted run: skip attempted cases.")
@click.option("--workers", type=int, default=1, show_default=True, help="Cases run in parallel.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Reference retriever config (YAML) merged over the defaults.")
@click.option("--dense", is_flag=True, help="Reference retriever: add dense retrieval "
              "(needs codegold[dense]).")
@click.option("--embedder", default=None,
              help="Dense embedder: minilm-int8 (default) | minilm | dir:PATH | "
                   "openai:URL#MODEL (implies --dense).")
@click.option("--timeout", type=float, default=30.0, show_default=True,
              help="Seconds per request for command/http retrievers.")
@click.option("--retries", type=int, default=2, show_default=True,
              help="Retries (with backoff) for http retrievers.")
@click.option("--resolve", "resolve", is_flag=False, flag_value="", default=None,
              metavar="[INDEX]",
              help="Record what each returned chunk's file and line span hold in the index of "
                   "the case's revision (symbols, role), and judge that instead of the "
                   "retriever's own metadata. Bare --resolve uses --index.")
@click.option("--run-id", default=None, help="Run id recorded in every attempt.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
@handle_errors
def command(cases: str, index: str | None, repo: str | None, output: str, spec: str, resume: bool, workers: int,
            config_path: str | None, dense: bool, embedder: str | None, timeout: float,
            retries: int, resolve: str | None, run_id: str | None, quiet: bool) -> None:
    """Run every case in CASES through a retriever and write ATTEMPTS (attempts.jsonl).

    Each case is served by the index built from its own revision; a case without one,
    or whose retriever crashes, hangs or answers bad JSON, gets an error attempt (scored
    `invalid`) and the run goes on. Score the output with `codegold eval`.

    \b
    Example:
      codegold run cases.yaml --index idx/ -o attempts.jsonl
      codegold run cases.yaml --index indexes/ -o a.jsonl --workers 4 --resume
      codegold run cases.yaml --index idx/ -o a.jsonl --retriever "command:node my.js"
      codegold run cases.yaml --repo . --index .codegold/indexes -o attempts.jsonl
      codegold run cases.yaml --index idx/ -o a.jsonl --retriever "command:./windows.py" --resolve
    """
    from pathlib import Path

    from codegold.adapters.registry import RetrieverOptions, close_retriever, make_retriever
    from codegold.adapters.runner import run_cases
    from codegold.errors import InputError
    from codegold.index.catalog import IndexSet
    from codegold.model import load_cases
    from codegold.retrieve.config import load_config

    case_set = load_cases(cases)
    config = load_config(config_path)
    is_reference = spec.split(":", 1)[0] == "reference"
    if index is None and is_reference:
        raise InputError("the reference retriever needs --index (an index directory or a "
                         "folder of them); build one with `codegold index`")
    if repo is not None:
        if index is None:
            raise InputError("--repo needs --index: the folder that holds one index per revision")
        _build_missing(repo, Path(index), {c.revision for c in case_set.cases}, quiet)
    indexes = IndexSet.from_path(index) if index else IndexSet.empty()
    options = RetrieverOptions(config=config, timeout=timeout, retries=retries,
                               dense=dense or embedder is not None, embedder=embedder)
    retriever = make_retriever(spec, options)
    if resolve is not None:
        from codegold.adapters.resolving import ResolvingRetriever
        from codegold.resolve import AttemptResolver

        if not resolve and index is None:
            raise InputError("--resolve needs an index: give --index, or --resolve INDEX")
        retriever = ResolvingRetriever(
            retriever, AttemptResolver(IndexSet.from_path(resolve) if resolve else indexes))
    progress = None
    task = None
    if not quiet:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        progress = Progress("[progress.description]{task.description}", BarColumn(),
                            MofNCompleteColumn(), TimeRemainingColumn(),
                            console=stderr_console(), transient=True)
        already = 0
        if resume and Path(output).exists():
            from codegold.adapters.runner import existing_attempts

            done, _ = existing_attempts(Path(output))
            already = sum(1 for c in case_set.cases if c.id in done)
        task = progress.add_task("running cases", total=len(case_set.cases), completed=already)
        progress.start()
    try:
        summary = run_cases(
            case_set.cases, retriever, indexes, Path(output), label=spec, resume=resume,
            workers=workers, run_id=run_id, default_k=config.candidates.default_k,
            require_index=is_reference,
            on_attempt=(lambda _a: progress.advance(task)) if progress is not None and task is not None
            else None)
    finally:
        if progress is not None:
            progress.stop()
        close_retriever(retriever)
    if not quiet:
        click.echo(f"{summary.written} attempts written to {output} "
                   f"({summary.skipped} already there, {summary.errors} errors) "
                   f"in {summary.seconds:.1f}s, run {summary.run_id}", err=True)


def _build_missing(repo: str, folder: object, revisions: set[str], quiet: bool) -> None:
    """Index every case revision that has no complete index under ``folder`` yet."""
    from pathlib import Path

    from codegold.errors import InputError
    from codegold.index import build_index
    from codegold.index.catalog import IndexSet

    root = Path(str(folder))
    root.mkdir(parents=True, exist_ok=True)
    try:
        have = set(IndexSet.from_path(root).by_revision)
    except InputError:  # nothing complete there yet
        have = set()
    previous = None
    for revision in sorted(revisions - have):
        out = root / revision
        if not quiet:
            click.echo(f"indexing {repo} at {revision[:12]} into {out}", err=True)
        build_index(repo, revision, out, reuse_from=previous)
        previous = out
