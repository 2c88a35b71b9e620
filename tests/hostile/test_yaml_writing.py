"""``cases init`` writes YAML from names it found in the repository (its folder, file
and symbol names): a crafted name must stay data, never become YAML syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.model import load_cases
from gitrepo import Repo
from hostilekit import assert_no_traceback, run_cli

NAMES = [
    "app/evil}], symbol: x}]\n  - id: injected\n    query: q\n    accepted: [{file: a.py}]\n#.py",
    "app/a, }.py",
    "app/x #y.py",
    "app/n\u0085l.py",
    "app/'quote\".py",
]


@pytest.mark.parametrize("name", NAMES)
def test_init_keeps_a_crafted_file_name_as_data(tmp_path: Path, name: str) -> None:
    repo = Repo(tmp_path / "#proj")
    repo.commit({name: "def place_order(cart):\n    return cart\n",
                 "vendor\n# evil: [/lib.py": "def x():\n    pass\n"})
    out = tmp_path / "evals"
    proc = run_cli("cases", "init", repo.path, "-o", out, timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    case_set = load_cases(str(out / "cases.yaml"))
    assert [c.id for c in case_set.cases] == ["starter-where-is-place-order"]
    case = case_set.cases[0]
    assert case.repository == "#proj"
    target = case.groups[0].any_of[0]
    assert (target.file, target.symbol) == (name, "place_order")
