"""``codegold schema``: print the JSON Schema of an on-disk format."""

from __future__ import annotations

import click

from codegold.cli._common import handle_errors

_NAMES = ("cases", "attempts", "manifest", "results")


@click.command("schema")
@click.argument("name", type=click.Choice(_NAMES))
@handle_errors
def command(name: str) -> None:
    """Print the JSON Schema (draft 2020-12) of the NAME file format.

    \b
    Example:
      codegold schema cases > cases.schema.json
    """
    import json

    from codegold.model.schema import json_schema

    click.echo(json.dumps(json_schema(name), indent=2, sort_keys=True))
