"""What every command shares: turning library errors into one clear line and exit 2, the
options repeated across commands, and the output guard every writing command calls."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from codegold.errors import CodegoldError
from codegold.plumbing.secrets import redact_text
from codegold.plumbing.text import terminal_safe

if TYPE_CHECKING:  # rich and the executors load when a command draws or runs jobs
    from rich.console import Console

    from codegold.execute import Executor, ExecutorSpec

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def handle_errors(func: F) -> F:
    """Report :class:`CodegoldError` as ``error: ...`` on stderr with exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CodegoldError as err:
            # an error may quote what it read (a retriever's stderr, a line of a file)
            click.echo(f"error: {terminal_safe(redact_text(str(err)))}", err=True)
            sys.exit(EXIT_USAGE)
        except BrokenPipeError:
            stop_on_broken_pipe()
        except OSError as err:
            # The last line of defence: a file that vanished, a full disk, a folder where a
            # file was expected. Library code should already have said which and why.
            where = f"{err.filename}: " if err.filename else ""
            reason = err.strerror or type(err).__name__
            click.echo(f"error: {terminal_safe(redact_text(f'{where}{reason}'))}", err=True)
            sys.exit(EXIT_USAGE)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)

    return wrapper  # type: ignore[return-value]


def stop_on_broken_pipe() -> None:
    """The reader of stdout went away (``codegold ... | head``): stop quietly, as other
    Unix tools do, instead of a traceback when Python flushes stdout at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(EXIT_FAIL)


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


def stdout_console() -> Console:
    """Console for results; when piped or in CI, wide enough that tables stay readable."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 180))
    return console


# --- options shared by several commands ----------------------------------------------------


def output_option(help: str, *, required: bool = False, dest: str = "output",
                  directory: bool = False) -> Callable[[F], F]:
    """``-o/--output PATH``: a file (or, with ``directory``, a folder) the command writes."""
    kind = click.Path(file_okay=not directory, dir_okay=directory)
    return click.option("-o", "--output", dest, type=kind, required=required, help=help)


def json_option(help: str = "Print the result as JSON.") -> Callable[[F], F]:
    """``--json``: machine-readable output on stdout (``as_json``)."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def quiet_option(help: str = "No progress or summary on the terminal.") -> Callable[[F], F]:
    """``-q/--quiet``."""
    return click.option("--quiet", "-q", is_flag=True, help=help)


def index_option(help: str, *, dest: str = "index", file_okay: bool = True) -> Callable[[F], F]:
    """``--index DIR``: an index directory, or a folder of them (one per revision)."""
    return click.option("--index", dest, type=click.Path(file_okay=file_okay), default=None,
                        help=help)


def executor_option() -> Callable[[F], F]:
    """``--executor local|ray|ray://HOST:PORT``: where the command's jobs run."""
    from codegold.execute.spec import EXECUTOR_HELP

    return click.option("--executor", default="local", show_default=True,
                        metavar="WHERE", help=EXECUTOR_HELP)


def start_executor(spec: ExecutorSpec) -> Executor:
    """The executor ``spec`` names (an ExecutorSpec), shut down when the command ends."""
    from codegold.execute import open_executor

    return click.get_current_context().with_resource(open_executor(spec))


def config_option() -> Callable[[F], F]:
    """``--config FILE``: the reference retriever's YAML config."""
    return click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
                        help="Reference retriever config (YAML) merged over the defaults.")


def guard(output: str | None, *inputs: str | None, trees: tuple[str | None, ...] = (),
          option: str = "-o", directory: bool = False) -> None:
    """Refuse ``output`` if it would overwrite an input or cannot be written (see
    :func:`codegold.plumbing.outputs.guard_output`); nothing to do without an output."""
    if output is None:
        return
    from codegold.plumbing.outputs import guard_output

    guard_output(output, inputs=inputs, trees=trees, option=option, directory=directory)
