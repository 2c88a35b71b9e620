"""``codegold schema``: print the JSON Schema of an on-disk format."""

from __future__ import annotations

import json

import click

from codegold.cli._common import handle_errors
from codegold.model.schema import SCHEMAS, json_schema


@click.command("schema")
@click.argument("name", type=click.Choice(sorted(SCHEMAS)))
@handle_errors
def command(name: str) -> None:
    """Print the JSON Schema (draft 2020-12) of the NAME file format.

    The schema is generated from the same definitions the loaders use, so a file it
    accepts loads (rules across values, such as unique case ids, are checked on load).

    \b
    Example:
      codegold schema cases > cases.schema.json
    """
    click.echo(json.dumps(json_schema(name), indent=2, sort_keys=True))
