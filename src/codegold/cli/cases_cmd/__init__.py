"""``codegold cases``: get gold cases and keep their labels true (every output is a case file).

One module per subcommand renders what its workflow returns; this one is the group."""

from __future__ import annotations

import click

from codegold.cli.cases_cmd.check import check
from codegold.cli.cases_cmd.diff import diff
from codegold.cli.cases_cmd.from_log import from_log
from codegold.cli.cases_cmd.importing import import_group
from codegold.cli.cases_cmd.init import init
from codegold.cli.cases_cmd.mine import mine
from codegold.cli.cases_cmd.split import split


@click.group("cases")
def command() -> None:
    """Get gold cases and keep their labels true.

    \b
    Example:
      codegold cases check cases.yaml --index indexes/
    """


for _sub in (check, from_log, import_group, mine, split, diff, init):
    command.add_command(_sub)
