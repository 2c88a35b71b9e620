"""``codegold run``: run gold cases through a retriever into attempts.jsonl (never scores)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
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
)
from codegold.cli._progress import AttemptsBar, RevisionsBar, warm_line
from codegold.execute import parse_executor
from codegold.plumbing.text import terminal_safe
from codegold.workflows import RunRequest, run

EXIT_RUN_ERRORS = 3


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
    guard(output, cases, config_path, repo, trees=(index,))
    request = RunRequest(
        cases=cases, output=Path(output), index=index, repo=repo, retriever=spec, resume=resume,
        workers=workers, config=config_path, dense=dense, embedder=embedder, timeout=timeout,
        retries=retries, resolve=resolve, run_id=run_id, repeat=repeat,
        wait_for_index=wait_for_index, executor=parse_executor(executor), python=python,
        mcp_tool=mcp_tool, mcp_args=mcp_args, mcp_parse=mcp_parse, mcp_setup=mcp_setup,
        mcp_checkout=mcp_checkout)
    builds = RevisionsBar(quiet)
    shown = AttemptsBar(quiet, builds)
    caches = ProgressLine("lexical caches", quiet=quiet)
    try:
        summary = run(request, shown, index_progress=builds, warm_progress=warm_line(caches))
    finally:
        shown.stop()
        caches.stop()
    for warning in summary.warnings:
        click.echo(f"warning: {terminal_safe(warning)}", err=True)
    if summary.dropped_bytes:
        click.echo(f"warning: dropped the last line of {terminal_safe(output)} ({summary.dropped_bytes} bytes): "
                   "it was cut off mid-write; its case runs again", err=True)
    if summary.unknown_fields:
        listed = ", ".join(summary.unknown_fields[:8])
        more = len(summary.unknown_fields) - 8
        click.echo(f"note: the retriever's answers carry fields codegold does not read "
                   f"({listed}{f', +{more} more' if more > 0 else ''}); they are kept under "
                   f"'extra' in {output} and never judged", err=True)
    if not quiet:
        click.echo(f"{summary.written} attempts written to {terminal_safe(output)} "
                   f"({summary.skipped} already there, {summary.errors} errors) "
                   f"in {summary.seconds:.1f}s, run {terminal_safe(summary.run_id)}", err=True)
        if summary.retriever_facts:
            click.echo(f"reference retriever: {summary.retriever_facts}", err=True)
    if summary.errors:
        for message, case_id in shown.errors.items():
            # ids, the retriever's stderr and the run id come from outside
            click.echo(f"  case {terminal_safe(case_id)}: {terminal_safe(_one_line(message))}",
                       err=True)
        if summary.errors > len(shown.errors):
            click.echo(f"  ({summary.errors} error attempts in all)", err=True)
        if not allow_errors:
            sys.exit(EXIT_RUN_ERRORS)


def _one_line(message: str, limit: int = 300) -> str:
    flat = " ".join(message.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"
