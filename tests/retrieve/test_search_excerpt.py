"""`codegold search` excerpts carry the file's line numbers."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.cli.search_render import excerpt_line_numbers


def test_line_numbers_skip_repeated_header_lines() -> None:
    assert excerpt_line_numbers("a\nb\nc", 10, 12) == [10, 11, 12]
    # a method keeps its class header: one line from elsewhere, then lines 40..41
    assert excerpt_line_numbers("class A:\n    def f(self):\n        pass", 40, 41) == [None, 40, 41]
    # text shorter than the span (should not happen): number from the start, never negative
    assert excerpt_line_numbers("a", 5, 9) == [5]


def test_search_excerpt_lines_match_the_file(fixture_repo: tuple[Path, str], fixture_index: Path) -> None:
    repo, _ = fixture_repo
    result = CliRunner().invoke(cli, ["search", str(fixture_index), "create_session expired token",
                                      "-k", "3"])
    assert result.exit_code == 0, result.output
    current = ""
    checked = 0
    for line in result.output.splitlines():
        head = re.match(r"\s*\d+\. (\S+):(\d+)-(\d+)", line)
        if head:
            current = head.group(1)
            continue
        body = re.match(r"\s+(\d+) │ (.*)$", line)
        if body and current:
            number, text = int(body.group(1)), body.group(2)
            source = (repo / current).read_text(encoding="utf-8").split("\n")
            assert source[number - 1][:160].rstrip() == text.rstrip(), (current, number)
            checked += 1
    assert checked >= 3, result.output
