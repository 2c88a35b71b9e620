"""Hostile use of every command: outputs over inputs, unwritable outputs, markup and escape
sequences in untrusted text, two runs on one output, torn last lines, bundle paths out of
their folder, foreign example code, bad options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codegold.evaluate import evaluate_files
from codegold.model import write_results
from goldkit import attempt, case, chunk, write_attempts, write_cases
from hostilekit import (
    CODE,
    assert_clean_error,
    assert_no_traceback,
    assert_sentinels,
    plant_sentinels,
    run_cli,
)

ESC_OSC52 = "\x1b]52;c;SGVsbG8=\x07"  # writes the clipboard on terminals that allow it
CSI_RED = "\x1b[31m"
BIDI = "\u202e"
MARKUP = "[/bold]"
# Characters that must never reach a terminal raw.
RAW = ("\x1b", "\x07", "\u202e", "\x9b")


def _inputs(folder: Path) -> dict[str, Path]:
    """cases (JSON, so ids may hold anything), attempts and results in ``folder``."""
    cases = [
        case(MARKUP, [{"file": "src/a.py"}], query=f"q {ESC_OSC52} {BIDI}"),
        case("plain", [{"file": "src/a.py"}], forbidden=["src/legacy/"]),
    ]
    attempts = [
        attempt("run-1/" + MARKUP, MARKUP, [chunk("c1", f"src/{CSI_RED}x.py")], run_id="run-1"),
        # forbidden hits are shown by file and lines (not id): both carry hostile text
        attempt("run-1/plain", "plain", [chunk(f"evil{ESC_OSC52}[/red]",
                                               f"src/legacy/{CSI_RED}b[/red].py")],
                run_id="run-1"),
    ]
    cases_path = write_cases(folder, cases, name="cases.json")
    attempts_path = write_attempts(folder, attempts)
    results_path = folder / "results.json"
    write_results(evaluate_files(str(cases_path), str(attempts_path)), str(results_path))
    policy = folder / "policy.yaml"
    policy.write_text("format: 1\nrules:\n  - {metric: hit_rate, min: 0.9}\n", encoding="utf-8")
    return {"cases": cases_path, "attempts": attempts_path, "results": results_path,
            "policy": policy}


@pytest.fixture
def work(tmp_path: Path) -> dict[str, Path]:
    paths = _inputs(tmp_path)
    paths["dir"] = tmp_path
    return paths


def _snapshot(paths: dict[str, Path]) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in paths.values() if p.is_file()}


def _assert_clean_terminal(proc: subprocess.CompletedProcess[str]) -> None:
    assert_no_traceback(proc)
    for raw in RAW:
        assert raw not in proc.stdout + proc.stderr, (raw, proc.stdout[-2000:], proc.stderr[-2000:])


# --- an output may never be an input ----------------------------------------------------


SAME_AS_INPUT = {
    "eval over attempts": ["eval", "{cases}", "{attempts}", "-o", "{attempts}"],
    "eval over cases": ["eval", "{cases}", "{attempts}", "-o", "{cases}"],
    "report over results": ["report", "{results}", "-o", "{results}"],
    "report md over policy": ["report", "{results}", "--gate-policy", "{policy}", "--md", "{policy}"],
    "report junit over compare base": ["report", "{results}", "--compare", "{dir}/base.json",
                                       "--junit", "{dir}/base.json"],
    "report two outputs one file": ["report", "{results}", "-o", "{dir}/r.html", "--md", "{dir}/r.html"],
    "compare json over base": ["compare", "{results}", "{dir}/base.json", "--json", "{results}"],
    "compare md over new": ["compare", "{dir}/base.json", "{results}", "--md", "{results}"],
    "compare md over json": ["compare", "{results}", "{results}", "--json", "{dir}/c.json",
                             "--md", "{dir}/c.json"],
    "run over cases": ["run", "{cases}", "--retriever", "python:slowret:answer", "-o", "{cases}",
                       "--resume"],
    "run over config": ["run", "{cases}", "--retriever", "python:slowret:answer", "--config",
                        "{dir}/config.yaml", "-o", "{dir}/config.yaml", "--resume"],
    "export over source": ["export", "trec", "{dir}/p.file.run", "-o", "{dir}/p"],
    "diagnose over results": ["diagnose", "{dir}/d/summary.md", "-o", "{dir}/d"],
    "diagnose over owners": ["diagnose", "{results}", "--owners", "{dir}/d/diagnoses.json",
                             "-o", "{dir}/d"],
    "diagnose over attempts": ["diagnose", "{results}", "--attempts", "{dir}/d/summary.md",
                               "-o", "{dir}/d"],
}


@pytest.mark.parametrize("argv", list(SAME_AS_INPUT.values()), ids=list(SAME_AS_INPUT))
def test_output_over_an_input_is_refused(work: dict[str, Path], argv: list[str]) -> None:
    folder = work["dir"]
    (folder / "d").mkdir()
    (folder / "d" / "summary.md").write_bytes(work["results"].read_bytes())
    (folder / "d" / "diagnoses.json").write_text('{"format": 1, "owners": {}}', encoding="utf-8")
    (folder / "base.json").write_bytes(work["results"].read_bytes())
    (folder / "config.yaml").write_text("{}", encoding="utf-8")  # no newline: resume cut it
    (folder / "p.file.run").write_bytes(work["results"].read_bytes())
    (folder / "r.html").write_text("keep", encoding="utf-8")
    (folder / "c.json").write_text("keep", encoding="utf-8")
    if argv[0] == "diagnose" and "--attempts" in argv:
        (folder / "d" / "summary.md").write_bytes(work["attempts"].read_bytes())
    env = _run_env(folder)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    args = [a.format(**{k: str(v) for k, v in work.items()}) for a in argv]
    proc = run_cli(*args, cwd=folder, env=env)
    assert_clean_error(proc)
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before


def test_diagnose_output_inside_the_index_is_refused(tmp_path: Path) -> None:
    index = _indexed_repo(tmp_path)
    paths = _inputs(tmp_path)
    before = {p: p.read_bytes() for p in index.rglob("*") if p.is_file()}
    proc = run_cli("diagnose", paths["results"], "--index", index, "-o", index / "diag")
    assert_clean_error(proc, contains="inside")
    assert {p: p.read_bytes() for p in index.rglob("*") if p.is_file()} == before
    assert not (index / "diag").exists()


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_output_reaching_an_input_through_a_link_is_refused(work: dict[str, Path], link: str) -> None:
    alias = work["dir"] / "alias.jsonl"
    (os.symlink if link == "symlink" else os.link)(work["attempts"], alias)
    before = _snapshot(work)
    proc = run_cli("eval", work["cases"], work["attempts"], "-o", alias)
    assert_clean_error(proc, contains="input")
    assert _snapshot(work) == before


def test_demo_out_over_the_example_is_refused(tmp_path: Path) -> None:
    example = tmp_path / "ex"
    planted = plant_sentinels(example, ["cases.yaml", "build_example.py"])
    proc = run_cli("demo", "--example", example, "--trust-example", "--out", example)
    assert_clean_error(proc)
    assert_sentinels(planted)


# --- an output that cannot be written -------------------------------------------------------


UNWRITABLE = {
    "eval": ["eval", "{cases}", "{attempts}", "-o", "{target}"],
    "report": ["report", "{results}", "-o", "{target}"],
    "report md": ["report", "{results}", "--md", "{target}"],
    "compare": ["compare", "{results}", "{results}", "--json", "{target}"],
    "run": ["run", "{cases}", "--retriever", "python:slowret:answer", "-o", "{target}"],
    "export": ["export", "trec", "{results}", "-o", "{target}"],
    "diagnose": ["diagnose", "{results}", "-o", "{target}"],
    "index": ["index", "{dir}", "--revision", "HEAD", "-o", "{target}"],
    "demo": ["demo", "--out", "{target}"],
}


@pytest.mark.parametrize("where", ["file parent", "folder for a file", "proc", "fifo"])
@pytest.mark.parametrize("argv", list(UNWRITABLE.values()), ids=list(UNWRITABLE))
def test_unwritable_output_is_one_clear_error(work: dict[str, Path], argv: list[str],
                                              where: str) -> None:
    folder = work["dir"]
    planted = plant_sentinels(folder, ["somefile"])
    (folder / "adir").mkdir()
    target = {"file parent": folder / "somefile" / "x.out",
              "folder for a file": folder / "adir",
              "proc": Path("/proc/codegold-no-such/x.out"),
              "fifo": folder / "fifo"}[where]
    os.mkfifo(folder / "fifo")  # a special file: never replaced, never opened (it would block)
    if where == "fifo" and argv[0] == "export":
        os.mkfifo(folder / "p.file.run")
        target = folder / "p"
    if where == "folder for a file" and argv[0] in ("diagnose", "index", "demo"):
        target = folder / "somefile"  # these write folders: give them a file instead
    if where == "folder for a file" and argv[0] == "export":
        target = Path(f"{folder}/adir/")  # a prefix, not a folder
    args = [a.format(target=f"{target}/" if argv[0] == "export" and where == "folder for a file"
                     else target, **{k: str(v) for k, v in work.items()}) for a in argv]
    proc = run_cli(*args, cwd=folder, env=_run_env(folder))
    assert_clean_error(proc)
    assert_sentinels(planted)


# --- untrusted text on the terminal and in Markdown --------------------------------------


def test_eval_summary_shows_markup_and_escapes_as_text(work: dict[str, Path]) -> None:
    proc = run_cli("eval", work["cases"], work["attempts"])
    _assert_clean_terminal(proc)
    assert proc.returncode == 0, proc.stderr
    assert MARKUP in proc.stdout
    assert "\\x1b" in proc.stdout  # the escape is shown, not acted on


@pytest.mark.parametrize("extra", [[], ["--report-only"]])
def test_gate_prints_hostile_case_ids(work: dict[str, Path], extra: list[str]) -> None:
    proc = run_cli("gate", work["results"], "--policy", work["policy"], *extra)
    _assert_clean_terminal(proc)
    assert proc.returncode == (0 if extra else 1), proc.stderr
    assert MARKUP in proc.stdout


def test_diagnose_and_compare_print_escaped_markdown(work: dict[str, Path]) -> None:
    for argv in (["diagnose", work["results"], "-o", work["dir"] / "diag"],
                 ["compare", work["results"], work["results"]]):
        proc = run_cli(*argv)
        _assert_clean_terminal(proc)
        assert proc.returncode == 0, proc.stderr
    bundles = list((work["dir"] / "diag" / "bundles").glob("*.md"))
    assert bundles
    for path in [*bundles, work["dir"] / "diag" / "summary.md"]:
        text = path.read_text(encoding="utf-8")
        assert "\x1b" not in text and "\u202e" not in text
        assert "[/bold]" not in text  # escaped as \[/bold\]


def test_error_lines_show_escapes(tmp_path: Path) -> None:
    name = tmp_path / f"missing{ESC_OSC52}.yaml"
    proc = run_cli("eval", name, name)
    assert_clean_error(proc)
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr


def _indexed_repo(tmp_path: Path) -> Path:
    from gitrepo import Repo

    repo = Repo(tmp_path / "repo")
    repo.commit({"src/evil.py": f"def evil():\n    return '{ESC_OSC52}{CSI_RED}{BIDI} [/bold]'\n"})
    proc = run_cli("index", repo.path, "--revision", "HEAD", "-o", tmp_path / "idx", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "idx"


def test_search_and_inspect_show_repository_text_safely(tmp_path: Path) -> None:
    index = _indexed_repo(tmp_path)
    for argv in (["index", "inspect", index, "--file", "src/evil.py", "--text"],
                 ["index", "inspect", index, "--symbol", "evil", "--text"],
                 ["search", index, "evil", "--explain"]):
        proc = run_cli(*argv)
        _assert_clean_terminal(proc)
        assert proc.returncode == 0, proc.stderr
        assert "\\x1b" in proc.stdout


@pytest.mark.parametrize("k", ["0", "-3"])
def test_search_k_below_one_is_refused(tmp_path: Path, k: str) -> None:
    proc = run_cli("search", tmp_path, "anything", "-k", k)
    assert_clean_error(proc, contains="-k")


# --- run: one writer per output, resume keeps whole lines ----------------------------------

SLOW_RETRIEVER = '''
import os
import time

def answer(request):
    # Holds the run open until the test creates "release" (or 30 s pass).
    deadline = time.monotonic() + 30
    while os.environ.get("HOLD") and not os.path.exists("release") and time.monotonic() < deadline:
        time.sleep(0.02)
    return {"format": 1, "ranked": [{"chunk_id": "c", "file": "src/a.py",
            "revision": request["revision"]}]}
'''


def _run_env(folder: Path) -> dict[str, str]:
    (folder / "slowret.py").write_text(SLOW_RETRIEVER, encoding="utf-8")
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH"))
                                          if p)}


def _many_cases(folder: Path, n: int) -> Path:
    return write_cases(folder, [case(f"c{i}", [{"file": "src/a.py"}]) for i in range(n)],
                       name="many.yaml")


def test_two_runs_on_one_output_do_not_both_write(tmp_path: Path) -> None:
    env = _run_env(tmp_path)
    cases = _many_cases(tmp_path, 6)
    out = tmp_path / "attempts.jsonl"
    argv = ["run", str(cases), "--retriever", "python:slowret:answer", "-o", str(out), "-q"]
    first = subprocess.Popen([sys.executable, "-c", CODE, *argv], cwd=tmp_path,
                             env={**os.environ, **env, "HOLD": "1"}, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not out.exists() and time.monotonic() < deadline:  # created under the lock
            time.sleep(0.05)
        time.sleep(0.3)  # the file is created just before it is locked
        second = run_cli(*argv, cwd=tmp_path, env=env)
        assert_clean_error(second, contains="another codegold process")
        resumed = run_cli(*argv, "--resume", cwd=tmp_path, env=env)
        assert_clean_error(resumed, contains="another codegold process")
    finally:
        (tmp_path / "release").touch()
        _, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    ids = [json.loads(line)["case_id"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(ids) == [f"c{i}" for i in range(6)]


def _attempt_line(case_id: str) -> str:
    return json.dumps(attempt(f"run-1/{case_id}", case_id, [chunk("c", "src/a.py")],
                              run_id="run-1"))


@pytest.mark.parametrize("torn", [False, True])
def test_resume_keeps_a_whole_last_line_and_drops_a_torn_one(tmp_path: Path, torn: bool) -> None:
    env = _run_env(tmp_path)
    cases = _many_cases(tmp_path, 3)
    out = tmp_path / "attempts.jsonl"
    last = _attempt_line("c1")
    out.write_text(_attempt_line("c0") + "\n" + (last[:-7] if torn else last), encoding="utf-8")
    proc = run_cli("run", cases, "--retriever", "python:slowret:answer", "-o", out, "--resume",
                   "-q", cwd=tmp_path, env=env)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line)["case_id"] for line in lines]
    assert sorted(ids) == ["c0", "c1", "c2"]
    if torn:
        assert "cut off" in proc.stderr
    else:
        assert lines[1] == last  # the attempt that lacked its newline is kept, unchanged
        assert "cut off" not in proc.stderr


# --- paths read from an artifact stay inside its folder -----------------------------------


def _diagnosis(work: dict[str, Path]) -> Path:
    diag = work["dir"] / "diag"
    proc = run_cli("diagnose", work["results"], "-o", diag)
    assert proc.returncode == 0, proc.stderr
    return diag


def _point_bundles(diag: Path, target: str) -> None:
    doc = json.loads((diag / "diagnoses.json").read_text(encoding="utf-8"))
    for d in doc["diagnoses"]:
        d["bundle_markdown"] = target
    (diag / "diagnoses.json").write_text(json.dumps(doc), encoding="utf-8")


@pytest.mark.parametrize("target", ["/proc/self/environ", "../secret.md", "bundles/../../secret.md",
                                    "bundles/link.md"])
def test_report_refuses_bundle_paths_outside_the_diagnosis(work: dict[str, Path], target: str) -> None:
    diag = _diagnosis(work)
    secret = work["dir"] / "secret.md"
    secret.write_text("TOP-SECRET-TOKEN", encoding="utf-8")
    (diag / "bundles" / "link.md").symlink_to(secret)
    _point_bundles(diag, target)
    out = work["dir"] / "report.html"
    proc = run_cli("report", work["results"], "--diagnosis", diag, "-o", out,
                   env={"CODEGOLD_CANARY": "TOP-SECRET-TOKEN"})
    assert_clean_error(proc, contains="outside")
    assert not out.exists() or "TOP-SECRET-TOKEN" not in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("content", [b"\xff\xfe\x00binary\x00" * 100, b"ok\x00nul"])
def test_report_refuses_a_binary_bundle(work: dict[str, Path], content: bytes) -> None:
    diag = _diagnosis(work)
    (diag / "bundles" / "bin.md").write_bytes(content)
    _point_bundles(diag, "bundles/bin.md")
    proc = run_cli("report", work["results"], "--diagnosis", diag, "-o", work["dir"] / "r.html")
    assert_clean_error(proc, contains="bundle")


def test_report_still_reads_its_own_bundles(work: dict[str, Path]) -> None:
    diag = _diagnosis(work)
    out = work["dir"] / "r.md"
    proc = run_cli("report", work["results"], "--diagnosis", diag, "--md", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\u202e" not in text


# --- demo runs only the bundled example's code unless told to trust another --------------


def test_demo_refuses_a_foreign_example(tmp_path: Path) -> None:
    example = tmp_path / "ex"
    example.mkdir()
    sentinel = tmp_path / "PWNED"
    (example / "build_example.py").write_text(
        f"open({str(sentinel)!r}, 'w').write('ran')\n", encoding="utf-8")
    planted = plant_sentinels(tmp_path / "keep")
    proc = run_cli("demo", "--example", example, "--out", tmp_path / "out")
    assert_clean_error(proc, contains="--trust-example")
    assert not sentinel.exists()
    assert_sentinels(planted)


# --- diagnose against another run's attempts ------------------------------------------------


def test_diagnose_refuses_another_runs_attempts(work: dict[str, Path]) -> None:
    other = write_attempts(work["dir"], [
        attempt("run-2/plain", "plain", [chunk("x", "src/a.py")], run_id="run-2"),
        attempt("run-2/" + MARKUP, MARKUP, [chunk("x", "src/a.py")], run_id="run-2"),
    ], name="other.jsonl")
    proc = run_cli("diagnose", work["results"], "--attempts", other)
    assert_clean_error(proc, contains="another run")
    ok = run_cli("diagnose", work["results"], "--attempts", work["attempts"])
    assert ok.returncode == 0, ok.stderr


# --- bad options -------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["eval", "--bogus"], ["nope"], ["run", "c.yaml"],
                                  ["gate", "r.json"], ["compare", "--seed", "x", "a", "b"],
                                  ["demo", "--workers", "0"]])
def test_bad_options_are_one_error_line(tmp_path: Path, argv: list[str]) -> None:
    proc = run_cli(*argv, cwd=tmp_path)
    assert_clean_error(proc)


def test_a_closed_pipe_is_not_a_traceback(tmp_path: Path) -> None:
    cases = _many_cases(tmp_path, 1500)
    attempts = write_attempts(tmp_path, [])
    for argv in (["eval", cases, attempts, "--json"], ["eval", cases, attempts]):
        reader = subprocess.Popen([sys.executable, "-c", CODE, *map(str, argv)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert reader.stdout is not None
        reader.stdout.read(1)
        reader.stdout.close()  # like `| head -c 1`, long before the output (> 64 KiB) ends
        _, err = reader.communicate(timeout=60)
        text = err.decode("utf-8", "replace")
        assert "Traceback" not in text and "error:" not in text, text
