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


# A streaming git process, for modules that may not import subprocess themselves.
GitProcess = subprocess.Popen[bytes]


def git_popen(args: Sequence[str], *, repo: str | Path) -> GitProcess:
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


# --- which tree paths git itself would write -------------------------------------------
#
# A tree object can name any path; ``git checkout`` refuses the ones ``verify_path`` in
# git's read-cache.c refuses. codegold writes work trees from objects itself (the MCP
# checkout), so it refuses the same paths, rule for rule: a ``.git`` folder written
# below the top (``sub/.git/config``) would be read by every git command run in ``sub/``,
# and its ``core.fsmonitor`` runs a program the repository chose.

MODE_SYMLINK = 0o120000
MODE_TREE = 0o040000

# Code points HFS+ ignores when it compares names (git's utf8.c, next_hfs_char): ".g\u200cit"
# is ".git" there.
_HFS_IGNORED = frozenset((0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D,
                          0x202E, 0x206A, 0x206B, 0x206C, 0x206D, 0x206E, 0x206F, 0xFEFF))


def _hfs_is_dot(component: str, needle: str) -> bool:
    """``component`` reads as ``.needle`` on HFS+: ignorable code points dropped, ASCII
    case folded (git's is_hfs_dot_generic)."""
    kept = [c for c in component if ord(c) not in _HFS_IGNORED]
    return len(kept) == len(needle) + 1 and kept[0] == "." and all(
        ord(c) < 128 and c.lower() == n for c, n in zip(kept[1:], needle, strict=True))


def _only_spaces_and_periods(rest: str) -> bool:
    # NTFS drops trailing spaces and periods, and ':' starts an alternate data stream
    # (".git::$INDEX_ALLOCATION" is the folder ".git").
    for char in rest:
        if char == ":":
            return True
        if char not in " .":
            return False
    return True


def _ntfs_is_dot(component: str, needle: str, short_prefix: str) -> bool:
    """``component`` names ``.needle`` on NTFS: its trailing spaces and periods or a data
    stream added, or an 8.3 short name (``GITMOD~1``, ``gi7eba~4``) (git's path.c,
    is_ntfs_dot_generic)."""
    length = len(needle)
    if component[:1] == "." and component[1:1 + length].lower() == needle:
        return _only_spaces_and_periods(component[1 + length:])
    if component[:6].lower() == needle[:6] and component[6:7] == "~" \
            and component[7:8] in ("1", "2", "3", "4"):
        return _only_spaces_and_periods(component[8:])
    saw_tilde = False
    index = 0
    while index < 8:
        if index >= len(component):
            return False
        char = component[index]
        if saw_tilde:
            if not "0" <= char <= "9":
                return False
        elif char == "~":
            index += 1
            if index >= len(component) or not "1" <= component[index] <= "9":
                return False
            saw_tilde = True
        elif index >= 6 or ord(char) >= 128 or char.lower() != short_prefix[index]:
            return False
        index += 1
    return _only_spaces_and_periods(component[8:])


def _ntfs_is_dotgit(component: str) -> bool:
    """``.git`` or its 8.3 name ``git~1`` with NTFS's trailing spaces, periods or data
    stream (git's path.c, is_ntfs_dotgit)."""
    lower = component.lower()
    if lower.startswith(".git"):
        rest = component[4:]
    elif lower.startswith("git~1"):
        rest = component[5:]
    else:
        return False
    return _only_spaces_and_periods(rest)


def verify_path(path: str, mode: int) -> bool:
    """Whether git would write the tree entry ``path`` (``mode`` as git's ``ls-tree``
    gives it, e.g. ``0o100644``): git's ``verify_path`` with its NTFS and HFS+
    protections on, as git applies them on every system that checks out to such a disk.

    Refused: an empty path or component (``a//b``, a trailing ``/``), ``.`` and ``..``,
    a ``.git`` component at any depth in any case, its NTFS spellings (``git~1``,
    ``.git.``, ``.git ``, ``.git::$INDEX_ALLOCATION``) and HFS+ spellings (``.g\\u200cit``),
    a ``.gitmodules`` that is a symbolic link (in all those spellings too), and, stricter
    than git on Linux, any backslash or NUL (a path separator on Windows).
    """
    if not path or "\\" in path or "\0" in path or path.startswith("/"):
        return False
    symlink = (mode & 0o170000) == MODE_SYMLINK
    for component in path.split("/"):
        if component in ("", ".", ".."):
            return False
        lower = component.lower()
        if lower == ".git" or _hfs_is_dot(component, "git") or _ntfs_is_dotgit(component):
            return False
        if symlink and (lower == ".gitmodules" or _hfs_is_dot(component, "gitmodules")
                        or _ntfs_is_dot(component, "gitmodules", "gi7eba")):
            return False
    return True


_QUOTED_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34,
                   "\\": 92}


def unquote_git_path(path: str) -> str:
    """A path as git writes it in a diff header or a listing without ``-z``: C-quoted
    (``"a/tab\\there.py"``, octal escapes for bytes) when it holds a quote, a backslash or a
    control character; any other path is returned as it is."""
    if len(path) < 2 or path[0] != '"' or path[-1] != '"':
        return path
    out = bytearray()
    body, i = path[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 == len(body):
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
        elif body[i + 1] in _QUOTED_ESCAPES:
            out.append(_QUOTED_ESCAPES[body[i + 1]])
            i += 2
        elif re.fullmatch("[0-7]{3}", body[i + 1:i + 4]):
            out.append(int(body[i + 1:i + 4], 8) & 0xFF)
            i += 4
        else:
            out += ch.encode()
            i += 1
    return out.decode("utf-8", "replace")
