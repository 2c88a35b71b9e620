"""Hostile histories, case files and results for what codegold writes from them, fourth
round: ``cases mine`` reading a diff as git writes it (quoted names, lines that look like
headers, line separators that are not newlines), and results files whose figures no
scorer could have written."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.model import load_cases
from gitrepo import Repo
from hostilekit import run_cli

BEFORE = "def first():\n    return 1\n\n\ndef second():\n    return 2\n"
AFTER = BEFORE.replace("return 2", "return 3")


def _mined(tmp_path: Path, repo: Repo) -> tuple[list[tuple[str, str | None]], str]:
    """The (file, symbol) targets ``cases mine`` drafted, and what it printed."""
    out = tmp_path / "mined.yaml"
    proc = run_cli("cases", "mine", repo.path, "-o", out, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    targets = [(t.file, t.symbol) for c in load_cases(str(out)).cases
               for g in c.groups for t in g.any_of]
    return targets, proc.stdout + proc.stderr


@pytest.mark.parametrize("name", ["back\\slash.py", 'say "hi".py', "tab\there.py",
                                  "new\nline.py"])
def test_mine_reads_a_quoted_file_name(tmp_path: Path, name: str) -> None:
    """git quotes a name holding a backslash, a quote or a control character in a diff's
    header (``--- "a/back\\\\slash.py"``): the quotes were taken as part of the name, no
    such file existed at the parent, and the fix was skipped as changing no file."""
    repo = Repo(tmp_path / "repo")
    repo.commit({name: BEFORE}, "start")
    repo.commit({name: AFTER}, "Fix second returning the wrong total (#7)")
    targets, printed = _mined(tmp_path, repo)
    assert targets == [(name, "second")], printed


def test_mine_counts_a_names_only_list_by_names_not_words(tmp_path: Path) -> None:
    """A fix to one file whose name holds spaces was counted as that many files, and
    skipped as larger than --max-files."""
    repo = Repo(tmp_path / "repo")
    name = "a b c d e f g h i j.py"
    repo.commit({name: BEFORE}, "start")
    repo.commit({name: AFTER}, "Fix second (#7)")
    targets, printed = _mined(tmp_path, repo)
    assert targets == [(name, "second")], printed


def test_mine_does_not_read_removed_and_added_lines_as_a_file_header(tmp_path: Path) -> None:
    """A removed ``-- old`` followed by an added ``++ new`` are ``--- old`` and ``+++ new``
    in the diff: they were read as another file's header, and the rest of the hunk (the
    change to ``second``) went to that file."""
    repo = Repo(tmp_path / "repo")
    text = 'def first():\n    return """\n-- old note\n"""\n\n\ndef second():\n    return 2\n'
    repo.commit({"notes.py": text}, "start")
    repo.commit({"notes.py": text.replace("-- old note", "++ new note")
                 .replace("return 2", "return 3")}, "Fix second and the note (#7)")
    targets, printed = _mined(tmp_path, repo)
    assert sorted(targets) == [("notes.py", "first"), ("notes.py", "second")], printed


@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x1c", "\x85"])
def test_mine_counts_lines_by_newlines_only(tmp_path: Path, separator: str) -> None:
    """A form feed (common in GNU-style sources) or a Unicode line separator in an
    unchanged line was read as a line break: every old line after it was counted one
    too far, and the change fell outside the definition it was in."""
    repo = Repo(tmp_path / "repo")
    text = (f"def first():\n    return 1\n\n\ndef second():\n    x = 1  # {separator} page\n"
            "    return x\n\n\ndef third():\n    return 3\n")
    repo.commit({"paged.py": text}, "start")
    repo.commit({"paged.py": text.replace("return x", "return x + 1")}, "Fix second (#7)")
    targets, printed = _mined(tmp_path, repo)
    assert targets == [("paged.py", "second")], printed
