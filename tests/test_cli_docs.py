"""docs/cli.md is generated from the CLI and current; every command shows an example."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import click
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts" / "gen_cli_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


GEN = _generator()
COMMANDS = [entry for entry in GEN.walk(GEN.cli, ("codegold",)) if len(entry[0]) > 1]


def test_cli_reference_is_current() -> None:
    current = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert current == GEN.render(), "docs/cli.md is stale: run .venv/bin/python scripts/gen_cli_docs.py"


@pytest.mark.parametrize(("path", "command", "ctx"), COMMANDS, ids=[" ".join(p) for p, _, _ in COMMANDS])
def test_every_command_help_has_an_example(path: tuple[str, ...], command: click.Command,
                                           ctx: click.Context) -> None:
    text = command.get_help(ctx)
    assert "Example:" in text, f"`{' '.join(path)} --help` has no Example: block"
    example = text.split("Example:", 1)[1]
    assert f"codegold {path[1]}" in example, "the example should show the command itself"
