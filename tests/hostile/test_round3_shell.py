"""Hostile shell commands and outputs for the trajectory shell reader: each input is built
to make a per-word copy, a backtracking pattern, a list lookup or an unbounded parse cost
the square of its size (or worse). Each runs at two sizes in a child process with a
time and memory bound: the small one checks the answer, the large one (where the old
code took minutes) that the work grows no faster than the input."""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

TIMEOUT = 90
MEMORY = 2 * 1024**3
SIZES = (500, 200_000)

PRELUDE = """
from codegold.trajectories.shell import interpret, _program
def run(command, output):
    found = interpret(command, output, '/testbed', length_of=lambda path, cwd: None)
    print(len(found.seen), '|'.join(found.skipped))
n = {n}
"""

CASES = {
    # the wrapper and assignment skipping copied the rest of the word list per word
    "assignments-before-a-command": (
        "print(_program(['X=1'] * n + ['cat', 'f']))", lambda n: "['cat', 'f']"),
    # the same through the reader: the parse gives up within its budget
    "assignments-through-the-reader": (
        "run('X=1 ' * n + 'cat f', 'x\\n')",
        lambda n: "1 " if n < 10_000 else "0 shell command too long or intricate to parse"),
    # `sed -n '1<spaces>x'`: two runs of spaces the pattern could split every way
    "sed-script-of-spaces": (
        "run(\"sed -n '1\" + ' ' * n + \"x' a.py\", 'x\\n')",
        lambda n: "0 output of `sed` is not a file read or search"),
    "awk-line-of-spaces": (
        "run(\"awk 'NR==1\" + ' ' * n + \"x' a.py\", 'x\\n')",
        lambda n: "0 output of `awk` is not a file read or search"),
    "awk-range-of-spaces": (
        "run(\"awk 'NR>=1 && NR<=2\" + ' ' * n + \"x' a.py\", 'x\\n')",
        lambda n: "0 output of `awk` is not a file read or search"),
    # `grep -l` names were each looked up in a list of the names before them
    "grep-l-names": (
        "run('grep -rl x .', ''.join(f'd/f{i}.py\\n' for i in range(n)))", lambda n: f"{n} "),
    # a pipeline of n commands: tree-sitter's cost grows faster than the command
    "pipeline-of-many-commands": (
        "run('a | ' * n + 'cat f', 'x\\n')",
        lambda n: "0 output of `a` is not a file read or search" if n < 10_000
        else "0 shell command too long or intricate to parse"),
    # groups in groups: the reader walks the tree to a bounded depth, never to a
    # RecursionError
    "nested-groups": (
        "run('{ ' * (4 * n) + 'cat a.py; ' + '}; ' * (4 * n), 'x\\n')",
        lambda n: "0 shell command nested too deeply" if n < 1_000
        else "0 shell command longer than 1,000,000 characters"),
    # one grep group of n lines whose context lines hold ':N:'
    "context-group-of-many-lines": (
        "run('grep -rn -C1 x .', ''.join(f'a.py-{i}-d[1:{i}:2]\\n' if i % 2 else "
        "f'a.py:{i}:y\\n' for i in range(1, n + 1)))", lambda n: "1 "),
    # a line of n separators, each a possible end of its path
    "line-of-separators": (
        "run('grep -rn -C1 x .', 'a-1-' * n + 'b:1:' * n + '\\n')", lambda n: "0 "),
}


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_shell_reader_work_grows_with_the_input(name: str, size: int) -> None:
    code, expected = CASES[name]
    done = subprocess.run([sys.executable, "-c", PRELUDE.format(n=size) + code],
                          capture_output=True, text=True, timeout=TIMEOUT, check=False,
                          preexec_fn=_limit)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == expected(size).strip()
