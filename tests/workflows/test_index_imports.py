"""``codegold index`` loads only what indexing uses: no dense, embedding, scoring or
report modules (each costs every build its import time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gitrepo import Repo

_CHILD = """
import json, runpy, sys
sys.argv = ["codegold", *sys.argv[1:]]
try:
    runpy.run_module("codegold.cli", run_name="__main__")
except SystemExit as done:
    assert not done.code, done.code
print(json.dumps(sorted(name for name in sys.modules if name.startswith("codegold"))))
"""
_UNUSED = ("codegold.retrieve.dense", "codegold.retrieve.embedpass", "codegold.retrieve.caches",
           "codegold.report", "codegold.evaluate", "codegold.diagnose", "codegold.adapters",
           "codegold.compare", "codegold.tune", "codegold.gate", "codegold.trajectories")


def test_an_index_build_imports_no_dense_embedding_or_report_module(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    first = repo.commit({"src/app.py": "def app():\n    return 1\n"}, "first")
    second = repo.commit({"src/util.py": "def util():\n    return 2\n"}, "second")
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": str(src)}
    for args in (["index", str(repo.path), "--revision", first, "-o", str(tmp_path / "one"),
                  "--quiet"],
                 ["index", str(repo.path), "--revisions", f"{first},{second}", "-o",
                  str(tmp_path / "many"), "--quiet"]):
        done = subprocess.run([sys.executable, "-c", _CHILD, *args], capture_output=True,
                              text=True, env=env, timeout=300, check=True)
        loaded = json.loads(done.stdout.strip().splitlines()[-1])
        assert "codegold.index.build" in loaded  # the child did build
        assert [name for name in loaded if name.startswith(_UNUSED)] == []
