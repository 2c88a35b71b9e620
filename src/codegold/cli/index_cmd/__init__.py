"""``codegold index``: build a pinned-revision index, inspect one, or chunk a single file.

One module per subcommand renders what its workflow returns; this one is the group."""

from __future__ import annotations

import click
from click_default_group import DefaultGroup

from codegold.cli.index_cmd.build import build_command
from codegold.cli.index_cmd.embed import embed_command
from codegold.cli.index_cmd.gc import gc_command
from codegold.cli.index_cmd.inspect import inspect_command
from codegold.cli.index_cmd.parse import parse_command


class _IndexGroup(DefaultGroup):
    """``build`` is the default subcommand (click-default-group): ``codegold index REPO ...``
    works, and so does a call that starts with build's options."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0].startswith("-") and args[0] not in ("-h", "--help"):
            args = [str(self.default_cmd_name), *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path,
                              "REPO --revision REV -o DIR [OPTIONS] | inspect INDEX | parse FILE"
                              " | gc STORE")


@click.group("index", cls=_IndexGroup, default="build",
             context_settings={"help_option_names": ["-h", "--help"]})
def command() -> None:
    """Index a repository at a pinned revision, inspect an index, or chunk one file.

    `codegold index REPO ...` is short for `codegold index build REPO ...`: it reads git
    objects at REV (no checkout), chunks every file the path policy admits, and writes
    manifest.json + index.sqlite atomically into DIR. With --revisions or --cases it
    builds one index per revision into DIR/<commit>, sharing a chunk store.

    \b
    Example:
      codegold index . --revision v1.2.0 -o idx/
      codegold index . --revisions v1.0,v1.1,v1.2 -o indexes/
      codegold index inspect idx/ --symbol SessionService.createSession
      codegold index parse src/auth/session-service.ts
    """


for _sub in (build_command, inspect_command, parse_command, gc_command, embed_command):
    command.add_command(_sub)
