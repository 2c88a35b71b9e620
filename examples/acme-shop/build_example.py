#!/usr/bin/env python3
"""Build the acme-shop example repository, byte-for-byte the same on every machine.

    python examples/acme-shop/build_example.py OUT_DIR

creates a git repository at OUT_DIR (which must not exist or be empty) with one commit
per revision below, tagged ``v1`` and ``v2``, and prints ``tag sha`` lines. The source
lives beside this script as data: ``tree-v1/`` is the whole first revision; each later
``tree-vN/`` holds only the files it adds or changes, and ``REVISIONS`` lists the files
it removes.

The commit shas are stable because everything git hashes is fixed here: file bytes and
modes, author and committer names, emails and dates, the branch name, and no signing,
hooks or user configuration. ``cases.yaml`` pins revisions by these shas, and
``tests/example/test_build_example.py`` checks that regenerating gives the same ones.

Standard library only, so that it runs before codegold is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Revision:
    tag: str
    tree: str  # directory beside this script: full tree for the first, overlay after
    message: str
    date: str  # ISO 8601 with offset; used for author and committer
    removed: tuple[str, ...] = ()


REVISIONS: tuple[Revision, ...] = (
    Revision(
        tag="v1",
        tree="tree-v1",
        message="acme-shop 3.4: storefront API, webhooks, billing service",
        date="2026-03-02T10:00:00+00:00",
    ),
    Revision(
        tag="v2",
        tree="tree-v2",
        message=(
            "acme-shop 3.5: rename calculateTotal to computeOrderTotal, move rateLimit to "
            "rate-limit.ts, clock-skew allowance for refresh tokens, Austrian VAT, "
            "session device migration, drop legacy cookie helpers"
        ),
        date="2026-06-15T16:30:00+00:00",
        removed=("src/legacy/cookies.ts",),
    ),
)

AUTHOR_NAME = "Acme Example"
AUTHOR_EMAIL = "example@acme.invalid"


class BuildError(Exception):
    """The output path is unusable or git failed."""


def _git_env(date: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME=AUTHOR_NAME,
        GIT_AUTHOR_EMAIL=AUTHOR_EMAIL,
        GIT_AUTHOR_DATE=date,
        GIT_COMMITTER_NAME=AUTHOR_NAME,
        GIT_COMMITTER_EMAIL=AUTHOR_EMAIL,
        GIT_COMMITTER_DATE=date,
        # The user's own git configuration (templates, hooks, signing, autocrlf) must not
        # reach the objects we hash.
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        LC_ALL="C",
    )
    return env


def _git(repo: Path, *args: str, date: str = REVISIONS[0].date) -> str:
    command = [
        "git", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false",
        "-c", "core.autocrlf=false", "-c", "core.fileMode=true",
        "-c", f"core.hooksPath={os.devnull}", *args,
    ]
    try:
        done = subprocess.run(command, cwd=repo, env=_git_env(date), check=True,
                              capture_output=True, text=True)
    except FileNotFoundError:
        raise BuildError("git is not installed or not on PATH") from None
    except subprocess.CalledProcessError as err:
        raise BuildError(f"`git {' '.join(args)}` failed: {err.stderr.strip()}") from None
    return done.stdout.strip()


def _files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _write_tree(source: Path, repo: Path) -> None:
    for path in _files(source):
        target = repo / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            target.unlink()
        # Written fresh, never copied, so the mode is 0644 whatever the checkout had.
        target.write_bytes(path.read_bytes())
        target.chmod(0o644)


def build(out: Path) -> dict[str, str]:
    """Create the example repository at ``out``; return ``{tag: full commit sha}``."""
    if out.exists() and any(out.iterdir()):
        raise BuildError(f"{out} exists and is not empty; give a new path")
    out.mkdir(parents=True, exist_ok=True)
    _git(out, "init", "--quiet", "--template=", "-b", "main")
    shas: dict[str, str] = {}
    for revision in REVISIONS:
        for removed in revision.removed:
            (out / removed).unlink()
        _write_tree(HERE / revision.tree, out)
        _git(out, "add", "--all", date=revision.date)
        _git(out, "commit", "--quiet", "--no-verify", "-m", revision.message, date=revision.date)
        _git(out, "tag", revision.tag, date=revision.date)
        shas[revision.tag] = _git(out, "rev-parse", "HEAD", date=revision.date)
    return shas


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0])
        print("usage: build_example.py OUT_DIR")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    try:
        shas = build(Path(argv[0]))
    except BuildError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for tag, sha in shas.items():
        print(f"{tag} {sha}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
