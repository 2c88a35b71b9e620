"""``codegold run``: run gold cases through a retriever into attempts.jsonl (never scores)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from codegold.cli._common import guard, handle_errors
from codegold.cli._progress import RunBars
from codegold.cli.run_options import run_options
from codegold.cli.run_render import all_unreadable, say_run
from codegold.execute import parse_executor
from codegold.workflows import RunRequest, run

EXIT_RUN_ERRORS = 3


@click.command("run")
@click.argument("cases", type=click.Path(dir_okay=False))
@run_options()
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
    --allow-errors to exit 0 anyway) or when no answer could be read at all, 2 for bad
    input.

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
    if (summary.errors and not allow_errors) or all_unreadable(summary):
        sys.exit(EXIT_RUN_ERRORS)
