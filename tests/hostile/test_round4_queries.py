"""Hostile queries, fourth round: megabytes of one character, of blank lines, of one word,
one identifier or one environment line, and hostile case files and queries given to
``codegold search``, ``run`` and ``eval``.

A "linear, not quadratic" case runs at two sizes in a child process with a timeout, the
larger one far past what a quadratic (or merely slow per character) analysis finishes
within it; no timing is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codegold.evaluate import evaluate_files
from codegold.index import build_index
from codegold.model import write_results
from codegold.retrieve.query import MAX_ANALYSED_CHARS, analyze_query
from gitrepo import Repo
from goldkit import attempt, case, chunk, write_attempts, write_cases
from hostilekit import assert_clean_error, assert_no_traceback, run_cli

TIMEOUT = 60
CODE = ("import sys; from codegold.retrieve.query import analyze_query; "
        "analyze_query(sys.stdin.read())")

# (repeated unit, sizes in characters): 200 kB of blank lines took hours (a Go frame's
# ``^\s*`` ran from every line start to the end of the run); 20 MB of one word took
# minutes (each pattern of intent searched a one-line title of 20 MB, four times over).
GROWING = {
    "spaces": (" ", (200_000, 20_000_000)),
    "one character": ("a", (200_000, 20_000_000)),
    "newlines": ("\n", (20_000, 20_000_000)),
    "blank lines of spaces": (" \n", (20_000, 20_000_000)),
    "backticks": ("`", (200_000, 20_000_000)),
    "open parentheses": ("(", (200_000, 20_000_000)),
    "dotted name": ("a.", (200_000, 20_000_000)),
    "one identifier": ("x", (200_000, 20_000_000)),
    "one word": ("is ", (200_000, 20_000_000)),
    "calls": ("f() ", (200_000, 20_000_000)),
    "environment lines": ("- Python: 3.7\n", (200_000, 20_000_000)),
}


@pytest.mark.parametrize("size_index", [0, 1], ids=["small", "large"])
@pytest.mark.parametrize("name", GROWING)
def test_a_huge_query_is_analysed_in_bounded_time(name: str, size_index: int) -> None:
    unit, sizes = GROWING[name]
    text = unit * (sizes[size_index] // len(unit))
    done = subprocess.run([sys.executable, "-c", CODE], input=text, capture_output=True,
                          text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_go_frame_after_blank_lines_is_still_read() -> None:
    frames = analyze_query("panic: boom\n\n\n  \t\n   main.go:12 +0x1d\n").frames
    assert [(f.file, f.line) for f in frames] == [("main.go", 12)]


def test_what_lies_past_the_analysed_part_is_not_read() -> None:
    """The first :data:`MAX_ANALYSED_CHARS` are read whole (a name at their end is
    found); a name past them is not, and ``raw`` keeps the whole query."""
    filler = "word " * ((MAX_ANALYSED_CHARS - 100) // 5)
    inside = analyze_query(filler + "see parse_header_line here")
    assert "parse_header_line" in inside.identifiers
    query = filler + " " * 200 + "see parse_header_line here"
    past = analyze_query(query)
    assert "parse_header_line" not in past.identifiers
    assert past.raw == query
    # a real issue report is far below the bound
    assert MAX_ANALYSED_CHARS >= 200_000



# --- line numbers of thousands of digits ---------------------------------------------------

DIGITS = "1" * 5000  # past the 4,300 digits ``int`` converts
HUGE_LINES = {
    "path:line": (f"crash at src/a.py:{DIGITS}", ("src/a.py", None)),
    "python frame": (f'  File "src/a.py", line {DIGITS}, in f', ("src/a.py", "f")),
    "java frame": (f"\tat a.B.c(B.java:{DIGITS})", ("B.java", "B.c")),
    "ruby frame": (f"lib/a.rb:{DIGITS}:in 'f'", ("lib/a.rb", "f")),
}


@pytest.mark.parametrize("name", HUGE_LINES)
def test_a_frame_line_of_thousands_of_digits_names_no_line(name: str) -> None:
    """``int`` raised ValueError on the line number: a traceback out of ``search`` and
    ``run``. The file is still read; the line is none."""
    query, (file, function) = HUGE_LINES[name]
    (frame,) = analyze_query(query).frames
    assert (frame.file, frame.line, frame.function) == (file, None, function)
    assert analyze_query("src/a.py:123456789").frames[0].line == 123456789

# --- codegold search: queries no case can hold ----------------------------------------------

@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("h-round4-search")
    repo = Repo(root / "repo")
    sha = repo.commit({"src/login.py": "def login(user):\n    return check_password(user)\n",
                       "src/billing.py": "def total(items):\n    return sum(items)\n"})
    build_index(str(repo.path), sha, root / "idx" / sha)
    return root / "idx" / sha


@pytest.mark.parametrize("query", ["", "   ", " \t\n "], ids=["empty", "spaces", "white"])
@pytest.mark.parametrize("extra", [[], ["--explain"], ["--as-case"], ["--json"]])
def test_a_blank_query_is_refused(index: Path, query: str, extra: list[str]) -> None:
    """Every chunk scored 0 and was listed; with --as-case the stanza held ``query: ''``,
    which the case file it was pasted into then refused."""
    proc = run_cli("search", index, query, *extra)
    assert_clean_error(proc, contains=["query is blank", "expected"])
    assert proc.stdout == ""


@pytest.mark.parametrize("extra", [[], ["--as-case"]])
def test_a_query_of_undecodable_bytes_is_refused(index: Path, extra: list[str]) -> None:
    """``\\xff`` reached the query as a lone surrogate: searched as text, and written into
    the stanza as ``"\\uDCFF"``, which no YAML reader accepts."""
    # the child's argument is encoded with surrogateescape: the raw byte 0xff
    proc = run_cli("search", index, "ab\udcff login", *extra)
    assert_clean_error(proc, contains=["not valid UTF-8", "0xff", "character 2"])


@pytest.mark.parametrize("query", ["?!.,;:()[]{}<>", "- login", "login: {a: [b", "\u202e\u2028x"])
def test_a_stanza_of_a_hostile_query_is_a_case(index: Path, tmp_path: Path, query: str) -> None:
    proc = run_cli("search", "--as-case", index, "--", query)
    assert proc.returncode == 0, proc.stderr
    cases = tmp_path / "cases.yaml"
    cases.write_text("format: 1\ndefaults: {cutoff: 3}\ncases:\n" + proc.stdout, encoding="utf-8")
    check = run_cli("cases", "check", cases, "--index", index.parent)
    assert_no_traceback(check)
    assert check.returncode == 0, check.stdout + check.stderr


def test_search_reads_a_line_number_of_thousands_of_digits(index: Path) -> None:
    proc = run_cli("search", index, f"crash at src/login.py:{DIGITS}", "--explain")
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "src/login.py" in proc.stdout


@pytest.mark.parametrize("metric", [f"recall@{DIGITS}", f"hit_rate@ {DIGITS}"])
def test_a_gate_metric_cutoff_of_thousands_of_digits_is_refused(tmp_path: Path,
                                                                metric: str) -> None:
    """``int`` raised ValueError on the cutoff after ``@``: a traceback out of ``gate``."""
    cases = write_cases(tmp_path, [case("c1", [{"file": "src/a.py"}])])
    attempts = write_attempts(tmp_path, [attempt("a1", "c1", [chunk("x", "src/a.py")])])
    results = tmp_path / "results.json"
    write_results(evaluate_files(str(cases), str(attempts)), str(results))
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"format: 1\nrules:\n  - {{metric: '{metric}', min: 0.5}}\n",
                      encoding="utf-8")
    proc = run_cli("gate", results, "--policy", policy)
    assert_clean_error(proc, contains=["metric", "policy.yaml"])


# --- error lines stay short ------------------------------------------------------------------

LONG_VALUES = {
    # (case fields, what the error line names)
    "blank query of 2 MB": ({"id": "c1", "query": "\n" * 2_000_000}, "expected non-blank text"),
    "case id of 10 kB": ({"id": "x" * 10_000, "query": "q", "cutoff": 0}, "must be at least 1"),
    "unknown role of 1 MB": ({"id": "c1", "query": "q",
                              "accepted": [{"file": "src/a.py", "roles": ["r" * 1_000_000]}]},
                             "unknown role"),
}


@pytest.mark.parametrize("name", LONG_VALUES)
def test_an_error_line_quotes_a_long_value_in_part(tmp_path: Path, name: str) -> None:
    """The whole value was quoted: a blank query of 2 MB made a 4 MB ``error:`` line (each
    newline written ``\\n``), a case id of 10 kB one of 10 kB."""
    fields, expected = LONG_VALUES[name]
    stanza = {"accepted": [{"file": "src/a.py"}], **fields}
    cases = write_cases(tmp_path, [stanza], name="cases.json")
    attempts = write_attempts(tmp_path, [attempt("a1", "c1", [chunk("x", "src/a.py")])])
    proc = run_cli("eval", cases, attempts)
    line = assert_clean_error(proc, contains=[expected, "characters)"])
    assert len(line) < 1000, len(line)
