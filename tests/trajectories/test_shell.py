"""Shell commands: which lines an output shows, deduced from the command and the output
length (or the numbers printed), and which commands change files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegold.index.build import build_index
from codegold.model import load_cases
from codegold.trajectories import import_trajectories
from codegold.trajectories.outputs import numbered_runs, split_lines, swe_window
from codegold.trajectories.paths import PathPlacer
from codegold.trajectories.shell import interpret
from gitrepo import Repo

FILE = [f"line {n}" for n in range(1, 101)]
PLACER = PathPlacer(["/testbed"])


def shown(command: str, output: str, *,
          length: int | None = None) -> list[tuple[str, str, int | None, int | None]]:
    found = interpret(command, output, "/testbed", length_of=lambda path, cwd: length)
    return [(PLACER.place(s.path, s.cwd)[0], s.kind, s.start, s.end) for s in found.seen]


def text(first: int, last: int, numbered: str = "") -> str:
    if numbered == "tab":
        return "".join(f"{n:6}\t{FILE[n - 1]}\n" for n in range(first, last + 1))
    return "".join(FILE[n - 1] + "\n" for n in range(first, last + 1))


@pytest.mark.parametrize(("command", "output", "expected"), [
    ("cat a.py", text(1, 100), [("a.py", "read", 1, 100)]),
    ("cat -n a.py", text(1, 7, "tab"), [("a.py", "read", 1, 7)]),
    ("head -n 20 a.py", text(1, 20), [("a.py", "read", 1, 20)]),
    ("head -5 a.py", text(1, 5), [("a.py", "read", 1, 5)]),
    ("head a.py", text(1, 10), [("a.py", "read", 1, 10)]),
    # a file shorter than asked: as many lines as were printed
    ("head -n 500 a.py", text(1, 100), [("a.py", "read", 1, 100)]),
    ("tail -n +90 a.py", text(90, 100), [("a.py", "read", 90, 100)]),
    ("sed -n '40,60p' a.py", text(40, 60), [("a.py", "read", 40, 60)]),
    ("sed -n 40,60p a.py", text(40, 60), [("a.py", "read", 40, 60)]),
    ("sed -n '95,$p' a.py", text(95, 100), [("a.py", "read", 95, 100)]),
    ("sed -n '7p' a.py", text(7, 7), [("a.py", "read", 7, 7)]),
    ("sed -n '7,+3p' a.py", text(7, 10), [("a.py", "read", 7, 10)]),
    ("sed -n -e '7,9p' a.py", text(7, 9), [("a.py", "read", 7, 9)]),
    ("nl -ba a.py | sed -n '30,35p'", text(30, 35, "tab"), [("a.py", "read", 30, 35)]),
    ("cat -n a.py | head -n 3", text(1, 3, "tab"), [("a.py", "read", 1, 3)]),
    ("cat -n a.py | grep line", text(4, 4, "tab") + text(9, 9, "tab"),
     [("a.py", "read", 4, 4), ("a.py", "read", 9, 9)]),
    ("nl a.py | sed -n '30,35p'", text(30, 35), [("a.py", "read", 30, 35)]),
    ("cat a.py | head -n 12", text(1, 12), [("a.py", "read", 1, 12)]),
    ("sed -n '20,80p' a.py | head -n 5", text(20, 24), [("a.py", "read", 20, 24)]),
    ("cd src && cat b.py", text(1, 2), [("src/b.py", "read", 1, 2)]),
    ("awk 'NR>=5 && NR<=9' a.py", text(5, 9), [("a.py", "read", 5, 9)]),
    ("awk 'NR>4 && NR<10 {print}' a.py", text(5, 9), [("a.py", "read", 5, 9)]),
    ("awk 'NR==7' a.py", text(7, 7), [("a.py", "read", 7, 7)]),
    ("cd src && git show HEAD:src/b.py | head -n 4", text(1, 4), [("src/b.py", "read", 1, 4)]),
    ("cd /testbed/src\ncat b.py", text(1, 2), [("src/b.py", "read", 1, 2)]),
    ("cat a.py  # the whole file", text(1, 3), [("a.py", "read", 1, 3)]),
    ("sed -n '4,6p' \\\n  a.py", text(4, 6), [("a.py", "read", 4, 6)]),
    ("cat /tmp/x.py 2>/dev/null", text(1, 2), [("/tmp/x.py", "read", 1, 2)]),
])
def test_file_reads(command: str, output: str, expected: list[tuple[str, str, int, int]]) -> None:
    assert shown(command, output) == expected


def test_tail_needs_the_file_length() -> None:
    assert shown("tail -n 5 a.py", text(96, 100)) == []
    assert shown("tail -n 5 a.py", text(96, 100), length=100) == [("a.py", "read", 96, 100)]
    # head's count is a cap: a 100-line file ends before line 120
    assert shown("head -n 120 a.py | tail -n 20", text(81, 100)) == []
    assert shown("head -n 120 a.py | tail -n 20", text(81, 100), length=100) == [
        ("a.py", "read", 81, 100)]
    assert shown("head -n 50 a.py | tail -n 10", text(41, 50), length=100) == [
        ("a.py", "read", 41, 50)]


@pytest.mark.parametrize(("command", "output"), [
    ("cat a.py b.py", text(1, 4)),               # two files: cannot tell them apart
    ("cat a.py; cat b.py", text(1, 4)),          # two printers
    ("cat a.py | awk '{print $1}'", text(1, 4)),  # changes lines
    ("python -c 'print(1)'", "1\n"),
    ("cat a.py", "cat: a.py: No such file or directory\n"),
    ("sed -n '1,3p' a.py", text(1, 5)),          # more than asked: not this file's lines
    ("cat 'unbalanced", "x\n"),
])
def test_unattributable_output_shows_nothing(command: str, output: str) -> None:
    assert shown(command, output) == []


@pytest.mark.parametrize(("command", "output", "expected"), [
    ('grep -rn "def " src', "src/a.py:3:def f():\nsrc/a.py:4:def g():\nsrc/b.py:9:def h():\n",
     [("src/a.py", "search_hit", 3, 4), ("src/b.py", "search_hit", 9, 9)]),
    ("grep -n foo a.py", "12:foo\n40:foo()\n",
     [("a.py", "search_hit", 12, 12), ("a.py", "search_hit", 40, 40)]),
    ("grep -rn -C1 foo src", "src/a.py-11-x\nsrc/a.py:12:foo\nsrc/a.py-13-y\n--\n",
     [("src/a.py", "search_hit", 11, 13)]),
    ("rg -n foo", "src/a-2-b.py:12:foo\n", [("src/a-2-b.py", "search_hit", 12, 12)]),
    ("git grep -n foo", "src/a.py:5:foo\n", [("src/a.py", "search_hit", 5, 5)]),
    ("grep -rl foo src", "src/a.py\nsrc/b.py\n",
     [("src/a.py", "search_hit", None, None), ("src/b.py", "search_hit", None, None)]),
    ("grep -r foo src", "src/a.py:12:30 is the time\n", [("src/a.py", "search_hit", None, None)]),
    ('grep -rn "x" . | head -n 1', "./src/a.py:1:x\n", [("src/a.py", "search_hit", 1, 1)]),
    ("find . -name '*.py'", "./src/a.py\n./src/b.py\n",
     [("src/a.py", "search_hit", None, None), ("src/b.py", "search_hit", None, None)]),
    ("grep -rn foo src", "Binary file src/x.bin matches\n", []),
    ("find . -type d -name tests", "./tests\n./src/tests\n", []),
    ("find src -name '*.py' | xargs grep -n create", "src/a.py:7:create()\n",
     [("src/a.py", "search_hit", 7, 7)]),
    ("find . -type f -name '*.py'", "./a.py\n", [("a.py", "search_hit", None, None)]),
])
def test_searches(command: str, output: str,
                  expected: list[tuple[str, str, int | None, int | None]]) -> None:
    assert shown(command, output) == expected


@pytest.mark.parametrize(("command", "expected"), [
    ("sed -i 's/a/b/' src/a.py", [("src/a.py", None, None)]),
    ("sed -i '12,14d' src/a.py", [("src/a.py", 12, 14)]),
    ("echo x > src/new.py", [("src/new.py", None, None)]),
    ("cat > src/new.py << 'EOF'\nprint('x')\nEOF", [("src/new.py", None, None)]),
    ("git apply << 'EOF'\n--- a/src/a.py\n+++ b/src/a.py\n@@ -10,3 +10,4 @@\n x\nEOF",
     [("src/a.py", 10, 12)]),
    ("python run.py > /dev/null 2>&1", []),
])
def test_changes(command: str, expected: list[tuple[str, int | None, int | None]]) -> None:
    found = interpret(command, "", "/testbed", length_of=lambda path, cwd: None)
    assert [(c.path, c.start, c.end) for c in found.changes] == expected
    assert found.seen == []


def test_redirected_output_is_not_context() -> None:
    assert shown("cat a.py > b.py", text(1, 3)) == []


def test_lines_split_on_newline_only() -> None:
    assert split_lines("a\fb\u2028c\r\nd\n") == ["a\fb\u2028c", "d"]
    runs = numbered_runs(["     1\ta\u2028b", "     2\tc"], "tab")
    assert [(r.start, len(r.lines)) for r in runs] == [(1, 2)]


def test_swe_window_with_cursor_markers_and_several_headers() -> None:
    output = ("[File: /testbed/a.py (9 lines total)]\n<<<<< START CURSOR >>>>>\n1:x\n"
              "<<<<< END CURSOR >>>>>\n2:y\n(7 more lines below)\n"
              "[File: b.py (3 lines total)]\n1:p\n2:q\n3:r\n")
    assert [(s.path, s.start, s.end) for s in swe_window(output, "/testbed")] == [
        ("/testbed/a.py", 1, 2), ("b.py", 1, 3)]


def test_the_abbreviated_view_of_a_large_file_shows_only_its_unelided_lines() -> None:
    from codegold.trajectories.outputs import cat_n_view

    output = ("<NOTE>This file is too large to display entirely. Showing abbreviated version. "
              "Please use `str_replace_editor view` with the `view_range` parameter to show "
              "selected lines next.</NOTE>\n"
              "     1 import os\n     2 \n     3 def f(x):\n     4 ... eliding lines 4-20 ...\n"
              "    21 \n    22 class A:\n    23     pass\n"
              "<IMPORTANT><NOTE>The above file has been abbreviated.</NOTE></IMPORTANT>\n")
    assert [(s.start, s.end) for s in cat_n_view(output, "/testbed/a.py", None)] == [
        (1, 3), (21, 23)]


def found(command: str, output: str, *, files: set[str] | None = None,
          ) -> tuple[list[tuple[str, int | None, int | None, bool]], list[str]]:
    """``(path, start, end, marked outside)`` of every hit or read, and the skip reasons;
    ``files`` are the revision's files (None: not known)."""
    def at_revision(path: str, cwd: str | None) -> bool | None:
        placed, outside = PLACER.place(path, cwd)
        return None if files is None else outside or placed in files

    result = interpret(command, output, "/testbed", length_of=lambda path, cwd: None,
                       at_revision=at_revision)
    return ([(PLACER.place(s.path, s.cwd)[0], s.start, s.end, s.outside) for s in result.seen],
            result.skipped)


# grep -B1 -A1 without -n, as astroid-1268's agent ran it: the context lines hold a colon
CONTEXT_NO_NUMBERS = """\
tests/unittest_transforms.py-    def test_predicates(self) -> None:
tests/unittest_transforms.py:        def transform_call(node: Call) -> Const:
tests/unittest_transforms.py-            return node
--
astroid/my-nodes.py-class Call(NodeNG): # node: a call
astroid/my-nodes.py:    transform_call = None
"""


def test_grep_context_lines_are_never_files() -> None:
    assert found("grep -r transform_call tests astroid -B1 -A1", CONTEXT_NO_NUMBERS)[0] == [
        ("tests/unittest_transforms.py", None, None, False),
        ("astroid/my-nodes.py", None, None, False)]


def test_numbered_context_lines_holding_line_number_shapes_are_not_files() -> None:
    output = ("./y-1-z.py-1-c\n./y-1-z.py:2:foo\n./y-1-z.py-3-d = x[1:2:3]\n--\n"
              "./x.py-9-a\n./x.py:10:foo\n")
    assert found("grep -rn -C1 foo .", output)[0] == [
        ("y-1-z.py", 1, 3, False), ("x.py", 9, 10, False)]


def test_a_lone_line_of_a_context_search_is_read_only_as_a_match_line() -> None:
    # head cut the group before its match: a context line alone names no file
    assert found("grep -rn -B3 foo . | head -n 1", "./a.py-7-    x = d[1:2:3]\n")[0] == []
    assert found("grep -r -B3 foo . | head -n 1", "./a.py-    def f(self) -> None:\n")[0] == []
    # a lone context line whose text holds many colons is still not a match line
    assert found("grep -r -B3 foo . | head -n 1", "./a.py-" + "x:" * 40 + "\n")[0] == []
    # what grep says of itself is not a hit
    assert found("grep -r foo src missing", "src/a.py:foo\ngrep: missing: No such file or "
                 "directory\n")[0] == [("src/a.py", None, None, False)]
    # a match line alone still names its file
    assert found("grep -rn -A1 foo .", "./a.py:12:foo\n")[0] == [("a.py", 12, 12, False)]


def test_the_revisions_files_choose_the_reading_and_mark_the_rest_outside() -> None:
    files = {"my-dir/a.py", "src/b.py"}
    # a lone line whose path holds a dash: ambiguous without the list, read with it
    assert found("grep -r -A1 foo .", "./my-dir/a.py:foo\n")[0] == []
    assert found("grep -r -A1 foo .", "./my-dir/a.py:foo\n", files=files)[0] == [
        ("my-dir/a.py", None, None, False)]
    # a file the revision lacks (the agent made it) is kept, marked outside
    assert found("grep -rn foo .", "./src/b.py:3:foo\n./reproduce.py:1:foo\n",
                 files=files)[0] == [("src/b.py", 3, 3, False), ("reproduce.py", 1, 1, True)]
    assert found("grep -rl foo .", "./src/b.py\n./build/x.py\n", files=files)[0] == [
        ("src/b.py", None, None, False), ("build/x.py", None, None, True)]
    assert found("find . -name '*.py'", "./src/b.py\n./tests\n", files=files)[0] == [
        ("src/b.py", None, None, False), ("tests", None, None, True)]
    # a path outside the repository is outside already: the list says nothing of it
    assert found("grep -rn foo /usr/lib", "/usr/lib/x.py:1:foo\n", files=files)[0] == [
        ("/usr/lib/x.py", 1, 1, False)]


@pytest.mark.parametrize(("command", "output", "expected"), [
    ("find . -name '*.py' -exec grep -l X {} \\; | head -5", "./a.py\n./b/c.py\n./d.py\n",
     [("a.py", None, None, False), ("b/c.py", None, None, False), ("d.py", None, None, False)]),
    ("find src -exec grep -n X {} +", "src/a.py:3:X\n", [("src/a.py", 3, 3, False)]),
    ("find src -exec grep -Hn X {} \\;", "src/a.py:3:X\n", [("src/a.py", 3, 3, False)]),
    # a quoted pipe and && are the pattern's, not the shell's
    ("grep -rn 'a | b && c' src", "src/a.py:4:a | b && c\n", [("src/a.py", 4, 4, False)]),
    # `a && b 2>/dev/null | c`: the redirection is b's, the pipe b's output
    ("cd /testbed/src && grep -rn foo . 2>/dev/null | head -n 5", "./a.py:1:foo\n",
     [("src/a.py", 1, 1, False)]),
    # a subshell's cd ends with it
    ("(cd src && true); cat a.py", text(1, 2), [("a.py", 1, 2, False)]),
    ("(cd src; cat a.py)", text(1, 2), [("src/a.py", 1, 2, False)]),
    ("(cd $D); cd src && cat a.py", text(1, 2), [("src/a.py", 1, 2, False)]),
    # echo of literal words between them tells the commands' outputs apart
    ("echo '=== a.py'; cat a.py; echo '=== b.py' && head -n 2 b.py",
     "=== a.py\n" + text(1, 3) + "=== b.py\n" + text(1, 2),
     [("a.py", 1, 3, False), ("b.py", 1, 2, False)]),
    # commands that print nothing when they succeed leave the output to the one that does
    ("git apply <<'EOF' && sed -n '3,4p' a.py\n--- a/a.py\n+++ b/a.py\n@@ -3,1 +3,1 @@\n-x\n+y\n"
     "EOF", text(3, 4), [("a.py", 3, 4, False)]),
    ("cp a.py b.py && grep -q foo b.py && cat -n b.py", text(1, 2, "tab"),
     [("b.py", 1, 2, False)]),
])
def test_commands_read_from_their_parse(command: str, output: str,
                                        expected: list[tuple[str, int, int, bool]]) -> None:
    assert found(command, output)[0] == expected


@pytest.mark.parametrize(("command", "output", "reason"), [
    ("find . -exec grep -n X {} \\;", "3:X\n", "prints no file names"),
    ("find . -exec cat {} \\;", "x\n", "not a search"),
    ("find . -name '*.py' -print -exec grep -l X {} \\;", "./a.py\n./a.py\n", "several actions"),
    ("cat a.py; echo '---'; cat b.py; cat c.py", "x\n---\ny\nz\n", "cannot be told apart"),
    ("cp -v a.py b.py && cat b.py", "'a.py' -> 'b.py'\nx\n", "cannot be told apart"),
    ("echo '=== a'; cat a.py", "something else\nx\n", "cannot be told apart"),
    ("for f in a.py b.py; do cat $f; done", "x\ny\n", "output of a for statement"),
    ("cat $FILE", "x\n", "a path the shell expands"),
    ("cd $(git rev-parse --show-toplevel) && grep -rn foo .", "./a.py:1:foo\n",
     "after a cd to a directory the shell expands"),
    ("cat 'unbalanced", "x\n", "cannot parse"),
])
def test_what_cannot_be_attributed_says_why(command: str, output: str, reason: str) -> None:
    seen, skipped = found(command, output)
    assert seen == []
    assert any(reason in why for why in skipped), skipped


def test_changes_inside_loops_and_here_documents_on_a_line_with_more() -> None:
    result = interpret("for f in a.py b.py; do if true; then sed -i 's/x/y/' $f; fi; done\n"
                       "cat > new.py <<'EOF' && python new.py\nx = 1\nEOF\n"
                       "git apply <<'PATCH'\n--- a/c.py\n+++ b/c.py\n@@ -7,2 +7,2 @@\n x\n"
                       "PATCH\n",
                       "", "/testbed", length_of=lambda path, cwd: None)
    assert [(c.path, c.start, c.end) for c in result.changes] == [
        ("$f", None, None), ("new.py", None, None), ("c.py", 7, 8)]


def test_the_import_reads_the_revisions_files_from_the_index(tmp_path: Path) -> None:
    """With --index, a search's file names are checked against the revision: a file the
    agent made is kept marked outside, a lone line is read where it names a real file."""
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"src/my-app/session.py": "def create_session():\n    pass\n",
                       "src/my-app/other.py": "def test_it():\n    pass\n",
                       "tests/test_session.py": "def test_it():\n    pass\n"})
    build_index(repo.path, sha, tmp_path / "index", repository="demo/repo", jobs=1)
    (tmp_path / "cases.yaml").write_text(
        f"format: 1\ncases:\n  - id: demo__repo-1\n    repository: demo/repo\n"
        f"    revision: {sha}\n    cutoff: 10\n    query: Where is create_session defined?\n"
        f"    groups:\n      - {{id: d, any_of: [{{file: src/my-app/session.py}}]}}\n",
        encoding="utf-8")
    steps = [("grep -rn create_session .", "./src/my-app/session.py:1:def create_session():\n"
              "./reproduce.py:3:create_session()\n"),
             ("grep -r -A1 'def test_it' .", "./tests/test_session.py:def test_it():\n"
              "./tests/test_session.py-    pass\n--\n./src/my-app/other.py:def test_it():\n")]
    doc = {"trajectory": [{"action": a, "observation": o, "state": {"working_dir": "/testbed"}}
                          for a, o in steps], "info": {"submission": ""}}
    traj = tmp_path / "demo__repo-1.traj"
    traj.write_text(json.dumps(doc), encoding="utf-8")
    cases = load_cases(str(tmp_path / "cases.yaml"))
    (attempt,) = import_trajectories([traj], format_name="swe-agent", cases=cases,
                                     index=tmp_path / "index").attempts
    assert [(c.file, c.start_line, c.outside_repo) for c in attempt.ranked] == [
        ("src/my-app/session.py", 1, False), ("reproduce.py", 3, True),
        ("tests/test_session.py", None, False), ("src/my-app/other.py", None, False)]
    (plain,) = import_trajectories([traj], format_name="swe-agent", cases=cases).attempts
    assert [(c.file, c.outside_repo) for c in plain.ranked] == [
        ("src/my-app/session.py", False), ("reproduce.py", False),
        ("tests/test_session.py", False)]


@pytest.mark.parametrize("command", ["cat \ud800", "cat a\ud800b.py | head", "x\ud800",
                                     "echo \x00; cat a.py", "cat <<EOF\n\ud800\nEOF"])
def test_a_command_holding_a_lone_surrogate_or_nul_is_read_or_passed_over(command: str) -> None:
    interpret(command, "x\n", "/testbed", length_of=lambda path, cwd: None)
