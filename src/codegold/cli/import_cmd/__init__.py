"""``codegold import``: bring other tools' records in as codegold files.

One module per importer renders what its workflow returns; this one is the group."""

from __future__ import annotations

import click

from codegold.cli.import_cmd.trajectories import TRAJECTORY_FORMATS, trajectories

__all__ = ["TRAJECTORY_FORMATS", "command"]


@click.group("import")
def command() -> None:
    """Import other tools' records as codegold files.

    \b
    Example:
      codegold import trajectories runs/ --format swe-agent --cases cases.yaml -o attempts.jsonl
    """


command.add_command(trajectories)
