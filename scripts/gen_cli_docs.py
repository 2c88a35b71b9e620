#!/usr/bin/env python3
"""Write docs/cli.md from the CLI itself: every command's ``--help``, recursively.

    .venv/bin/python scripts/gen_cli_docs.py            # rewrite docs/cli.md
    .venv/bin/python scripts/gen_cli_docs.py --check    # exit 1 if docs/cli.md is stale

tests/test_cli_docs.py runs the check, so a command whose help changed without this
page being regenerated fails the test suite.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

from codegold.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "cli.md"
WIDTH = 100  # fixed, so the page does not depend on the terminal that generated it


def walk(command: click.Command, path: tuple[str, ...],
         parent: click.Context | None = None) -> Iterator[tuple[tuple[str, ...], click.Command, click.Context]]:
    """Every command under ``command`` (itself first), sorted by name at each level."""
    settings = {**command.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    ctx = click.Context(command, info_name=path[-1], parent=parent, **settings)
    yield path, command, ctx
    if isinstance(command, click.Group):
        for name in sorted(command.list_commands(ctx)):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from walk(sub, (*path, name), ctx)


def render() -> str:
    parts = [
        "# CLI reference\n",
        "Generated from the CLI itself by `scripts/gen_cli_docs.py`; do not edit by hand.\n"
        "Every command also prints this with `--help`. Exit codes: 0 success, 1 a gate or "
        "check failed, 2 bad input (one line on stderr saying what and where).\n",
    ]
    entries = list(walk(cli, ("codegold",)))
    parts.append("\n".join(f"- [`{' '.join(path)}`](#{'-'.join(path)})" for path, _, _ in entries) + "\n")
    for path, command, ctx in entries:
        text = command.get_help(ctx).rstrip()
        parts.append(f'<a id="{"-".join(path)}"></a>\n\n## `{" ".join(path)}`\n\n```text\n{text}\n```\n')
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    page = render()
    if argv == ["--check"]:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != page:
            print(f"{TARGET.relative_to(ROOT)} is stale: run scripts/gen_cli_docs.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(page, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
