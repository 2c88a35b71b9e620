"""CLI command modules stay thin: each parses options, calls one workflow and renders what
comes back, in at most 80 lines; logic that grows belongs in codegold.workflows, rendering
of more than a few lines in a rendering module beside the command (``search_render.py``,
a package's ``_lines.py``)."""

from __future__ import annotations

from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "src" / "codegold" / "cli"
LIMIT = 80


def _command_modules() -> list[Path]:
    """``cli/*_cmd.py`` and every public module of a ``cli/*_cmd/`` package."""
    modules = sorted(CLI.glob("*_cmd.py"))
    for package in sorted(p for p in CLI.glob("*_cmd") if p.is_dir()):
        modules += sorted(p for p in package.glob("*.py") if not p.name.startswith("_")
                          or p.name == "__init__.py")
    return modules


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_command_module_is_at_most_the_limit() -> None:
    over = [f"{p.relative_to(CLI).as_posix()}: {_lines(p)} lines"
            for p in _command_modules() if _lines(p) > LIMIT]
    assert not over, f"over {LIMIT} lines (move logic into codegold.workflows):\n" + "\n".join(over)


def test_the_packages_are_found() -> None:
    names = {p.relative_to(CLI).as_posix() for p in _command_modules()}
    assert {"index_cmd/inspect.py", "cases_cmd/check.py", "import_cmd/trajectories.py",
            "eval_cmd.py", "run_cmd.py"} <= names
