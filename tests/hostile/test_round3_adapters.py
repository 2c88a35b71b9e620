"""Retrievers and MCP, third round: paths git refuses, answers no parser can read or
that would cost unbounded time or memory, signals, stray lines of a persistent program,
helpers a server leaves behind."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from codegold.adapters.mcp.checkout import Checkouts
from codegold.plumbing.git import verify_path

_GIT_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "LC_ALL": "C"}


def _git(repo: Path, *args: str, input: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, env=_GIT_ENV, input=input,
                          capture_output=True, check=True)
    return done.stdout.decode().strip()


def _tree(repo: Path, entries: dict[str, tuple[str, str]]) -> str:
    """A tree object of ``name -> (mode, sha)``, names as given (git mktree checks none)."""
    lines = "".join(f"{mode} {'tree' if mode == '040000' else 'blob'} {sha}\t{name}\n"
                    for name, (mode, sha) in entries.items())
    return _git(repo, "mktree", input=lines.encode())


# --- 1. the MCP checkout writes only what git itself would write ----------------------------

# Paths git refuses with its NTFS and HFS+ protections on; every one a component that a
# git command run below it could read as a repository's .git folder.
REFUSED = [
    "sub/.git/config", ".git/config", ".GIT/config", "a/.Git/hooks/x", "a/git~1/config",
    "a/GIT~1/config", "a/.git./config", "a/.git /config", "a/.git. . /config",
    "a/.git::$INDEX_ALLOCATION/config", "a/.git:stream/config", "a/.g\u200cit/config",
    "a/\u200d.git/config", "a/.gi\ufefft/config", "a/.GI\u206at/config", "a/../x", "./x",
    "a/./x", "a//x", "a/", "/x", "",
]
ACCEPTED = ["src/login.py", "a/.gitx/y", "a/.git~1/y", "a/.gitmodules", "a/gitmodules",
            "a/.github/workflows/ci.yml", "a/git/x", "a/...x", "a/.gitignore", "a/\u00e9.py"]
REFUSED_LINKS = [".gitmodules", "a/.GITMODULES", "GITMOD~1", "gi7eba~2", ".gitmodules ",
                 "x/.gitmodules.", ".gitmodules::$DATA", ".git\u200cmodules"]


def _git_accepts(repo: Path, blob: str, path: str, mode: str) -> bool:
    done = subprocess.run(["git", "-c", "core.protectHFS=true", "-c", "core.protectNTFS=true",
                           "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}"],
                          cwd=repo, env=_GIT_ENV, capture_output=True, check=False)
    return done.returncode == 0


def test_verify_path_refuses_what_git_refuses(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    blob = _git(tmp_path, "hash-object", "-w", "--stdin", input=b"x\n")
    for path in REFUSED:
        assert not verify_path(path, 0o100644), path
    for path in ACCEPTED:
        assert verify_path(path, 0o100644), path
    for path in REFUSED_LINKS:
        assert not verify_path(path, 0o120000), path
        assert verify_path(path, 0o100644) or path.endswith("::$DATA"), path
    # git itself is the judge: the same verdict for every path it can be asked about
    # (an empty or absolute path never reaches its index)
    for path in [*REFUSED, *ACCEPTED]:
        if path and not path.startswith("/") and not path.endswith("/"):
            assert _git_accepts(tmp_path, blob, path, "100644") == verify_path(path, 0o100644), \
                path
    for path in REFUSED_LINKS:
        assert not _git_accepts(tmp_path, blob, path, "120000"), path
    # a backslash is a separator on Windows: refused, where git on Linux would take it
    assert not verify_path("a\\.git\\config", 0o100644)


def test_the_mcp_checkout_writes_no_git_folder_at_any_depth(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    planted = tmp_path / "pwned"
    config = f"[core]\n\tfsmonitor = touch {planted}\n".encode()
    blob = _git(repo, "hash-object", "-w", "--stdin", input=config)
    code = _git(repo, "hash-object", "-w", "--stdin", input=b"def login():\n    pass\n")
    dotgit = _tree(repo, {"config": ("100644", blob)})
    sub = _tree(repo, {name: ("040000", dotgit) for name in
                       (".git", ".GIT", "git~1", ".git.", ".g\u200cit")}
                | {"ok.py": ("100644", code)})
    top = _tree(repo, {"sub": ("040000", sub), "login.py": ("100644", code),
                       ".git": ("040000", dotgit)})
    commit = _git(repo, "commit-tree", "-m", "hostile", top)
    checkouts = Checkouts(str(repo))
    try:
        tree = checkouts.path_for(commit, None)
        written = sorted(str(p.relative_to(tree)) for p in tree.rglob("*"))
        assert written == ["login.py", "sub", "sub/ok.py"], written
        # what a code-search server would run in sub/: no config of the repository's reads
        subprocess.run(["git", "status"], cwd=tree / "sub", env=_GIT_ENV,
                       capture_output=True, check=False)
        assert not planted.exists()
    finally:
        checkouts.close()
