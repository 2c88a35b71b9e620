"""The ``codegold`` entry point. Commands register by module name in ``COMMAND_MODULES``."""

from __future__ import annotations

import importlib

import click

from codegold import __version__

# Each module defines ``command`` (a click.Command or Group). Keep imports inside command
# bodies lazy so that ``codegold --help`` stays fast.
COMMAND_MODULES: tuple[str, ...] = (
    "codegold.cli.index_cmd",
    "codegold.cli.eval_cmd",
    "codegold.cli.gate_cmd",
    "codegold.cli.schema_cmd",
    "codegold.cli.export_cmd",
    "codegold.cli.search_cmd",
    "codegold.cli.run_cmd",
    "codegold.cli.compare_cmd",
    "codegold.cli.demo_cmd",
    "codegold.cli.diagnose_cmd",
    "codegold.cli.report_cmd",
    "codegold.cli.cases_cmd",
    "codegold.cli.link_cmd",
    "codegold.cli.flaky_cmd",
    "codegold.cli.tune_cmd",
    "codegold.cli.import_cmd",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="codegold")
def cli() -> None:
    """codegold: know whether your code assistant's retrieval put the right evidence first.

    \b
    Typical flow:
      codegold index REPO --revision v1.2.0 -o idx/
      codegold run cases.yaml --index idx/ -o attempts.jsonl
      codegold eval cases.yaml attempts.jsonl -o results.json
      codegold gate results.json --policy policy.yaml
    """


def _register() -> None:
    for name in COMMAND_MODULES:
        cli.add_command(importlib.import_module(name).command)


_register()


def main() -> None:
    """Run the CLI; a usage error (bad option, missing argument) is one ``error:`` line and
    exit 2, like every other error, instead of click's two-part message."""
    import sys

    from codegold.cli._common import stop_on_broken_pipe
    from codegold.plumbing.text import terminal_safe

    try:
        code = cli.main(prog_name="codegold", standalone_mode=False)
    except BrokenPipeError:
        stop_on_broken_pipe()
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as err:
        hint = ""
        ctx = getattr(err, "ctx", None)
        if ctx is not None:
            hint = f" (see '{ctx.command_path} --help')"
        click.echo(f"error: {terminal_safe(err.format_message())}{hint}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)
