"""``codegold run``: run gold cases through a retriever into attempts.jsonl (never scores)."""

from __future__ import annotations

import math
import sys
from typing import Any

import click

from codegold.cli._common import (
    ProgressLine,
    config_option,
    executor_option,
    guard,
    handle_errors,
    index_option,
    output_option,
    quiet_option,
    start_executor,
)
from codegold.plumbing.text import terminal_safe

EXIT_RUN_ERRORS = 3
_SHOW_ERRORS = 5


MAX_SECONDS = 86_400


class _Seconds(click.ParamType[float, Any]):
    """A finite number of seconds above zero and at most a day (``nan``, ``inf``, 0,
    negatives and ``1e10``, which no socket or process timer takes, refused)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(number) or number <= 0:
            self.fail(f"{value!r} is not a finite number of seconds above 0", param, ctx)
        if number > MAX_SECONDS:
            self.fail(f"{value!r} seconds is more than a day; expected at most {MAX_SECONDS}",
                      param, ctx)
        return number


@click.command("run")
@click.argument("cases", type=click.Path(dir_okay=False))
@index_option("An index directory, or a folder of index directories (one per revision).")
@output_option("attempts.jsonl to write (one line appended and flushed per case).", required=True)
@click.option("--repo", type=click.Path(file_okay=False), default=None,
              help="Git repository, or a folder of clones (owner+name/) for cases of many "
                   "repositories: build each case revision's missing index into --index.")
@click.option("--retriever", "spec", default="reference", show_default=True,
              help="reference | command:CMD | command+jsonl:CMD | http(s)://URL | "
                   "python:module:function | mcp:stdio:CMD | mcp:http(s)://URL")
@click.option("--python", "python", default=None, metavar="PATH",
              help="With --retriever python:module:function: call it in this interpreter (a "
                   "retriever in its own virtual environment), a child process per case, "
                   "instead of inside codegold's own.")
@click.option("--resume", is_flag=True, help="Continue an interrupted run: skip attempted cases.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Cases run in parallel.")
@config_option()
@click.option("--dense/--no-dense", default=None,
              help="Reference retriever: turn dense retrieval on (needs codegold[dense]) or "
                   "off. Default: off (signals.dense.enabled: false).")
@click.option("--embedder", default=None,
              help="Dense embedder: minilm-int8 (default) | dir:PATH (ONNX) | "
                   "openai:URL#MODEL (implies --dense).")
@click.option("--timeout", type=_Seconds(), default=30.0, show_default=True,
              help="Seconds per request for command/http retrievers (the whole request, "
                   "not each read).")
@click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True,
              help="Retries (with backoff) for http retrievers.")
@click.option("--allow-errors", is_flag=True,
              help="Exit 0 even when some cases got error attempts.")
@click.option("--resolve", "resolve", is_flag=False, flag_value="", default=None,
              metavar="[INDEX]",
              help="Record what each returned chunk's file and line span hold in the index of "
                   "the case's revision (symbols, role), and judge that instead of the "
                   "retriever's own metadata. Bare --resolve uses --index.")
@click.option("--run-id", default=None, help="Run id recorded in every attempt.")
@click.option("--repeat", type=click.IntRange(min=1, max=1000), default=1, show_default=True,
              help="Attempts per case (ids RUN/CASE#1..#N, one repeat_group per case), to "
                   "check with `codegold flaky`; --resume completes cases with fewer.")
@click.option("--wait-for-index", "wait_for_index", type=_Seconds(), default=None,
              metavar="SECONDS",
              help="Before running, wait up to SECONDS for a complete index of every case "
                   "revision under --index; exit 2 naming the missing ones.")
@click.option("--mcp-tool", default=None, metavar="NAME",
              help="mcp: the tool to call (default: the only search-like tool the server lists).")
@click.option("--mcp-args", default=None, metavar="JSON",
              help='mcp: the tool\'s arguments, with {query} {k} {revision} {repository} '
                   '{open_file} {case_id} {checkout}, e.g. \'{"query": "{query}", "limit": "{k}"}\'.')
@click.option("--mcp-parse", default="auto", show_default=True, metavar="NAME",
              help="mcp: how to read a text result: auto | structured | json | grep | ranges "
                   "| markdown | paths | module:function.")
@click.option("--mcp-setup", default=None, metavar="JSON",
              help='mcp: a call made once per checkout before searching, e.g. '
                   '\'{"tool": "set_project_path", "arguments": {"path": "{checkout}"}}\'.')
@click.option("--mcp-checkout", default=None, type=click.Path(file_okay=False), metavar="DIR",
              help="mcp: the directory {checkout} names (default: each case revision written "
                   "from --repo to a temporary folder, removed after the run).")
@executor_option()
@quiet_option("No progress bar or summary.")
@handle_errors
def command(cases: str, index: str | None, repo: str | None, output: str, spec: str,
            python: str | None, resume: bool, workers: int,
            config_path: str | None, dense: bool | None, embedder: str | None, timeout: float,
            retries: int, allow_errors: bool, resolve: str | None, run_id: str | None,
            repeat: int, wait_for_index: float | None, mcp_tool: str | None,
            mcp_args: str | None, mcp_parse: str, mcp_setup: str | None,
            mcp_checkout: str | None, executor: str, quiet: bool) -> None:
    """Run every case in CASES through a retriever and write ATTEMPTS (attempts.jsonl).

    Each case is served by the index built from its own revision; a case without one,
    or whose retriever crashes, hangs or answers bad JSON, gets an error attempt (scored
    `invalid`) and the run goes on. Score the output with `codegold eval`.

    With --executor ray, cases are sharded by revision and each shard runs on a Ray
    worker that opens that revision's index (--workers does not apply); this process
    writes ATTEMPTS.

    Exit codes: 0 when every case was answered, 3 when any case got an error attempt
    (the attempts are still written; the first distinct errors are printed; pass
    --allow-errors to exit 0 anyway), 2 for bad input.

    \b
    Example:
      codegold run cases.yaml --index idx/ -o attempts.jsonl
      codegold run cases.yaml --index indexes/ -o a.jsonl --workers 4 --resume
      codegold run cases.yaml --index idx/ -o a.jsonl --retriever "command:node my.js"
      codegold run cases.yaml --repo . --index .codegold/indexes -o attempts.jsonl
      codegold run cases.yaml --index idx/ -o a.jsonl --retriever "command:./windows.py" --resolve
      codegold run cases.yaml --index idx/ -o a.jsonl --repeat 3 --wait-for-index 600
      codegold run cases.yaml --repo . --index indexes/ -o a.jsonl --executor ray
      codegold run cases.yaml --repo . --index idx/ -o a.jsonl --resolve \\
        --retriever "mcp:stdio:my-mcp-server" --mcp-args '{"query": "{query}", "root": "{checkout}"}'
    """
    from pathlib import Path

    from codegold.adapters.registry import (
        RetrieverOptions,
        close_retriever,
        config_digest,
        make_retriever,
    )
    from codegold.adapters.runner import run_cases
    from codegold.errors import InputError
    from codegold.execute import parse_executor
    from codegold.index.catalog import IndexSet
    from codegold.model import Attempt, load_cases
    from codegold.plumbing.http import redact_url
    from codegold.retrieve.config import load_config

    guard(output, cases, config_path, repo, trees=(index,))
    where = parse_executor(executor)
    case_set = load_cases(cases)
    config = load_config(config_path)
    is_reference = spec.split(":", 1)[0] == "reference"
    if index is None and is_reference:
        raise InputError("the reference retriever needs --index (an index directory or a "
                         "folder of them); build one with `codegold index`")
    pool = None  # started when first needed: every cheap check comes before Ray's start
    if repo is not None:
        if index is None:
            raise InputError("--repo needs --index: the folder that holds one index per revision")
        from codegold.cli.index_cmd import build_case_revisions

        pool = start_executor(where)
        build_case_revisions(repo, Path(index), case_set.cases, quiet=quiet,
                             executor=pool, warm=is_reference)
    if wait_for_index is not None:
        if index is None:
            raise InputError("--wait-for-index needs --index: the folder to wait on")
        from codegold.adapters.runner import wait_for_indexes

        wait_for_indexes(Path(index), {case.revision for case in case_set.cases},
                         wait_for_index)
    indexes = IndexSet.from_path(index) if index else IndexSet.empty()
    for _, message in indexes.repository_mismatches(case_set.cases):
        click.echo(f"warning: {message}", err=True)
    if python is not None and not spec.startswith("python:"):
        raise InputError(f"--python applies to a python:module:function retriever, not "
                         f"{spec.split(':', 1)[0]!r}", field="python")
    from codegold.adapters.mcp import McpSettings

    given = [name for name, value in (("--mcp-tool", mcp_tool), ("--mcp-args", mcp_args),
                                      ("--mcp-setup", mcp_setup), ("--mcp-checkout", mcp_checkout),
                                      ("--mcp-parse", None if mcp_parse == "auto" else mcp_parse))
             if value is not None]
    if given and not spec.startswith("mcp:"):
        raise InputError(f"{', '.join(given)} only apply to mcp: retrievers; --retriever is "
                         f"{redact_url(spec)!r}")

    mcp = McpSettings(tool=mcp_tool, arguments=mcp_args, parse=mcp_parse, setup=mcp_setup,
                      checkout=mcp_checkout, repo=repo) if spec.startswith("mcp:") else None
    options = RetrieverOptions(config=config, timeout=timeout, retries=retries, python=python,
                               dense=True if embedder is not None else dense, embedder=embedder,
                               mcp=mcp)
    retriever = make_retriever(spec, options)
    resolve_set = None
    if resolve is not None:
        from codegold.adapters.resolving import ResolvingRetriever
        from codegold.resolve import AttemptResolver

        if not resolve and index is None:
            raise InputError("--resolve needs an index: give --index, or --resolve INDEX")
        resolve_set = IndexSet.from_path(resolve) if resolve else indexes
        retriever = ResolvingRetriever(retriever, AttemptResolver(resolve_set))
    dispatch = None
    if where.kind != "local":
        from codegold.adapters.sharded import shard_dispatch

        pool = pool or start_executor(where)
        # The retriever above only checked the --retriever value (it opens indexes on first use, so
        # holds nothing yet): each worker builds its own.
        dispatch = shard_dispatch(pool, spec, options, indexes,
                                  resolve=resolve_set, label=spec,
                                  default_k=config.candidates.default_k,
                                  require_index=is_reference, repeat=repeat)
    already = 0
    if not quiet and resume and Path(output).exists():
        from codegold.adapters.runner import existing_attempt_ids

        done, _ = existing_attempt_ids(Path(output))
        counts: dict[str, int] = {}
        for case_id in done.values():
            counts[case_id] = counts.get(case_id, 0) + 1
        already = sum(min(counts.get(c.id, 0), repeat) for c in case_set.cases)
    progress = ProgressLine("running cases", len(case_set.cases) * repeat, quiet=quiet,
                            completed=already)
    progress.start()
    errors: dict[str, str] = {}  # distinct message -> first case id, in arrival order

    def on_attempt(attempt: Attempt) -> None:
        if attempt.error is not None and len(errors) < _SHOW_ERRORS:
            errors.setdefault(attempt.error, attempt.case_id)
        progress.advance()

    try:
        summary = run_cases(
            case_set.cases, retriever, indexes, Path(output), label=redact_url(spec), resume=resume,
            workers=workers, run_id=run_id, default_k=config.candidates.default_k,
            require_index=is_reference, repeat=repeat, on_attempt=on_attempt,
            dispatch=dispatch,
            config_digest=config_digest(spec, options, resolving=resolve is not None))
    finally:
        progress.stop()
        close_retriever(retriever)
    if summary.dropped_bytes:
        click.echo(f"warning: dropped the last line of {terminal_safe(output)} ({summary.dropped_bytes} bytes): "
                   "it was cut off mid-write; its case runs again", err=True)
    if summary.unknown_fields:
        shown = ", ".join(summary.unknown_fields[:8])
        more = len(summary.unknown_fields) - 8
        click.echo(f"note: the retriever's answers carry fields codegold does not read "
                   f"({shown}{f', +{more} more' if more > 0 else ''}); they are kept under "
                   f"'extra' in {output} and never judged", err=True)
    if not quiet:
        click.echo(f"{summary.written} attempts written to {terminal_safe(output)} "
                   f"({summary.skipped} already there, {summary.errors} errors) "
                   f"in {summary.seconds:.1f}s, run {terminal_safe(summary.run_id)}", err=True)
        describe = getattr(getattr(retriever, "inner", retriever), "describe", None)
        if callable(describe):
            click.echo(f"reference retriever: {describe()}", err=True)
    if summary.errors:
        for message, case_id in errors.items():
            # ids, the retriever's stderr and the run id come from outside
            click.echo(f"  case {terminal_safe(case_id)}: {terminal_safe(_one_line(message))}",
                       err=True)
        if summary.errors > len(errors):
            click.echo(f"  ({summary.errors} error attempts in all)", err=True)
        if not allow_errors:
            sys.exit(EXIT_RUN_ERRORS)


def _one_line(message: str, limit: int = 300) -> str:
    flat = " ".join(message.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"
