"""Library errors speak of settings, the CLI of flags: a workflow's InputError names the
request settings it means (written ``{name}`` in its message) and the CLI calls each by
its flag when it prints the one ``error:`` line."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from codegold.cli._common import flag
from codegold.errors import InputError

WORKFLOWS = Path(__file__).resolve().parents[1] / "src" / "codegold" / "workflows"
_FLAG = re.compile(r"(?<![\w-])--[a-z]")
# a command line quoted as a hint (`codegold run --repeat N`) names another command's
# flag, not a setting of the request
_QUOTED_COMMAND = re.compile(r"`codegold [^`]*`")


def test_a_setting_is_quoted_by_the_library_and_a_flag_in_the_cli() -> None:
    err = InputError("{wait_for_index} needs {index}", field="index",
                     settings=("wait_for_index", "index"))
    assert str(err) == "field 'index': 'wait_for_index' needs 'index'"
    assert err.worded(flag) == "field '--index': --wait-for-index needs --index"
    assert err.message == "{wait_for_index} needs {index}"


def test_the_output_and_k_settings_are_called_by_their_short_options() -> None:
    err = InputError("{output} is the repository; {k} {n}", settings=("output", "k", "n"))
    assert err.worded(flag) == "-o is the repository; -k --n"


def test_braces_that_name_no_setting_are_left_alone() -> None:
    err = InputError("query {x} needs {index}", settings=("index",))
    assert err.worded(flag) == "query {x} needs --index"
    assert InputError("{index}").worded(flag) == "{index}"


def test_a_quoted_command_line_is_a_hint_not_a_flag() -> None:
    assert not _FLAG.search(_QUOTED_COMMAND.sub("", "expected what `codegold run --repeat N` wrote"))
    assert _FLAG.search(_QUOTED_COMMAND.sub("", "`codegold run` needs --index"))


def test_no_workflow_error_names_a_flag() -> None:
    problems = []
    for path in sorted(WORKFLOWS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "InputError"):
                continue
            for part in ast.walk(node):
                if (isinstance(part, ast.Constant) and isinstance(part.value, str)
                        and _FLAG.search(_QUOTED_COMMAND.sub("", part.value))):
                    problems.append(f"{path.name}:{node.lineno}: {part.value!r}")
    assert not problems, "name the setting ({name}, settings=...) instead:\n" + "\n".join(problems)
