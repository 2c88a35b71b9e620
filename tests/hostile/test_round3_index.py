"""Hostile inputs for the index build, third round: recovered Ruby trees that led the
structural walk back to a body it had opened, grammars whose error recovery is
quadratic, one-line packed files under a raised size limit, code files of languages
without a grammar, partial clones, and chunk ids that moved with codegold's sources."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hostilekit import assert_no_traceback, run_cli

# Each a Ruby file whose recovered tree has a ``then`` holding only one node (after a
# zero-width MISSING ``;``): that node has the ``then``'s byte range, so it was looked up
# as the ``then`` itself, and the walk opened the same body for ever.
RUBY_SELF_BODIES = {
    "then-identifier": b"class A\nif()y end",
    "then-call": b"class X\nif()o()end",
    "then-call-lines": b"class A\ndef a; end\nfoo X\nif xfoo()foo()end@x\nend\n" + b"\n" * 8,
    "else-begin": b"class A\n)if x(@x)elsebeginunless y end\n\nend\n" + b"\n" * 8,
}


@pytest.mark.parametrize("case", sorted(RUBY_SELF_BODIES))
def test_recovered_ruby_tree_never_reopens_a_body(case: str, tmp_path: Path) -> None:
    source = tmp_path / "broken.rb"
    source.write_bytes(RUBY_SELF_BODIES[case])
    proc = run_cli("index", "parse", source, "--path", "app/broken.rb", "--json", timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["entry"]["path"] == "app/broken.rb"
    lines = RUBY_SELF_BODIES[case].count(b"\n") + 1
    for chunk in result["chunks"]:
        assert 1 <= chunk["start_line"] <= chunk["end_line"] <= lines


_FUZZ = """
import random, sys
from codegold.index.chunker import chunk_file
pieces = [b"if x then ", b"if()", b"y", b"o()", b" end", b"end", b"if x(@x)else", b"foo()",
          b"\\n", b" do", b"(", b")", b"then",
          b"else", b"begin", b"unless y ", b";", b"def a; end\\n", b"foo ", b"@x", b"<<~X"]
rng = random.Random(int(sys.argv[1]))
for _ in range(400):
    middle = b"".join(rng.choice(pieces) for _ in range(rng.randint(2, 10)))
    chunk_file("x.rb", rng.choice([b"class A\\n", b"module M\\n", b""]) + middle
               + rng.choice([b"", b"\\nend\\n"]) + b"\\n" * 8)
"""


def test_small_broken_ruby_files_finish() -> None:
    """Small broken Ruby files, generated from a fixed seed, each chunked in bounded time
    (a child process with a generous timeout: a walk that reopens a body never ends)."""
    done = subprocess.run([sys.executable, "-c", _FUZZ, "1"], capture_output=True, text=True,
                          timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
