"""Queries built to make the query analysis backtrack: long runs of what a frame, a path
or a qualified name is made of, with the piece that would complete it missing. Each is
analysed in a child process that must finish within the timeout (a pattern that tries
every start over the rest of the line, or each frame against all the others, takes
minutes on these)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SIZE = 200_000
HOSTILE = {
    "ruby frame without its line": "a.rb:1:in '" + "b" * SIZE,
    "native frame without a file": "#1 0x1 in " + "a" * SIZE + "\n",
    "native frame of spaces": "#1 " + "a " * (SIZE // 2),
    ".NET frame without its file": "   at " + "a." * (SIZE // 4) + "(" + "x" * (SIZE // 2) + ") in ",
    "dotted run with no extension": "x." * (SIZE // 2) + "py",
    "slashes with no line": "/a" * (SIZE // 2) + ".py:x",
    "PHP namespace run": "A\\" * (SIZE // 2) + "b",
    "member arrows": "a->" * (SIZE // 3),
    "hash members": "a#" * (SIZE // 2),
    # e-mail addresses and commit trailers are taken out before analysis
    "at-signs": "a@" * (SIZE // 2),
    "a long run before one at-sign": "a." * (SIZE // 2) + "@x.org",
    "hyphenated words with no by:": "Co-" * (SIZE // 3),
    # every Go frame is also a path:line: each was compared with every frame read before
    "Go frames flood": "main.go:12\n" * (SIZE // 5),
}
CODE = ("import sys; from codegold.retrieve.query import analyze_query; "
        "analyze_query(sys.stdin.read())")


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_query_is_analysed_in_bounded_time(text: str) -> None:
    done = subprocess.run([sys.executable, "-c", CODE], input=text, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
