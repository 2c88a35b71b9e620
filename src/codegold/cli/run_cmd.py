"""``codegold run``: run gold cases through a retriever into attempts.jsonl (never scores)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

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
from codegold.cli._progress import AttemptsBar, RevisionsBar
from codegold.execute import parse_executor
from codegold.workflows import RunRequest, run

EXIT_RUN_ERRORS = 3


class _Seconds(click.ParamType[float, Any]):
    """A finite number of seconds above zero (``nan``, ``inf``, 0 and negatives refused)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(number) or number <= 0:
            self.fail(f"{value!r} is not a finite number of seconds above 0", param, ctx)
        return number


@click.command("run")
@click.argument("cases", type=click.Path(dir_okay=False))
@index_option("An index directory, or a folder of index directories (one per revision).")
@output_option("attempts.jsonl to write (one line appended and flushed per case).", required=True)
@click.option("--repo", type=click.Path(file_okay=False), default=None,
              help="Git repository, or a folder of clones (owner+name/) for cases of many "
                   "repositories: build each case revision's missing index into --index.")
@click.option("--retriever", "spec", default="reference", show_default=True,
              help="reference | command:CMD | http(s)://URL | python:module:function")
@click.option("--resume", is_flag=True, help="Continue an interrupted run: skip attempted cases.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Cases run in parallel.")
@config_option()
@click.option("--dense/--no-dense", default=None,
              help="Reference retriever: force dense retrieval on (needs codegold[dense]) or "
                   "off. Default: on when codegold[dense] is installed "
                   "(signals.dense.enabled: auto).")
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
@executor_option()
@quiet_option("No progress bar or summary.")
@handle_errors
def command(cases: str, index: str | None, repo: str | None, output: str, spec: str, resume: bool, workers: int,
            config_path: str | None, dense: bool | None, embedder: str | None, timeout: float,
            retries: int, allow_errors: bool, resolve: str | None, run_id: str | None,
            repeat: int, wait_for_index: float | None, executor: str, quiet: bool) -> None:
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
    """
    guard(output, cases, config_path, repo, trees=(index,))
    request = RunRequest(
        cases=cases, output=Path(output), index=index, repo=repo, retriever=spec, resume=resume,
        workers=workers, config=config_path, dense=dense, embedder=embedder, timeout=timeout,
        retries=retries, resolve=resolve, run_id=run_id, repeat=repeat,
        wait_for_index=wait_for_index, executor=parse_executor(executor))
    builds = RevisionsBar(quiet)
    shown = AttemptsBar(quiet, builds)
    try:
        summary = run(request, shown, index_progress=builds)
    finally:
        shown.stop()
    if summary.dropped_bytes:
        click.echo(f"warning: dropped the last line of {output} ({summary.dropped_bytes} bytes): "
                   "it was cut off mid-write; its case runs again", err=True)
    if not quiet:
        click.echo(f"{summary.written} attempts written to {output} "
                   f"({summary.skipped} already there, {summary.errors} errors) "
                   f"in {summary.seconds:.1f}s, run {summary.run_id}", err=True)
    if summary.errors:
        for message, case_id in shown.errors.items():
            click.echo(f"  case {case_id}: {_one_line(message)}", err=True)
        if summary.errors > len(shown.errors):
            click.echo(f"  ({summary.errors} error attempts in all)", err=True)
        if not allow_errors:
            sys.exit(EXIT_RUN_ERRORS)


def _one_line(message: str, limit: int = 300) -> str:
    flat = " ".join(message.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"
