"""``codegold run``: run gold cases through a retriever into attempts.jsonl (never scores)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from codegold.cli._common import (
    config_option,
    executor_option,
    guard,
    handle_errors,
    index_option,
    output_option,
    quiet_option,
)
from codegold.cli._progress import RunBars
from codegold.cli.run_options import Seconds, mcp_options
from codegold.cli.run_render import say_run
from codegold.execute import parse_executor
from codegold.workflows import RunRequest, run

EXIT_RUN_ERRORS = 3


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
@click.option("--timeout", type=Seconds(), default=30.0, show_default=True,
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
@click.option("--wait-for-index", "wait_for_index", type=Seconds(), default=None,
              metavar="SECONDS",
              help="Before running, wait up to SECONDS for a complete index of every case "
                   "revision under --index; exit 2 naming the missing ones.")
@mcp_options()
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
    guard(output, cases, config_path, repo, trees=(index,))
    request = RunRequest(
        cases=cases, output=Path(output), index=index, repo=repo, retriever=spec, resume=resume,
        workers=workers, config=config_path, dense=dense, embedder=embedder, timeout=timeout,
        retries=retries, resolve=resolve, run_id=run_id, repeat=repeat,
        wait_for_index=wait_for_index, executor=parse_executor(executor), python=python,
        mcp_tool=mcp_tool, mcp_args=mcp_args, mcp_parse=mcp_parse, mcp_setup=mcp_setup,
        mcp_checkout=mcp_checkout)
    bars = RunBars(quiet)
    try:
        summary = run(request, bars.attempts, index_progress=bars.builds, warm_progress=bars.warm)
    finally:
        bars.stop()
    say_run(summary, bars.attempts.errors, output, quiet)
    if summary.errors and not allow_errors:
        sys.exit(EXIT_RUN_ERRORS)
