"""``run --python PATH``: a python:module:function retriever with its own virtual
environment runs in that interpreter, not inside codegold's."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.model import iter_attempts

TEAM = '''
import sys

def search(request):
    ranked = [{"chunk_id": "t1", "file": "src/login.py", "revision": request["revision"],
               "symbol": "login", "role": "definition", "interpreter": sys.executable}]
    return {"ranked": ranked, "manifest": {"repository": "acme/shop",
            "revision": request["revision"], "index_build_id": "team-1",
            "chunker": {"name": "team", "version": "1"}, "complete": True}}
'''


def test_the_function_runs_in_the_given_interpreter(cases_file: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    env = tmp_path / "team-venv" / "bin"
    env.mkdir(parents=True)
    python = env / "python"
    os.symlink(sys.executable, python)
    (tmp_path / "team_search.py").write_text(TEAM)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "attempts.jsonl"
    done = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(out), "--quiet",
                                    "--retriever", "python:team_search:search",
                                    "--python", str(python)])
    assert done.exit_code == 0, done.output
    attempts = list(iter_attempts(str(out)))
    assert attempts and all(a.error is None for a in attempts)
    ran_in = {c.extra["interpreter"] for a in attempts for c in a.ranked if c.extra}
    assert ran_in == {str(python)}
    # codegold's own interpreter never imported it
    assert "team_search" not in sys.modules


def test_python_is_only_for_python_retrievers(cases_file: Path, tmp_path: Path) -> None:
    done = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(tmp_path / "a.jsonl"),
                                    "--retriever", "command:true", "--python", sys.executable])
    assert done.exit_code == 2 and "--python applies to a python:module:function" in done.output
    missing = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(tmp_path / "b.jsonl"),
                                       "--retriever", "python:m:f", "--python",
                                       str(tmp_path / "nope" / "python")])
    assert missing.exit_code == 2 and "no interpreter" in missing.output
