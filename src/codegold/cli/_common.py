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


# settings the CLI calls by their short option, as its own messages (and guard) do
_SHORT_FLAGS = {"output": "-o", "k": "-k"}


def flag(setting: str) -> str:
    """The flag that gives a workflow request's ``setting`` (``wait_for_index``:
    ``--wait-for-index``, ``output``: ``-o``): how the CLI names the settings a library
    error names."""
    return _SHORT_FLAGS.get(setting) or "--" + setting.replace("_", "-")


def handle_errors(func: F) -> F:
    """Report :class:`CodegoldError` as ``error: ...`` on stderr with exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CodegoldError as err:
            # an error may quote what it read (a retriever's stderr, a line of a file)
            text = err.worded(flag)
            click.echo(f"error: {terminal_safe(redact_text(text))}", err=True)
            sys.exit(EXIT_USAGE)
        except BrokenPipeError:
            stop_on_broken_pipe()
        except OSError as err:
            # The last line of defence: a file that vanished, a full disk, a folder where a
            # file was expected. Library code should already have said which and why.
            where = f"{err.filename}: " if err.filename else ""
            reason = err.strerror or str(err) or type(err).__name__
            click.echo(f"error: {terminal_safe(redact_text(f'{where}{reason}'))}", err=True)
            sys.exit(EXIT_USAGE)
        except KeyboardInterrupt as err:
            click.echo(interrupted(err), err=True)
            sys.exit(interrupt_code(err))

    return wrapper  # type: ignore[return-value]


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP (what ``timeout``, a CI cancel, ``docker stop`` and systemd
    send), raised where Ctrl-C raises KeyboardInterrupt, so the same clean-up runs: the
    retriever's programs are killed and its temporary work trees removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def interrupt_code(err: BaseException) -> int:
    """128 + the signal's number: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP."""
    return 128 + err.signum if isinstance(err, Stopped) else 130


def interrupted(err: BaseException) -> str:
    if isinstance(err, Stopped):
        import signal

        return f"stopped by {signal.Signals(err.signum).name}"
    return "interrupted"


def stop_on_signals() -> None:
    """Turn SIGTERM and SIGHUP into :class:`Stopped` in this process (``main`` calls it).
    A process forked from this one (a pool's worker) that receives one ends as the signal
    says; a second one while the first is handled is ignored, so clean-up (bounded)
    completes."""
    import os
    import signal

    owner = os.getpid()

    def handler(signum: int, frame: object) -> None:
        if os.getpid() != owner:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        for each in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(each, signal.SIG_IGN)
        raise Stopped(signum)

    for each in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(each, handler)


# What commands leave for the exit to drop: a list only while ``main`` runs the CLI as its
# own process (never under a test's CliRunner); see :func:`hold_until_exit`.
_HELD: list[object] | None = None


def hold_until_exit(value: object) -> None:
    """Keep ``value`` until the process ends, when this process is the CLI's own: ``main``
    then exits without freeing it object by object (an eval's results and cases, a
    million small objects, cost a tenth of a second to free; the operating system takes
    the memory back at once). Elsewhere (a test's CliRunner) a no-op."""
    if _HELD is not None:
        _HELD.append(value)


def as_process() -> None:
    """Called by ``main``: this process is the CLI's own, so :func:`hold_until_exit` holds."""
    global _HELD
    _HELD = []


def exit_now(code: int) -> None:
    """End the process with ``code``; when a command held a value (:func:`hold_until_exit`),
    with stdout and stderr flushed and without the interpreter's teardown (the commands
    that hold one start no threads or processes and leave no atexit work), else through
    ``sys.exit``."""
    if not _HELD:
        sys.exit(code)
    import os

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        stop_on_broken_pipe()
    os._exit(code)


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


# --- progress on stderr ---------------------------------------------------------------------

PROGRESS_EVERY_S = 5.0


class ProgressLine:
    """The one progress display of long commands (index, embed, run, tune, cases check
    --repo): a rich bar when stderr is a terminal; otherwise (a CI log, a pipe) one plain
    line when it starts, then at most one every ``every`` seconds, and one when it ends, so
    a log shows a long command is alive. ``CODEGOLD_PROGRESS_SECONDS`` changes ``every``.
    Use as a context manager or call :meth:`start` and :meth:`stop`; with ``quiet`` every
    call does nothing."""

    def __init__(self, description: str, total: int | None = None, *, quiet: bool = False,
                 completed: int = 0, every: float | None = None) -> None:
        import os
        import time

        self.description = description
        self.total = total
        self.completed = completed
        self.quiet = quiet
        self._clock = time.perf_counter
        self._started = self._clock()
        self._last = float("-inf")
        try:
            chosen = float(os.environ.get("CODEGOLD_PROGRESS_SECONDS", ""))
        except ValueError:
            chosen = every if every is not None else PROGRESS_EVERY_S
        self.every = max(0.0, chosen)
        self._bar: Any = None
        self._task: Any = None
        self._state = "new"  # new, running, stopped: the first update starts a new one
        if quiet:
            return
        console = stderr_console()
        if console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._bar = Progress("[progress.description]{task.description}", BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                                 transient=True)
            self._task = self._bar.add_task(description, total=total, completed=completed)

    def __enter__(self) -> ProgressLine:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        if self.quiet or self._state != "new":
            return
        self._state = "running"
        if self._bar is not None:
            self._bar.start()
        else:
            self._line(force=True)

    def update(self, *, completed: int | None = None, total: int | None = None,
               description: str | None = None, advance: int = 0) -> None:
        if completed is not None:
            self.completed = completed
        self.completed += advance
        if total is not None:
            self.total = total
        if description is not None:
            self.description = description
        if self.quiet or self._state == "stopped":
            return
        if self._state == "new":
            self.start()
        if self._bar is not None:
            self._bar.update(self._task, completed=self.completed, total=self.total,
                             description=self.description)
        else:
            self._line()

    def advance(self, count: int = 1) -> None:
        self.update(advance=count)

    def stop(self) -> None:
        if self.quiet or self._state == "stopped":
            return
        started, self._state = self._state == "running", "stopped"
        if not started:
            return
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        elif self._last != float("-inf"):
            self._line(force=True)
            self._last = float("inf")  # stopped: no more lines

    def _line(self, *, force: bool = False) -> None:
        now = self._clock()
        if self._last == float("inf") or (not force and (
                self._last == float("-inf") or now - self._last < self.every)):
            return  # stopped, not started yet, or too soon
        self._last = now
        counted = f"{self.completed}/{self.total}" if self.total is not None \
            else str(self.completed)
        click.echo(terminal_safe(f"{self.description}: {counted} "
                                 f"({now - self._started:.0f}s)"), err=True)
