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

from hostilekit import assert_clean_error, assert_no_traceback, run_cli

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


_CHUNK = """
import json, sys
from codegold.index.chunker import chunk_file
path, size = sys.argv[1], int(sys.argv[2])
data = {"js": b"/* x\\n", "go": b"/* x\\n", "c": b"/* x\\n"}[path.rsplit(".", 1)[1]] * (size // 5)
if path.endswith(".go"):
    data = b"package a\\n" + data
entry = chunk_file(path, data).entry
print(json.dumps({"fate": entry.fate, "reason": entry.reason, "chunks": entry.chunks}))
"""


@pytest.mark.parametrize("path", ["lib/comments.js", "pkg/comments.go", "src/comments.c"])
def test_quadratic_error_recovery_stops_at_the_parse_deadline(path: str) -> None:
    """One unclosed ``/* x`` per line: tree-sitter's error recovery is quadratic on it
    (100 kB of JavaScript took 95 s). At two sizes, the file gets line chunks once its
    parse budget is spent, and says so; a child process bounds the wait."""
    for size in (100_000, 400_000):
        done = subprocess.run([sys.executable, "-c", _CHUNK, path, str(size)],
                              capture_output=True, text=True, timeout=90, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        entry = json.loads(done.stdout)
        assert entry["chunks"] > 0
        if entry["fate"] == "fallback":  # a fast machine may parse the smaller one in time
            assert "budget" in entry["reason"] or "syntax error" in entry["reason"]
        else:
            assert size == 100_000, entry


_QUERY = """
import json, sys
from codegold.index.chunker import chunk_file
kind, lines = sys.argv[1], int(sys.argv[2])
if kind == "php":  # valid lines, then a string of "{$" over many lines
    path = "src/a.php"
    data = b'<?php\\n' + b'$x = 1;\\n' * (3 * lines) + b'$a = "' + (b'{$' * 50 + b'\\n') * lines
else:  # an unclosed Rust string of "{"
    path = "src/a.rs"
    data = b'fn f() {}\\n' * (3 * lines) + b'let x = "' + (b'{' * 100 + b'\\n') * lines
entry = chunk_file(path, data).entry
print(json.dumps({"fate": entry.fate, "reason": entry.reason, "chunks": entry.chunks}))
"""


@pytest.mark.parametrize("kind", ["php", "rust"])
def test_quadratic_query_is_not_run(kind: str) -> None:
    """A run of punctuation tokens in one syntax error (PHP's ``"{$"`` in a string, an
    unclosed Rust string of ``{``) makes every tree-sitter query over the tree quadratic
    in it and cannot be interrupted (125 kB of PHP took 39 s, past its 6 s budget): the
    file gets line chunks without being queried, and says why. Two sizes, in a child."""
    for lines in (1_000, 4_000):
        done = subprocess.run([sys.executable, "-c", _QUERY, kind, str(lines)],
                              capture_output=True, text=True, timeout=90, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        entry = json.loads(done.stdout)
        assert entry["fate"] == "fallback" and entry["chunks"] > 0, entry
        assert "quadratic" in entry["reason"] and "not queried" in entry["reason"], entry


def test_real_code_has_no_quadratic_runs() -> None:
    """The count that keeps a query from running finds nothing in ordinary code, broken
    or not (runs of a few tokens), so those files are queried as before."""
    from codegold.index.grammars import QUERY_SCAN_STEPS_MAX, parse_tree, query_scan_steps

    code = b"def f(x):\n    return g(x, [1, 2, 3], {'a': (4, 5)})\n" * 2_000
    broken = code + b"def h(:\n    ))) ]]] ,,, (((\n" * 200
    for data in (code, broken):
        steps, longest = query_scan_steps(parse_tree("python", data))
        assert steps < QUERY_SCAN_STEPS_MAX // 1_000 and longest < 100, (steps, longest)


def test_query_past_the_deadline_says_querying(monkeypatch: pytest.MonkeyPatch) -> None:
    """A query that returns after the file's deadline (a slow query, simulated by a
    cursor that sleeps, with a budget made tiny) gives line chunks, and the inventory
    names the query, not the parse, as what took too long."""
    import time

    import codegold.index.chunker as chunker_module
    import codegold.index.grammars as grammars_module

    real = grammars_module.query_cursor

    class SlowCursor:
        def __init__(self, query: object) -> None:
            self.cursor = real(query)  # type: ignore[arg-type]

        def matches(self, node: object) -> object:
            time.sleep(0.6)
            return self.cursor.matches(node)

    monkeypatch.setattr(grammars_module, "query_cursor", SlowCursor)
    monkeypatch.setattr(chunker_module, "parse_budget", lambda size: 0.5)
    entry = chunker_module.chunk_file("app/a.py", b"def f():\n    return 1\n").entry
    assert entry.fate == "fallback" and entry.chunker == "lines"
    assert entry.reason is not None and "querying took over its 0.5 s budget" in entry.reason


def test_rewrites_before_parsing_are_linear() -> None:
    """codegold's own pre-parse rewrites: the C/C++ attribute-macro pattern after every
    ``)`` (`A_B(x) ` repeated took 72 s for 35 kB) and Kotlin's modifier-call pattern
    (`;open,` repeated: 15 s for 30 kB), at 200 kB each, in a child with a timeout."""
    code = ("from codegold.index.languages.c import _prepare_c; "
            "from codegold.index.languages.kotlin import _prepare_kotlin; "
            "_prepare_c(b'f() ' + b'A_B(x) ' * 30_000 + b'\\n'); "
            "_prepare_kotlin(b'fun f() {\\n' + b';open,' * 30_000 + b'\\n}\\n')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


_PACKED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))
from codegold.index.chunker import chunk_file
data = b"a=function(b){return b+1};" * (6_000_000 // 26)
entry = chunk_file("lib/packed.rb" if sys.argv[1] == "rb" else "lib/packed.js", data).entry
print(entry.fate, entry.reason)
"""


@pytest.mark.parametrize("kind", ["js", "rb"])
def test_packed_line_is_seen_before_parsing(kind: str) -> None:
    """A 6 MB one-line packed file (under a raised size limit) is read as minified from
    its bytes: parsed, it took 300-400 bytes of memory per byte, past the child's 1.5 GB."""
    done = subprocess.run([sys.executable, "-c", _PACKED, kind], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("fallback minified"), done.stdout
    assert "not parsed" in done.stdout


def _chunk_rows(index: Path) -> list[tuple[object, ...]]:
    import sqlite3

    from codegold.index.store import INDEX_FILE

    with sqlite3.connect(index / INDEX_FILE) as conn:
        return list(conn.execute("SELECT id, file, start_line, end_line, parent_id, prev_id, "
                                 "next_id, text FROM chunks ORDER BY file, start_line, id"))


def test_chunk_ids_do_not_move_with_codegold_sources(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Two builds of one revision whose chunker fingerprints differ (as after a refactor
    of codegold's sources that changes no row) give the same chunk ids, so ties between
    chunks, broken on their ids, rank them the same and no score moves."""
    import codegold.index.build.reuse as reuse_module
    import codegold.index.build.stamps as stamps_module
    import codegold.index.chunker as chunker_module
    from codegold.index import build_index
    from gitrepo import Repo

    repo = Repo(tmp_path / "repo")
    revision = repo.commit({
        "app/users.py": "def load(name):\n    return name\n\n\ndef save(name):\n    return name\n",
        "app/orders.rb": "class Order\n  def total\n    1\n  end\nend\n",
        "README.md": "# Shop\n\nLoads and saves users.\n",
    })
    rows = []
    for fingerprint in ("1+aaaaaaaaaa", "1+bbbbbbbbbb"):
        for module in (chunker_module, stamps_module, reuse_module):
            monkeypatch.setattr(module, "CHUNKER_VERSION", fingerprint)
        out = tmp_path / f"index-{fingerprint[-1]}"
        build_index(repo.path, revision, out, jobs=1)
        rows.append(_chunk_rows(out))
    assert rows[0], "the build indexed nothing"
    assert rows[0] == rows[1]


@pytest.mark.parametrize("path", ["actors/main.pony", "src/Main.scala", "lib/app.ex",
                                  "src/main.zig", "app/Main.hs", "lib/x.lua"])
def test_code_without_a_grammar_is_redacted_as_code(path: str) -> None:
    """A source file of a language codegold has no grammar for is program text: its
    ``token: String,`` parameters stay, and a quoted literal after ``password =`` is
    still a secret; a data file's unquoted ``token: value`` still is one."""
    from codegold.index.build.redaction import redact_blob

    source = (b"fun ref apply(token: String,\n    api_key: String,\n"
              b"    password: String) =>\n  password = \"hunter2\"\n")
    clean, kinds = redact_blob(path, source)
    text = clean.decode()
    assert "token: String," in text and "api_key: String," in text
    assert "password: String)" in text
    assert "hunter2" not in text and kinds == ["password"]
    data, data_kinds = redact_blob("config/app.env", b"token: 8f3a9c0d2e7b41f6a5c3\n")
    assert b"8f3a9c0d2e7b41f6a5c3" not in data and data_kinds


def _partial_clone(tmp_path: Path) -> tuple[Path, str]:
    """A clone of a small repository made with ``--filter=blob:limit=1k``: it lacks the
    one large blob (``data/big.py``)."""
    from gitrepo import Repo, git

    origin = Repo(tmp_path / "origin")
    revision = origin.commit({
        "app/small.py": "def small():\n    return 1\n",
        "data/big.py": "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(200)),
    })
    git(origin.path, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-checkout", "--filter=blob:limit=1k", "--no-local",
        f"file://{origin.path}", str(clone))
    listed = git(clone, "rev-list", "--objects", "--missing=print", revision)
    assert "?" in listed, "the clone holds every blob: the filter was not applied"
    # Without its origin the clone cannot fetch what it lacks, as on a machine offline.
    git(clone, "remote", "set-url", "origin", str(tmp_path / "gone"))
    return clone, revision


def test_partial_clone_names_the_missing_path_and_the_remedy(tmp_path: Path) -> None:
    clone, revision = _partial_clone(tmp_path)
    proc = run_cli("index", "build", clone, "--revision", revision, "-o", tmp_path / "idx",
                   "--quiet", timeout=120)
    assert_clean_error(proc, contains=("data/big.py", "partial clone", "fetch",
                                       "--skip-missing-blobs"))


def test_skip_missing_blobs_lists_them_as_excluded(tmp_path: Path) -> None:
    import sqlite3

    from codegold.index.store import INDEX_FILE

    clone, revision = _partial_clone(tmp_path)
    proc = run_cli("index", "build", clone, "--revision", revision, "-o", tmp_path / "idx",
                   "--quiet", "--skip-missing-blobs", timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with sqlite3.connect(tmp_path / "idx" / INDEX_FILE) as conn:
        fates = dict(conn.execute("SELECT path, fate FROM files").fetchall())
        reasons = dict(conn.execute("SELECT path, reason FROM files").fetchall())
    assert fates == {"app/small.py": "indexed", "data/big.py": "excluded"}
    assert "partial clone" in reasons["data/big.py"]
