"""Library errors speak of settings, the CLI of flags: a workflow's InputError names the
request settings it means (written ``{name}`` in its message) and the CLI calls each by
its flag when it prints the one ``error:`` line."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from codegold.cli._common import flag
from codegold.cli.main import cli
from codegold.errors import (
    CodegoldError,
    CodeIndexError,
    InputError,
    MissingDependency,
    RetrieverError,
)

SOURCE = Path(__file__).resolve().parents[1] / "src" / "codegold"
_FLAG = re.compile(r"(?<![\w-])--[a-z]")


def test_a_setting_is_quoted_by_the_library_and_a_flag_in_the_cli() -> None:
    err = InputError("{wait_for_index} needs {index}", field="index",
                     settings=("wait_for_index", "index"))
    assert str(err) == "field 'index': 'wait_for_index' needs 'index'"
    assert err.worded(flag) == "field '--index': --wait-for-index needs --index"
    assert err.message == "{wait_for_index} needs {index}"


def test_every_codegold_error_can_name_its_settings() -> None:
    err = CodeIndexError("cannot write the store: give another with {store}",
                         settings=("store",))
    assert str(err) == "cannot write the store: give another with 'store'"
    assert err.worded(flag) == "cannot write the store: give another with --store"
    missing = MissingDependency("ray", "ray", "{executor} ray", settings=("executor",))
    assert missing.worded(flag).startswith("--executor ray needs the optional package 'ray'")
    assert CodegoldError("plain {x}").worded(flag) == str(CodegoldError("plain {x}")) == "plain {x}"


def test_the_output_and_k_settings_are_called_by_their_short_options() -> None:
    err = InputError("{output} is the repository; {k} {n}", settings=("output", "k", "n"))
    assert err.worded(flag) == "-o is the repository; -k --n"


def test_braces_that_name_no_setting_are_left_alone() -> None:
    err = InputError("query {x} needs {index}", settings=("index",))
    assert err.worded(flag) == "query {x} needs --index"
    assert InputError("{index}").worded(flag) == "{index}"


def _library_modules() -> list[Path]:
    """Every module of the library: all of codegold but its front end (cli/)."""
    return [p for p in sorted(SOURCE.rglob("*.py")) if p.relative_to(SOURCE).parts[0] != "cli"]


def _subclasses(cls: type) -> list[type]:
    return [c for sub in cls.__subclasses__() for c in (sub, *_subclasses(sub))]


# The errors a front end reports, by the names library code raises them with: every
# CodegoldError but RetrieverError, whose text a run records in attempts as data (a
# retriever's failure for one case) in the words the user reads there.
_REPORTED_ERRORS = {cls.__name__ for cls in (CodegoldError, *_subclasses(CodegoldError))
                    if not issubclass(cls, RetrieverError)}
# a command quoted whole (`git fetch --unshallow`, 'git rev-parse --git-dir') is an
# example of a command line, not a setting of the request
_QUOTED = re.compile(r"`[^`]*`|'[^'\n]*'")


def _flags_in_errors(source: str, label: str) -> list[str]:
    """``label:line: text`` of each string in a reported error's call in ``source`` that
    writes a ``--flag`` outside a quoted command (MissingDependency's ``install`` is a
    command line given whole)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) else ""
        if name not in _REPORTED_ERRORS:
            continue
        said = [*node.args, *(k.value for k in node.keywords if k.arg != "install")]
        for part in (inner for value in said for inner in ast.walk(value)):
            if (isinstance(part, ast.Constant) and isinstance(part.value, str)
                    and _FLAG.search(_QUOTED.sub("", part.value))):
                found.append(f"{label}:{node.lineno}: {part.value!r}")
    return found


def test_no_library_error_names_a_flag() -> None:
    problems = [problem for path in _library_modules()
                for problem in _flags_in_errors(path.read_text(encoding="utf-8"),
                                                str(path.relative_to(SOURCE)))]
    assert len(_library_modules()) > 100  # the scan sees the library, not an empty folder
    assert not problems, "name the setting ({name}, settings=...) instead:\n" + "\n".join(problems)


def test_the_scan_sees_a_flag_and_passes_a_quoted_command() -> None:
    source = (
        'raise InputError(f"--store {x}: no folder")\n'
        'raise errors.SchemaError("x", field="--store")\n'
        'raise DuplicateIndexError("{store} is no folder; try `git fetch --unshallow` or "\n'
        '                          "\'git rev-parse --git-dir\'", settings=("store",))\n'
        'raise RetrieverError("give --index")\n'
        'raise CodeIndexError("give another with --store")\n'
        'raise MissingDependency("ray", "ray", "--executor ray", install="pip install --x")\n'
        'raise MissingDependency("x", "x", "{executor}", install="pip install --x")\n')
    found = _flags_in_errors(source, "probe.py")
    assert [line.split(":")[1] for line in found] == ["1", "2", "6", "7"]


# --- through the CLI: a library error's settings come out as the flags the user typed ----


def _error_line(*args: str) -> str:
    done = CliRunner().invoke(cli, list(args))
    assert done.exit_code == 2, done.output
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert len(lines) == 1, done.output
    return lines[0]


@pytest.fixture
def trajectory_files(tmp_path: Path) -> tuple[str, str, str]:
    cases = tmp_path / "cases.yaml"
    cases.write_text(yaml.safe_dump({"format": 1, "cases": [
        {"id": "c1", "query": "where is x", "revision": "a" * 40,
         "cutoff": 5, "accepted": [{"file": "src/x.py"}]}]}),
                     encoding="utf-8")
    trajectory = tmp_path / "t.json"
    trajectory.write_text("{}", encoding="utf-8")
    return str(trajectory), str(cases), str(tmp_path / "attempts.jsonl")


def test_a_split_share_out_of_range_names_the_flag(tmp_path: Path,
                                                   trajectory_files: tuple[str, str, str]
                                                   ) -> None:
    cases = trajectory_files[1]
    assert _error_line("cases", "split", cases, "--train", "1.5", "-o", str(tmp_path / "s")) \
        == "error: --train must be between 0 and 1 (exclusive), found 1.5"


def test_trajectory_import_errors_name_the_flags(trajectory_files: tuple[str, str, str]
                                                 ) -> None:
    trajectory, cases, out = trajectory_files
    base = ("import", "trajectories", trajectory, "--cases", cases, "-o", out)
    assert _error_line(*base, "--format", "mapped") == (
        "error: --format mapped needs --map for at least one of tool, command, file "
        "(e.g. --map events=steps --map tool=name --map arguments=args --map output=result)")
    assert _error_line(*base, "--format", "otel", "--map", "tool") == (
        "error: --map expects FIELD=PATH (e.g. tool=name), found 'tool'")
    assert _error_line(*base, "--format", "otel", "--map", "tool=name") == (
        "error: --map 'tool' does not apply to --format otel; it takes case")
    assert _error_line(*base, "--format", "otel", "--resolve") == (
        "error: resolving spans needs the index of the cases' revision: give --index")
