"""Hostile input to ``codegold import trajectories`` in child processes: exit 2, one
``error:`` line, no traceback, bounded time and memory, nothing half-written, the user's
files intact."""

from __future__ import annotations

import json
from pathlib import Path

from hostilekit import assert_clean_error, assert_sentinels, plant_sentinels, run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "trajectories" / "fixtures"
CASES = FIXTURES / "cases.yaml"
TIMEOUT = 60


def _import(*args: str | Path) -> list[str | Path]:
    return ["import", "trajectories", *args, "--cases", CASES]


def test_a_trajectory_for_a_case_that_does_not_exist(tmp_path: Path) -> None:
    planted = plant_sentinels(tmp_path)
    traj = tmp_path / "nobody__nothing-1.traj"
    traj.write_bytes((FIXTURES / "swe-agent" / "demo__repo-1.traj").read_bytes())
    out = tmp_path / "attempts.jsonl"
    proc = run_cli(*_import(traj, "--format", "swe-agent", "-o", out), timeout=TIMEOUT)
    assert_clean_error(proc, contains=["nobody__nothing-1", "--skip-unknown"])
    assert not out.exists()
    assert_sentinels(planted)
    skipped = run_cli(*_import(traj, FIXTURES / "swe-agent", "--format", "swe-agent", "-o", out,
                               "--skip-unknown"), timeout=TIMEOUT)
    assert skipped.returncode == 0, skipped.stderr
    assert "skipped nobody__nothing-1" in skipped.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1


def test_a_device_or_a_huge_file_is_refused(tmp_path: Path) -> None:
    proc = run_cli(*_import("/dev/zero", "--format", "openhands", "-o", tmp_path / "a.jsonl"),
                   timeout=TIMEOUT)
    assert_clean_error(proc)


def test_deep_nesting_and_truncation(tmp_path: Path) -> None:
    deep = tmp_path / "demo__repo-1.traj"
    deep.write_text("{\"trajectory\": " + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    assert_clean_error(run_cli(*_import(deep, "--format", "swe-agent", "-o", tmp_path / "a.jsonl"),
                               timeout=TIMEOUT), contains="nested deeper")
    cut = tmp_path / "cut" / "demo__repo-1.traj.json"
    cut.parent.mkdir()
    cut.write_bytes((FIXTURES / "mini-swe-agent" / "demo__repo-1.traj.json").read_bytes()[:999])
    assert_clean_error(run_cli(*_import(cut, "--format", "mini-swe-agent", "-o",
                                        tmp_path / "a.jsonl"), timeout=TIMEOUT),
                       contains="not valid JSON")


def test_megabyte_observations_and_binary_output_stay_bounded(tmp_path: Path) -> None:
    steps = [{"action": "cat big.py", "observation": "x = 1\n" * 2_000_000},
             {"action": "cat blob.bin", "observation": "\x00\x01\x02" * 100_000},
             {"action": "open a.py", "observation": "[File: /testbed/a.py (3 lines total)]\n"
                                                  "1:a\n2:b\n3:c\n"}]
    traj = tmp_path / "demo__repo-1.traj"
    traj.write_text(json.dumps({"trajectory": steps}), encoding="utf-8")
    out = tmp_path / "a.jsonl"
    proc = run_cli(*_import(traj, "--format", "swe-agent", "-o", out, "--json"), timeout=TIMEOUT,
                   memory=2 * 1024**3)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["trajectories"][0]["skipped_calls"] == {"binary output": 1}
    (line,) = out.read_text(encoding="utf-8").splitlines()
    assert [c["file"] for c in json.loads(line)["ranked"]] == ["big.py", "a.py"]


def test_the_output_may_not_overwrite_an_input(tmp_path: Path) -> None:
    traj = tmp_path / "demo__repo-1.traj"
    traj.write_bytes((FIXTURES / "swe-agent" / "demo__repo-1.traj").read_bytes())
    before = traj.read_bytes()
    assert_clean_error(run_cli(*_import(traj, "--format", "swe-agent", "-o", traj),
                               timeout=TIMEOUT))
    assert traj.read_bytes() == before


def test_a_control_character_in_a_path_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    traj = tmp_path / "demo__repo-1.traj"
    traj.write_text(json.dumps({"trajectory": [
        {"action": "cat \x1b]52;c;aGk=\x07.py", "observation": "a\n"}]}), encoding="utf-8")
    proc = run_cli(*_import(traj, "--format", "swe-agent", "-o", tmp_path / "a.jsonl"),
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr


EVIL = ["a" * 200_000, ":1" * 100_000, "-1" * 100_000, "```\n" * 50_000, "[File: " * 30_000,
        "\n" * 200_000, "a@b:" * 50_000, "(Open file: " * 20_000, "<output>" * 30_000,
        'Found 1 matches for "' * 10_000, "Here's the result of running `cat -n` on " + ":a" * 100_000]
ACTIONS = ["cat a.py", "grep -rn x .", "open a.py", "search_file x", "search_dir x",
           "str_replace_editor view /testbed/a.py", "frob", "cat a.py | head -n 3"]


def test_pathological_outputs_take_linear_time(tmp_path: Path) -> None:
    """Each output is built to make a backtracking pattern quadratic; every format reads
    them all within the timeout."""
    swe = [{"action": a, "observation": text} for text in EVIL for a in ACTIONS]
    (tmp_path / "swe").mkdir()
    (tmp_path / "swe" / "demo__repo-1.traj").write_text(json.dumps({"trajectory": swe}),
                                                        encoding="utf-8")
    events: list[dict[str, object]] = []
    for number, text in enumerate(EVIL):
        events += [{"id": 3 * number, "action": "run", "args": {"command": "cat a.py"}},
                   {"id": 3 * number + 1, "observation": "run", "cause": 3 * number, "content": text},
                   {"id": 3 * number + 2, "action": "run_ipython", "args": {"code": text[:5000]}}]
    (tmp_path / "oh").mkdir()
    (tmp_path / "oh" / "demo__repo-1.json").write_text(json.dumps(events), encoding="utf-8")
    messages = [{"role": role, "content": text} for text in EVIL for role in ("assistant", "user")]
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "demo__repo-1.traj.json").write_text(
        json.dumps({"messages": messages}), encoding="utf-8")
    for folder, name in (("swe", "swe-agent"), ("oh", "openhands"), ("mini", "mini-swe-agent")):
        proc = run_cli(*_import(tmp_path / folder, "--format", name, "-o",
                                tmp_path / f"{folder}.jsonl", "-q"), timeout=TIMEOUT)
        assert proc.returncode == 0, proc.stderr[-2000:]


def test_numbers_python_cannot_convert_are_passed_over(tmp_path: Path) -> None:
    """5,000-digit line numbers (past int()'s limit) and superscripts (which str.isdigit
    takes) in commands and outputs: imported, never a ValueError traceback."""
    huge = "9" * 5000
    steps = [{"action": f"sed -n '{n},+1p' a.py", "observation": f"a.py:{n}:x\n"}
             for n in (huge, "\u00b2")]
    steps += [{"action": "head -n \u00b2 a.py", "observation": "x\n"},
              {"action": "grep -n x a.py", "observation": f"{huge}:x\n2:y\n"}]
    traj = tmp_path / "demo__repo-1.traj"
    traj.write_text(json.dumps({"trajectory": steps}), encoding="utf-8")
    out = tmp_path / "a.jsonl"
    proc = run_cli(*_import(traj, "--format", "swe-agent", "-o", out), timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (line,) = out.read_text(encoding="utf-8").splitlines()
    assert [(c["file"], c["start_line"]) for c in json.loads(line)["ranked"]] == [("a.py", 2)]
