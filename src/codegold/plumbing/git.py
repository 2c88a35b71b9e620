"""The one way codegold runs git: isolated environment, bounded time, no options smuggled in.

Every git call goes through :func:`git` (or :func:`git_popen` for a streaming
``cat-file --batch``). The environment drops every ``GIT_*`` variable a caller (a git
hook, a CI job) may have set, so ``GIT_DIR``/``GIT_WORK_TREE``/``GIT_CONFIG_*`` can never
redirect codegold to another repository or inject configuration; system config, pagers
and prompts are off. Callers put ``--end-of-options`` before any argument derived from
user input or artifact data, and validate revisions read from artifacts with
:func:`is_full_sha` before git sees them.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from codegold.errors import CodeIndexError, InputError
from codegold.plumbing.process import kill_group

DEFAULT_TIMEOUT = 120.0
END_OF_OPTIONS = "--end-of-options"

_FULL_SHA = re.compile(r"[0-9a-f]{40}")

# Set on the command line, where they outrank every config file (the repository's own
# .git/config, files it includes, the user's global config), so a repository received
# from someone else can neither run a program for a read-only question nor change how
# answers look. Each key names a program git would start, a place it would redirect to,
# or the switch that makes it start one; docs/security.md lists them and the tests in
# tests/hostile/test_git_config.py plant each one.
NEUTRALISED_CONFIG = (
    "core.fsmonitor=false",          # a hook program run by status-like commands
    "core.hooksPath=/dev/null",      # hooks (post-checkout, pre-auto-gc, reference-transaction…)
    "core.pager=cat",                # a pager is a program
    "core.sshCommand=ssh",           # a program for ssh transports
    "core.gitProxy=",                # a program for git:// transports
    "core.askPass=",                 # a program asked for credentials
    "credential.helper=",            # an empty value clears every configured helper
    "log.showSignature=false",       # makes git log run gpg.program on signed commits
    "gpg.program=false",             # the signature programs, should anything ask for one
    "gpg.openpgp.program=false",
    "gpg.x509.program=false",
    "gpg.ssh.program=false",
    "gc.auto=0",                     # no background gc (and so no pre-auto-gc hook)
    "maintenance.auto=false",
    "protocol.allow=never",          # codegold reads local objects only: no transport at all
    "color.ui=false",
    "core.quotepath=false",
    "core.untrackedCache=false",
)
# Commands that can produce a diff run with external diff drivers and textconv filters
# off: those are programs named by the repository's config and .gitattributes.
_DIFF_COMMANDS = frozenset({"log", "show", "diff", "diff-tree", "diff-index", "diff-files",
                            "whatchanged"})
_NO_DRIVERS = ("--no-ext-diff", "--no-textconv")


@dataclass(frozen=True)
class GitResult:
    """What one git call returned; ``stdout`` is raw bytes (paths may not be UTF-8)."""

    returncode: int
    stdout: bytes
    stderr: str

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def is_full_sha(text: object) -> bool:
    """True for a full 40-character lowercase hex commit id, the only revision form
    codegold accepts from artifact files (anything else could be read as a git option)."""
    return isinstance(text, str) and _FULL_SHA.fullmatch(text) is not None


def looks_like_option(text: str) -> bool:
    """A user-given name git would parse as an option (``-x``, ``--output=...``)."""
    return text.startswith("-")


def git_env() -> dict[str, str]:
    """The caller's environment minus every ``GIT_*`` variable, plus isolation settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.pop("SSH_ASKPASS", None)
    env.update({
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "true",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "LC_ALL": "C",
    })
    return env


def git_argv(args: Sequence[str], repo: str | Path) -> list[str]:
    """``git -C REPO -c SAFE... ARGS``."""
    bad = next((a for a in args if "\0" in a), None)
    if bad is not None:
        # a NUL cannot reach a program's argv: a name read from a file is not a revision
        raise InputError(f"{bad.split(chr(0))[0][:80]!r}... holds a NUL byte; expected a "
                         "revision, path or name without control characters")
    argv = ["git", "-C", str(repo)]
    for setting in NEUTRALISED_CONFIG:
        argv += ["-c", setting]
    args = list(args)
    if args and args[0] in _DIFF_COMMANDS:
        args[1:1] = _NO_DRIVERS
    return [*argv, *args]


def git(args: Sequence[str], *, repo: str | Path, timeout: float = DEFAULT_TIMEOUT,
        input: bytes | None = None, check: bool = True) -> GitResult:
    """Run ``git ARGS`` in ``repo`` and wait at most ``timeout`` seconds.

    Raises :class:`CodeIndexError` with one sentence when git cannot start, runs past
    ``timeout`` (the whole process group is killed) or, with ``check``, exits non-zero.
    """
    argv = git_argv(args, repo)
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=git_env(),
                                start_new_session=True)
    except OSError as err:
        raise CodeIndexError(f"cannot run git: {err.strerror or err}") from None
    try:
        out, err_bytes = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        proc.communicate()
        raise CodeIndexError(f"git {_name(args)} in {repo} did not finish within {timeout:g}s "
                          "and was stopped") from None
    result = GitResult(proc.returncode, out, err_bytes.decode("utf-8", "replace"))
    if check and not result.ok:
        detail = result.stderr.strip().splitlines()
        raise CodeIndexError(f"git {_name(args)} failed in {repo}"
                          + (f": {detail[-1]}" if detail else f" (exit {result.returncode})"))
    return result


def git_popen(args: Sequence[str], *, repo: str | Path) -> subprocess.Popen[bytes]:
    """A streaming git process (pipes on all three streams) in its own process group,
    with the same isolated environment; stop it with :func:`kill_group`."""
    try:
        return subprocess.Popen(git_argv(args, repo), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=git_env(), start_new_session=True)
    except OSError as err:
        raise CodeIndexError(f"cannot run git: {err.strerror or err}") from None


def _name(args: Sequence[str]) -> str:
    return next((a for a in args if not a.startswith("-")), "command")
