"""A credential in a file PATH (``deploy/ghp_….py``) must not reach the index: not the
inventory, chunk ids, symbols, search tokens, nor what ``index inspect`` and ``search``
print."""

from __future__ import annotations

from pathlib import Path

from gitrepo import Repo
from hostilekit import assert_no_traceback, run_cli

GH = "ghp_" + "PathPlanted0123456789abcdefABCDEF012"
AWS = "AKIA" + "PATHPLANTED7Q3ZX"


def test_a_secret_in_a_path_never_reaches_the_index(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({f"deploy/{GH}.py": "def deploy_now():\n    return 1\n",
                 f"keys/{AWS}/notes.md": "# Deploy notes\n",
                 "app/main.py": "def deploy_main():\n    return 2\n"})
    out = tmp_path / "idx"
    printed = []
    for args in (("index", repo.path, "--revision", "HEAD", "-o", out),
                 ("index", "inspect", out),
                 ("search", out, "deploy notes now main")):
        proc = run_cli(*args, timeout=120)
        assert_no_traceback(proc)
        assert proc.returncode == 0, (args, proc.stderr[-2000:])
        printed.append(proc.stdout + proc.stderr)
    shown = "\n".join(printed)
    assert "deploy_main" in shown or "app/main.py" in shown, shown
    for value in (GH, AWS):
        assert value not in shown
        for path in out.rglob("*"):
            if path.is_file():
                assert value.encode() not in path.read_bytes(), path
