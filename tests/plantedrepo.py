"""A small repository with planted label, index and retrieval faults, indexed for real.

Tests write attempts by hand against it (line windows like an external retriever's, or
chunks that copy the index's metadata), score them with the real evaluator, and diagnose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from codegold.index.build import build_index
from gitrepo import Repo

SESSION = '''\
"""Sessions."""


class SessionService:
    def createSession(self, token):
        # refreshToken was renamed to rotate_token in this release
        return rotate_token(token)


def rotate_token(token):
    return token[::-1]
'''

# One long function: long enough that a retriever's 20-line windows cut it in two.
BIG = '"""Orders."""\n\n\ndef process_order(order):\n' + "".join(
    f"    step_{i} = order.get({i!r})\n" for i in range(30)) + "    return order\n"

SANSIO = '''\
class App:
    def _find_error_handler(self, error):
        return None
'''

APP = '''\
from shop.sansio.app import App


class Flask(App):
    def handle_exception(self, error):
        return self._find_error_handler(error)
'''

TEST_SESSION = '''\
def test_create_session():
    assert True
'''

LEGACY = '''\
def old_session():
    return None
'''

CALC = '''\
def subtotal(items):
    return sum(items)


def total(items, tax):
    return subtotal(items) + tax
'''

# A minified bundle: one line of packed code, so the file is cut into line windows, which
# still name the definitions the parse finds in them.
BUNDLE = "function packItems(a){return a.map(function(x){return x})};" + "var pad=0;" * 500 + "\n"

# A syntax error the parser chunks around: the definitions inside it are lost to the parse.
BROKEN = ("def ok_one():\n    return 1\n\n\n" + "def ok_two():\n    return 2\n\n\n" * 4
          + "def half_broken(x:\n    return x +\n\n\ndef ok_three():\n    return 3\n")

FILES = {
    "src/shop/session.py": SESSION,
    "src/shop/big.py": BIG,
    "src/shop/sansio/app.py": SANSIO,
    "src/shop/app.py": APP,
    "tests/test_session.py": TEST_SESSION,
    "src/legacy/old.py": LEGACY,
    "src/shop/calc.py": CALC,
    "src/shop/pack.js": BUNDLE,
    "src/shop/broken.py": BROKEN,
    "src/shop/poetry.lock": "[[package]]\nname = 'x'\n",
}


def line_of(path: str, needle: str) -> int:
    """1-based line of the first line of ``FILES[path]`` holding ``needle``."""
    return next(n for n, line in enumerate(FILES[path].splitlines(), 1) if needle in line)


def last_line(path: str) -> int:
    return len(FILES[path].splitlines())


class Planted(msgspec.Struct, frozen=True):
    repo: Path
    index: Path
    revision: str
    manifest: dict[str, Any]


def build(root: Path) -> Planted:
    repo = Repo(root / "repo")
    sha = repo.commit(FILES, "planted")
    manifest = build_index(repo.path, sha, root / "index", repository="acme/shop")
    return Planted(repo=repo.path, index=root / "index", revision=sha,
                   manifest=msgspec.to_builtins(manifest))
