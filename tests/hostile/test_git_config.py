"""A repository's own git config must never make codegold run a program.

Each test plants one config key (or attribute) that makes plain git start a program,
shows that plain git really starts it (so the test can fail), then asks the same
question through codegold's one git helper, or a whole command, and checks the
program never ran.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from codegold.plumbing.git import git as codegold_git
from gitrepo import GIT_ENV, Repo
from hostilekit import run_cli

TIMEOUT = 60


def _planted_program(tmp_path: Path) -> tuple[Path, Path]:
    """A script that leaves a marker file when anything runs it."""
    marker = tmp_path / "ran.marker"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\necho ran >> '{marker}'\nexit 1\n", encoding="utf-8")
    script.chmod(0o755)
    return script, marker


def _plain_git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True,
                          check=False, timeout=TIMEOUT)


def _signed_commit(repo: Repo) -> str:
    """A commit object carrying a gpgsig header (no gpg needed to write one)."""
    tree = _plain_git(repo.path, "rev-parse", "HEAD^{tree}").stdout.decode().strip()
    parent = _plain_git(repo.path, "rev-parse", "HEAD").stdout.decode().strip()
    body = (f"tree {tree}\nparent {parent}\n"
            "author A <a@example.invalid> 1735689600 +0000\n"
            "committer A <a@example.invalid> 1735689600 +0000\n"
            "gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n"
            "\nFix the total when the cart is empty\n")
    done = subprocess.run(["git", "-C", str(repo.path), "hash-object", "-t", "commit", "-w",
                           "--stdin"], input=body.encode(), capture_output=True, check=True)
    sha = done.stdout.decode().strip()
    _plain_git(repo.path, "update-ref", "refs/heads/main", sha)
    return sha


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "repo")
    repo.commit({"pkg/core.py": "def total(x):\n    return x + 1\n"}, "add total")
    repo.commit({"pkg/core.py": "def total(x):\n    return x + 2\n"}, "fix total")
    return repo


def _config(repo: Repo, key: str, value: str) -> None:
    _plain_git(repo.path, "config", key, value)


# (what to plant, the read-only question plain git answers by running the program)
PLANTS = {
    "log.showSignature+gpg.program": (
        lambda r, s: (_signed_commit(r), _config(r, "log.showSignature", "true"),
                      _config(r, "gpg.program", str(s))),
        ["log", "-1"]),
    "gpg.openpgp.program": (
        lambda r, s: (_signed_commit(r), _config(r, "log.showSignature", "true"),
                      _config(r, "gpg.openpgp.program", str(s))),
        ["log", "-1"]),
    "diff.external": (
        lambda r, s: _config(r, "diff.external", str(s)),
        ["diff", "HEAD~1", "HEAD"]),
    "textconv": (
        lambda r, s: ((r.path / ".git" / "info" / "attributes").write_text("*.py diff=evil\n"),
                      _config(r, "diff.evil.textconv", str(s))),
        ["show", "HEAD"]),
    "core.fsmonitor": (
        lambda r, s: _config(r, "core.fsmonitor", str(s)),
        ["status", "--porcelain"]),
    "core.sshCommand": (
        lambda r, s: _config(r, "core.sshCommand", str(s)),
        ["ls-remote", "ssh://example.invalid/repo.git"]),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_config_runs_under_plain_git_but_never_through_codegold(
        tmp_path: Path, repo: Repo, plant: str) -> None:
    script, marker = _planted_program(tmp_path)
    setup, question = PLANTS[plant]
    setup(repo, script)
    _plain_git(repo.path, *question)
    assert marker.exists(), f"the planted {plant} did not run under plain git: the test is void"
    marker.unlink()
    codegold_git(question, repo=repo.path, check=False, timeout=TIMEOUT)
    assert not marker.exists(), f"codegold's git ran the program planted through {plant}"


def test_cases_mine_on_a_signed_history_runs_no_gpg_program(tmp_path: Path, repo: Repo) -> None:
    script, marker = _planted_program(tmp_path)
    _signed_commit(repo)
    _config(repo, "log.showSignature", "true")
    _config(repo, "gpg.program", str(script))
    _plain_git(repo.path, "log", "-1")
    assert marker.exists()
    marker.unlink()
    proc = run_cli("cases", "mine", repo.path, "-o", tmp_path / "mined.yaml", timeout=TIMEOUT)
    assert "Traceback" not in proc.stderr
    assert not marker.exists(), "cases mine ran the repository's gpg.program"


def test_index_and_rename_lookup_run_no_planted_program(tmp_path: Path, repo: Repo) -> None:
    script, marker = _planted_program(tmp_path)
    for key in ("core.fsmonitor", "diff.external", "gpg.program", "core.sshCommand"):
        _config(repo, key, str(script))
    _config(repo, "log.showSignature", "true")
    _signed_commit(repo)
    marker.unlink(missing_ok=True)
    proc = run_cli("index", repo.path, "--revision", "HEAD", "-o", tmp_path / "idx",
                   timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    head = _plain_git(repo.path, "rev-parse", "HEAD").stdout.decode().strip()
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "format: 1\ndefaults: {repository: repo, revision: " + head + ", cutoff: 5}\n"
        "cases:\n  - id: c1\n    query: where is total\n"
        "    accepted: [{file: pkg/old.py, symbol: total}]\n", encoding="utf-8")
    proc = run_cli("cases", "check", cases, "--repo", repo.path, timeout=TIMEOUT)
    assert "Traceback" not in proc.stderr
    assert not marker.exists(), "a codegold command ran a program planted in the repo's config"
