"""The ``codegold`` entry point. Commands register by name in ``COMMANDS``; a command's
module is imported only when that command runs (or its help is asked for), so command
modules import the workflows and their types at top level and ``codegold --help`` stays
fast."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

import click

from codegold import __version__

# name -> (module defining ``command``, the first paragraph of its help). The help is
# repeated here so that listing the commands imports none of them; a test checks it
# equals the command's own.
COMMANDS: dict[str, tuple[str, str]] = {
    "cases": ("codegold.cli.cases_cmd",
        'Get gold cases and keep their labels true.'),
    "compare": ("codegold.cli.compare_cmd",
        'Compare results files of the same gold cases: BASE NEW, or several systems.'),
    "demo": ("codegold.cli.demo_cmd",
        'Run the main job end to end on the bundled example and write an HTML report.'),
    "diagnose": ("codegold.cli.diagnose_cmd",
        'Name the cause and owner of every case in RESULTS that did not pass.'),
    "eval": ("codegold.cli.eval_cmd",
        "Score ATTEMPTS (attempts.jsonl) against the gold CASES at each case's cutoff."),
    "export": ("codegold.cli.export_cmd",
        "Export codegold data to other tools' formats."),
    "flaky": ("codegold.cli.flaky_cmd",
        'List cases of CASES whose repeated ATTEMPTS differ inside the cutoff.'),
    "gate": ("codegold.cli.gate_cmd",
        'Gate RESULTS against a policy: exit 0 pass, 1 fail, 2 bad input.'),
    "import": ("codegold.cli.import_cmd",
        "Import other tools' records as codegold files."),
    "index": ("codegold.cli.index_cmd",
        'Index a repository at a pinned revision, inspect an index, or chunk one file.'),
    "link": ("codegold.cli.link_cmd",
        'Check that every answer in ANSWERS resolves to the context it actually received,'
        ' then say why each failed answer failed.'),
    "report": ("codegold.cli.report_cmd",
        'Render RESULTS as an HTML page people read, Markdown, and JUnit XML.'),
    "run": ("codegold.cli.run_cmd",
        'Run every case in CASES through a retriever and write ATTEMPTS (attempts.jsonl).'),
    "schema": ("codegold.cli.schema_cmd",
        'Print the JSON Schema (draft 2020-12) of the NAME file format.'),
    "search": ("codegold.cli.search_cmd",
        'Search INDEX for QUERY: path:lines, symbol, role, score and an excerpt per '
        'result.'),
    "tune": ("codegold.cli.tune_cmd",
        "Search the reference retriever's settings on the training cases of CASES (one or "
        'more case files) and write the best configuration found.'),
}
COMMAND_MODULES: tuple[str, ...] = tuple(module for module, _help in COMMANDS.values())


class LazyGroup(click.Group):
    """A group whose commands are imported on first use; listing them reads ``lazy``."""

    def __init__(self, *args: object, lazy: Mapping[str, tuple[str, str]],
                 **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module = importlib.import_module(self.lazy[cmd_name][0])
            self.add_command(module.command, cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in self.commands:
                command = self.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
                rows.append((name, command.get_short_help_str(limit)))
            else:
                # a stand-in command shortens the text exactly as the real one would
                rows.append((name, click.Command(name, help=self.lazy[name][1])
                             .get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, lazy=COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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


def main() -> None:
    """Run the CLI; a usage error (bad option, missing argument) is one ``error:`` line and
    exit 2, like every other error, instead of click's two-part message."""
    import sys

    from codegold.cli._common import (
        as_process,
        exit_now,
        interrupt_code,
        interrupted,
        stop_on_broken_pipe,
        stop_on_signals,
    )
    from codegold.plumbing.text import terminal_safe

    as_process()
    stop_on_signals()
    try:
        code = cli.main(prog_name="codegold", standalone_mode=False)
    except BrokenPipeError:
        stop_on_broken_pipe()
    except (click.exceptions.Abort, KeyboardInterrupt) as err:
        # click turns a KeyboardInterrupt it meets into Abort, the signal's kind its cause
        cause = err.__cause__ if isinstance(err, click.exceptions.Abort) else err
        click.echo(interrupted(cause or err), err=True)
        sys.exit(interrupt_code(cause or err))
    except click.ClickException as err:
        hint = ""
        ctx = getattr(err, "ctx", None)
        if ctx is not None:
            hint = f" (see '{ctx.command_path} --help')"
        click.echo(f"error: {terminal_safe(err.format_message())}{hint}", err=True)
        sys.exit(2)
    exit_now(code if isinstance(code, int) else 0)
