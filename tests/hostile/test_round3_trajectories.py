"""Hostile trajectories, third round: a key shown in two reads, imports that grow
quadratically, numbers that size memory, an output that already holds attempts, folders
nested deep, a broken line in pretty-printed JSON, failed edits, a file of another
format, files the agent made itself and which steps were passed over.

Each runs ``codegold import trajectories`` in a child process (bounded time and memory);
a "linear, not quadratic" case runs at two sizes, the larger one far past what a
quadratic reader finishes within the timeout."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from hostilekit import assert_clean_error, assert_no_traceback, run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "trajectories" / "fixtures"
CASES = FIXTURES / "cases.yaml"
TIMEOUT = 60


def _import(*args: str | Path) -> list[str | Path]:
    return ["import", "trajectories", *args, "--cases", CASES]


def _swe(folder: Path, steps: list[tuple[str, str]], name: str = "demo__repo-1") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.traj"
    path.write_text(json.dumps({"trajectory": [
        {"action": a, "observation": o, "state": {"working_dir": "/testbed"}} for a, o in steps]}),
        encoding="utf-8")
    return path


def _attempts(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- a private key shown in two reads --------------------------------------------------

def _key_lines() -> list[str]:
    body = base64.b64encode(b"".join(hashlib.sha256(bytes([n])).digest()
                                     for n in range(40))).decode()
    return (["-----BEGIN RSA PRIVATE KEY-----"]
            + [body[i:i + 64] for i in range(0, len(body), 64)]
            + ["-----END RSA PRIVATE KEY-----"])


@pytest.mark.parametrize("second", ["cat server.key", "sed -n '4,30p' server.key"])
def test_a_private_key_read_in_two_parts_never_reaches_an_output(tmp_path: Path,
                                                                 second: str) -> None:
    """``head -n 3`` shows the key's first lines; a later ``cat`` (or ``sed -n 4,30p``)
    shows the rest: the part no earlier call showed holds the body without its BEGIN
    line, and must still be redacted."""
    key = _key_lines()
    tail = key if second.startswith("cat") else key[3:30]
    traj = _swe(tmp_path / "t", [("head -n 3 server.key", "\n".join(key[:3]) + "\n"),
                                 (second, "\n".join(tail) + "\n")])
    out, report = tmp_path / "a.jsonl", tmp_path / "report.json"
    proc = run_cli(*_import(traj, "--format", "swe-agent", "-o", out, "--report", report),
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    written = out.read_text(encoding="utf-8") + report.read_text(encoding="utf-8")
    for line in key[1:-1]:
        assert line[:40] not in written, line
    (attempt,) = _attempts(out)
    assert [(c["start_line"], c["end_line"]) for c in attempt["ranked"]][:2] == [
        (1, 3), (4, len(key) if second.startswith("cat") else 29)]
    assert set(attempt["ranked"][1]["excerpt"]) <= set("\n<SECRET:private_key>")
