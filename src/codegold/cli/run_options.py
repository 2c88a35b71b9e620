"""``codegold run``'s option types and option groups: a number of seconds (--timeout,
--wait-for-index) and the options of an mcp: retriever (--mcp-*)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import click

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


def mcp_options() -> Callable[[F], F]:
    """``--mcp-tool``, ``--mcp-args``, ``--mcp-parse``, ``--mcp-setup``, ``--mcp-checkout``:
    how an mcp: retriever is called (see docs/retrievers.md)."""
    options = [
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
    ]

    def apply(func: F) -> F:
        for option in reversed(options):
            func = option(func)
        return func

    return apply
