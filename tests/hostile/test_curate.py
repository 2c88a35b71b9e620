"""Hostile input to the ``codegold cases`` commands (check, from-log, import, split, diff,
mine, init): exit 2, one ``error:`` line, no traceback, bounded time and memory, and the
user's files intact, whatever file stands where an input belongs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hostilekit import (
    HOSTILE_FILES,
    assert_clean_error,
    assert_sentinels,
    control_named,
    input_of,
    plant_sentinels,
    run_cli,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
CASES = EXAMPLE / "cases.yaml"
V2 = "64cf94f743b6c391bbdfd61ebebeda5d06377c57"
TIMEOUT = 60
MEMORY = 3 * 1024**3  # the child's address space: a reader that loads /dev/zero whole fails here
LOG_LINE = (f'{{"id": "r1", "query": "where is createSession", "repository": "acme/shop", '
            f'"revision": "{V2}", "retrieved": ["src/auth/session-service.ts"]}}\n')


def _escaping_link(folder: Path) -> Path:
    path = folder / "link.jsonl"
    path.symlink_to("/etc/hostname" if Path("/etc/hostname").exists() else "/etc/passwd")
    return path


HOSTILE: dict[str, Callable[[Path], Path]] = {
    **HOSTILE_FILES,
    "deep-json-line": input_of(b'{"a":' * 50_000 + b"1" + b"}" * 50_000 + b"\n"),
    "control-chars-in-name": control_named(".jsonl"),
    "symlink-out-of-folder": _escaping_link,
}

# each command with {X} where the hostile file goes and {OUT} its output folder
COMMANDS: dict[str, list[str]] = {
    "from-log": ["cases", "from-log", "{X}", "-o", "{OUT}/drafts.yaml"],
    "from-log --names-file": ["cases", "from-log", "{LOG}", "--names-file", "{X}",
                              "-o", "{OUT}/drafts.yaml"],
    "import swebench": ["cases", "import", "swebench", "{X}", "-o", "{OUT}/swe.yaml"],
    "check": ["cases", "check", "{X}", "--index", "{OUT}"],
    "split": ["cases", "split", "{X}", "-o", "{OUT}/part"],
    "diff": ["cases", "diff", "{X}", str(CASES)],
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_hostile_input_file_is_one_clean_error(tmp_path: Path, command: str, kind: str) -> None:
    if kind == "symlink-out-of-folder" and command in ("check", "split", "diff"):
        pytest.skip("a case file may live anywhere; reading one through a link is allowed")
    inputs = tmp_path / "in"
    inputs.mkdir()
    out = tmp_path / "out"
    planted = plant_sentinels(out)
    log = tmp_path / "log.jsonl"
    log.write_text(LOG_LINE, encoding="utf-8")
    hostile = HOSTILE[kind](inputs)
    args = [a.replace("{X}", str(hostile)).replace("{OUT}", str(out)).replace("{LOG}", str(log))
            for a in COMMANDS[command]]
    proc = run_cli(*args, timeout=TIMEOUT, memory=MEMORY)
    assert_clean_error(proc)
    assert sorted(p.name for p in out.iterdir()) == ["keep-me.txt"]
    assert_sentinels(planted)


def test_a_names_file_line_is_a_name_not_a_pattern(tmp_path: Path) -> None:
    """One 20 MB 'name' would compile into a pattern matched against every field."""
    log = tmp_path / "log.jsonl"
    log.write_text(LOG_LINE, encoding="utf-8")
    names = tmp_path / "names.txt"
    names.write_bytes(b"alice\n" + b"x" * (20 * 1024**2) + b"\n")
    proc = run_cli("cases", "from-log", log, "--names-file", names, "-o", tmp_path / "d.yaml",
                   timeout=TIMEOUT)
    assert_clean_error(proc, contains=["names.txt", "larger than"])
    names.write_bytes(b"alice\n" + b"x" * 300 + b"\n")
    proc = run_cli("cases", "from-log", log, "--names-file", names, "-o", tmp_path / "d.yaml",
                   timeout=TIMEOUT)
    assert_clean_error(proc, contains=["names.txt:2", "at most 200 characters"])
    proc = run_cli("cases", "from-log", log, "--name", "bob\x1b[2J", "-o", tmp_path / "d.yaml",
                   timeout=TIMEOUT)
    assert_clean_error(proc, contains="control characters")
    assert not (tmp_path / "d.yaml").exists()


def test_a_log_line_error_names_the_line_never_its_content(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    secret = "ghp_" + "A1b2C3d4" * 5
    log.write_text(LOG_LINE + '{"query": "' + secret + '", \n', encoding="utf-8")
    proc = run_cli("cases", "from-log", log, "-o", tmp_path / "d.yaml", timeout=TIMEOUT)
    line = assert_clean_error(proc, contains="log.jsonl:2")
    assert secret not in proc.stdout + proc.stderr and "ghp_" not in line


@pytest.mark.parametrize("command", ["from-log", "import swebench", "split"])
def test_the_output_is_never_an_input(tmp_path: Path, command: str) -> None:
    log = tmp_path / "input.jsonl"
    log.write_text(LOG_LINE, encoding="utf-8")
    source = {"split": CASES}.get(command)
    if source is not None:
        log = tmp_path / "cases.yaml"
        log.write_bytes(source.read_bytes())
    before = log.read_bytes()
    out = str(log)
    args = {"from-log": ["cases", "from-log", log, "-o", out],
            "import swebench": ["cases", "import", "swebench", log, "-o", out],
            "split": ["cases", "split", log, "--tag", "-o", out]}[command]
    assert_clean_error(run_cli(*args, timeout=TIMEOUT))
    assert log.read_bytes() == before


def test_mine_and_init_refuse_what_is_not_a_repository(tmp_path: Path) -> None:
    planted = plant_sentinels(tmp_path / "plain")
    for args in (["cases", "mine", tmp_path / "plain", "-o", tmp_path / "m.yaml"],
                 ["cases", "mine", tmp_path / "none", "-o", tmp_path / "m.yaml"],
                 ["cases", "init", tmp_path / "plain", "-o", tmp_path / "evals",
                  "--revision", "no-such-rev"]):
        assert_clean_error(run_cli(*args, timeout=TIMEOUT))
    assert not (tmp_path / "m.yaml").exists() and not (tmp_path / "evals").exists()
    assert_sentinels(planted)


@pytest.mark.parametrize("command", ["check", "from-log", "import swebench"])
def test_a_repo_option_that_is_no_repository_is_one_clean_error(tmp_path: Path,
                                                                 command: str) -> None:
    plain = tmp_path / "plain"
    planted = plant_sentinels(plain)
    log = tmp_path / "log.jsonl"
    log.write_text(LOG_LINE, encoding="utf-8")
    args = {"check": ["cases", "check", CASES, "--index", tmp_path / "idx"],
            "from-log": ["cases", "from-log", log, "-o", tmp_path / "d.yaml"],
            "import swebench": ["cases", "import", "swebench", log, "-o", tmp_path / "d.yaml"],
            }[command]
    for repo in (plain, tmp_path / "absent"):
        proc = run_cli(*args, "--repo", repo, timeout=TIMEOUT)
        assert_clean_error(proc, contains="repo")
    assert not (tmp_path / "d.yaml").exists() and not (tmp_path / "idx").exists()
    assert_sentinels(planted)


def test_check_shows_hostile_labels_as_text(tmp_path: Path) -> None:
    """Case ids, paths and symbols are the case author's text: printed, never obeyed, and
    a label that is long, absolute, climbing or full of escapes is just a missing file."""
    from gitrepo import Repo

    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"pkg/core.py": "def compute_total(x):\n    return x + 1\n"})
    index = tmp_path / "idx"
    assert run_cli("index", repo.path, "--revision", sha, "-o", index / sha, "-q",
                   timeout=TIMEOUT).returncode == 0
    targets = ['"/etc/passwd"', '"../../outside.py"', '"pkg/\\e[2Jcore.py"',
               '"pkg/' + "x" * 5000 + '.py"', '"pkg/core.py", symbol: "' + "y" * 20000 + '"',
               '"pkg/core.py", symbol: "comp\\e]0;pwned\\a"']
    lines = ["format: 1", f"defaults: {{repository: a/b, revision: '{sha}', cutoff: 5}}", "cases:"]
    for n, target in enumerate(targets):
        lines += [f'  - id: "c{n}\\e[31m"', "    query: q", f"    accepted: [{{file: {target}}}]"]
    cases = tmp_path / "cases.yaml"
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    planted = plant_sentinels(tmp_path / "keep")
    proc = run_cli("cases", "check", cases, "--index", index, "--repo", repo.path,
                   timeout=TIMEOUT)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "\x1b" not in proc.stdout and "\a" not in proc.stdout
    assert "6 errors" in proc.stdout
    assert_sentinels(planted)
