"""`codegold run` reports problems in the order it always did: the case file, then the
config, then the settings that need --index."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli

CASES = ("format: 1\ncases:\n  - id: one\n    query: where is parse defined\n    cutoff: 5\n"
         "    revision: " + "a" * 40 + "\n    accepted: [{file: src/parse.py}]\n")


def _run(tmp_path: Path, *args: str) -> str:
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES, encoding="utf-8")
    got = CliRunner().invoke(cli, ["run", str(cases), "-o", str(tmp_path / "a.jsonl"), *args])
    assert got.exit_code == 2, got.output
    return got.output


def test_a_bad_config_is_named_before_the_missing_index(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\nsignals: {nonsense: 1}\n", encoding="utf-8")
    assert str(bad) in _run(tmp_path, "--config", str(bad))


def test_each_setting_that_needs_an_index_says_so(tmp_path: Path) -> None:
    assert "the reference retriever needs --index" in _run(tmp_path)
    command = ("--retriever", "command:true")
    assert "--repo needs --index" in _run(tmp_path, *command, "--repo", str(tmp_path))
    assert "--wait-for-index needs --index: the folder to wait on" in _run(
        tmp_path, *command, "--wait-for-index", "1")
    assert "--resolve needs an index" in _run(tmp_path, *command, "--resolve")
