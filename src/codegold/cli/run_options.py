"""``codegold run``'s options, in the order its help lists them (where the indexes and
the attempts are, which retriever and how it is called, how the run goes, the options of
an mcp: retriever), and their type for a number of seconds (--timeout, --wait-for-index).
The command itself is in :mod:`codegold.cli.run_cmd`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import click

from codegold.cli._common import (
    config_option,
    executor_option,
    index_option,
    output_option,
    quiet_option,
)

F = TypeVar("F", bound=Callable[..., Any])

MAX_SECONDS = 86_400


class Seconds(click.ParamType[float, Any]):
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


def run_options() -> Callable[[F], F]:
    """Every option of ``codegold run`` (its CASES argument aside)."""
    return _applied([
        index_option("An index directory, or a folder of index directories (one per revision)."),
        output_option("attempts.jsonl to write (one line appended and flushed per case).", required=True),
        click.option("--repo", type=click.Path(file_okay=False), default=None,
                     help="Git repository, or a folder of clones (owner+name/) for cases of many "
                          "repositories: build each case revision's missing index into --index."),
        click.option("--retriever", "spec", default="reference", show_default=True,
                     help="reference | command:CMD | command+jsonl:CMD | http(s)://URL | "
                          "python:module:function | mcp:stdio:CMD | mcp:http(s)://URL"),
        click.option("--python", "python", default=None, metavar="PATH",
                     help="With --retriever python:module:function: call it in this interpreter (a "
                          "retriever in its own virtual environment), a child process per case, "
                          "instead of inside codegold's own."),
        click.option("--resume", is_flag=True, help="Continue an interrupted run: skip attempted cases."),
        click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Cases run in parallel."),
        config_option(),
        click.option("--dense/--no-dense", default=None,
                     help="Reference retriever: turn dense retrieval on (needs codegold[dense]) or "
                          "off. Default: off (signals.dense.enabled: false)."),
        click.option("--embedder", default=None,
                     help="Dense embedder: minilm-int8 (default) | dir:PATH (ONNX) | "
                          "openai:URL#MODEL (implies --dense)."),
        click.option("--timeout", type=Seconds(), default=30.0, show_default=True,
                     help="Seconds per request for command/http retrievers (the whole request, "
                          "not each read)."),
        click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True,
                     help="Retries (with backoff) for http retrievers."),
        click.option("--allow-errors", is_flag=True,
                     help="Exit 0 even when some cases got error attempts."),
        click.option("--resolve", "resolve", is_flag=False, flag_value="", default=None,
                     metavar="[INDEX]",
                     help="Record what each returned chunk's file and line span hold in the index of "
                          "the case's revision (symbols, role), and judge that instead of the "
                          "retriever's own metadata. Bare --resolve uses --index."),
        click.option("--run-id", default=None, help="Run id recorded in every attempt."),
        click.option("--repeat", type=click.IntRange(min=1, max=1000), default=1, show_default=True,
                     help="Attempts per case (ids RUN/CASE#1..#N, one repeat_group per case), to "
                          "check with `codegold flaky`; --resume completes cases with fewer."),
        click.option("--wait-for-index", "wait_for_index", type=Seconds(), default=None,
                     metavar="SECONDS",
                     help="Before running, wait up to SECONDS for a complete index of every case "
                          "revision under --index; exit 2 naming the missing ones."),
        click.option("--mcp-tool", default=None, metavar="NAME",
                     help="mcp: the tool to call (default: the only search-like tool the "
                          "server lists)."),
        click.option("--mcp-args", default=None, metavar="JSON",
                     help='mcp: the tool\'s arguments, with {query} {k} {revision} '
                          '{repository} {open_file} {case_id} {checkout}, e.g. '
                          '\'{"query": "{query}", "limit": "{k}"}\'.'),
        click.option("--mcp-parse", default="auto", show_default=True, metavar="NAME",
                     help="mcp: how to read a text result: auto | structured | json | grep "
                          "| ranges | markdown | paths | module:function."),
        click.option("--mcp-setup", default=None, metavar="JSON",
                     help='mcp: a call made once per checkout before searching, e.g. '
                          '\'{"tool": "set_project_path", "arguments": {"path": '
                          '"{checkout}"}}\'.'),
        click.option("--mcp-checkout", default=None, type=click.Path(file_okay=False),
                     metavar="DIR",
                     help="mcp: the directory {checkout} names (default: each case revision "
                          "written from --repo to a temporary folder, removed after the run)."),
        executor_option(),
        quiet_option("No progress bar or summary."),
    ])


def _applied(options: list[Callable[[F], F]]) -> Callable[[F], F]:
    """One decorator applying ``options`` so that help lists them in this order."""
    def apply(func: F) -> F:
        for option in reversed(options):
            func = option(func)
        return func

    return apply
