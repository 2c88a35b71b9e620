"""The root group lists commands without importing them; what it lists is each command's own help."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import click

from codegold.cli.main import COMMANDS, cli


def test_the_registry_repeats_each_commands_own_first_paragraph() -> None:
    ctx = click.Context(cli)
    for name, (module, summary) in COMMANDS.items():
        command = importlib.import_module(module).command
        assert command.name == name
        assert cli.get_command(ctx, name) is command
        first = " ".join(inspect.cleandoc(command.help or "").split("\n\n")[0].split())
        for limit in (40, 70, 120):
            assert (click.Command(name, help=summary).get_short_help_str(limit)
                    == click.Command(name, help=first).get_short_help_str(limit)), name


def test_listing_the_commands_imports_none_of_them() -> None:
    code = ("import sys; from click.testing import CliRunner; from codegold.cli.main import cli; "
            "CliRunner().invoke(cli, ['--help']); "
            "print(sorted(m for m in sys.modules if m.startswith('codegold.cli.') and m.endswith('_cmd')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
