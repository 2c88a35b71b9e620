"""Options shared across commands come from one place; ``index``'s default subcommand."""

from __future__ import annotations

import click
from click.testing import CliRunner

from codegold.cli.main import cli


def _option(command: click.Command, name: str) -> click.Option:
    found = [p for p in command.params if isinstance(p, click.Option) and name in p.opts]
    assert len(found) == 1, (command.name, name)
    return found[0]


def _sub(path: str) -> click.Command:
    command: click.Command = cli
    for name in path.split():
        assert isinstance(command, click.Group)
        found = command.get_command(click.Context(command), name)
        assert found is not None, name
        command = found
    return command


def test_shared_options_have_one_spelling() -> None:
    for path in ("eval", "run"):
        assert _option(_sub(path), "-o").opts == ["-o", "--output"]
    for path in ("eval", "gate", "search", "index parse"):
        option = _option(_sub(path), "--json")
        assert option.name == "as_json" and option.is_flag
    for path in ("eval", "run", "index build"):
        assert _option(_sub(path), "--quiet").secondary_opts == [] and "-q" in _option(
            _sub(path), "--quiet").opts
    for path in ("run", "search"):
        assert _option(_sub(path), "--config").name == "config_path"


def test_index_defaults_to_build_whether_repo_or_options_come_first(tmp_path) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    for args in (["index", str(tmp_path / "nope"), "--revision", "HEAD", "-o", str(tmp_path / "i")],
                 ["index", "--revision", "HEAD", "-o", str(tmp_path / "i"), str(tmp_path / "nope")]):
        result = runner.invoke(cli, args)
        # build ran (and refused the missing repository), not a usage error of the group
        assert result.exit_code == 2 and "No such command" not in result.output, result.output
        assert "error:" in result.output
    helped = runner.invoke(cli, ["index", "--help"])
    assert helped.exit_code == 0 and "build*" in helped.output
