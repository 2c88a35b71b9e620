"""CLI command modules stay thin: each parses options, calls one workflow and renders what
comes back, in about 80 lines; logic that grows belongs in codegold.workflows. A module
over the limit is listed below with the reason, and the list may only shrink."""

from __future__ import annotations

from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "src" / "codegold" / "cli"
LIMIT = 100
# module (relative to cli/) -> why it is still over LIMIT lines
EXCEPTIONS: dict[str, str] = {
    "run_cmd.py": "run's many options (retriever, budgets, python, mcp, index waits) and the "
                  "run summary; not yet split",
}


def _command_modules() -> list[Path]:
    """``cli/*_cmd.py`` and every public module of a ``cli/*_cmd/`` package."""
    modules = sorted(CLI.glob("*_cmd.py"))
    for package in sorted(p for p in CLI.glob("*_cmd") if p.is_dir()):
        modules += sorted(p for p in package.glob("*.py") if not p.name.startswith("_")
                          or p.name == "__init__.py")
    return modules


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_command_module_is_at_most_the_limit_or_says_why() -> None:
    over = [f"{p.relative_to(CLI).as_posix()}: {_lines(p)} lines"
            for p in _command_modules()
            if _lines(p) > LIMIT and p.relative_to(CLI).as_posix() not in EXCEPTIONS]
    assert not over, f"over {LIMIT} lines (move logic into codegold.workflows):\n" + "\n".join(over)


def test_the_exceptions_are_still_needed() -> None:
    sizes = {p.relative_to(CLI).as_posix(): _lines(p) for p in _command_modules()}
    stale = [name for name in EXCEPTIONS if sizes.get(name, 0) <= LIMIT]
    assert not stale, f"no longer over {LIMIT} lines (or gone); drop from EXCEPTIONS: {stale}"


def test_the_packages_are_found() -> None:
    names = {p.relative_to(CLI).as_posix() for p in _command_modules()}
    assert {"index_cmd/inspect.py", "cases_cmd/check.py", "eval_cmd.py"} <= names
