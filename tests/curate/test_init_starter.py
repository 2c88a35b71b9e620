"""``cases init`` starts right: its starter case is a top-level public definition the
reference retriever answers out of the box, and it names the repository as ``index``
does; ``run`` and ``cases check`` warn when a case's repository is not its index's."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index
from codegold.model import load_cases
from gitrepo import Repo, git

FILES = {
    "ci/min_deps_check.py": "def error(msg):\n    raise SystemExit(msg)\n",
    "setup.py": "def read_version():\n    return '1'\n",
    "shop/_version.py": "def version_tuple():\n    return (1,)\n",
    "shop/__init__.py": "from shop.orders import OrderBook\n",
    "shop/orders.py": ("class OrderBook:\n    \"\"\"Every order placed.\"\"\"\n\n"
                       "    def place(self, order):\n        return order\n\n\n"
                       "def _helper():\n    return 1\n"),
    "tests/test_orders.py": "def test_place():\n    pass\n",
}


def test_the_starter_is_found_and_the_names_agree(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "shop")
    sha = repo.commit(FILES)
    git(repo.path, "remote", "add", "origin", "https://github.com/acme/shop.git")
    out = tmp_path / "evals"
    runner = CliRunner()
    done = runner.invoke(cli, ["cases", "init", str(repo.path), "-o", str(out)])
    assert done.exit_code == 0, done.output
    text = (out / "cases.yaml").read_text(encoding="utf-8")
    assert "starter" in text
    case = load_cases(str(out / "cases.yaml")).cases[0]
    assert case.repository == "acme/shop"
    target = case.groups[0].any_of[0]
    assert (target.file, target.symbol) == ("shop/orders.py", "OrderBook")
    index = tmp_path / "idx" / sha
    manifest = build_index(str(repo.path), sha, index)
    assert manifest.repository == case.repository
    attempts, results = tmp_path / "a.jsonl", tmp_path / "r.json"
    ran = runner.invoke(cli, ["run", str(out / "cases.yaml"), "--index", str(index), "-o",
                              str(attempts), "--quiet"])
    assert ran.exit_code == 0, ran.output
    assert "warning" not in ran.output
    scored = runner.invoke(cli, ["eval", str(out / "cases.yaml"), str(attempts), "-o",
                                 str(results), "--quiet"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(results.read_text())["cases"][0]["status"] == "pass"


def test_a_case_naming_another_repository_is_warned(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "shop")
    sha = repo.commit(FILES)
    git(repo.path, "remote", "add", "origin", "git@github.com:acme/shop.git")
    index = tmp_path / "idx" / sha
    build_index(str(repo.path), sha, index)
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{repository: shop, revision: {sha}, cutoff: 5}}\n"
                     "cases:\n  - id: book\n    query: Where is OrderBook defined?\n"
                     "    accepted: [{file: shop/orders.py, symbol: OrderBook}]\n"
                     "  - id: place\n    query: How is an order placed?\n"
                     "    accepted: [{file: shop/orders.py, symbol: OrderBook.place}]\n")
    runner = CliRunner()
    checked = runner.invoke(cli, ["cases", "check", str(cases), "--index", str(index), "--json"])
    found = [f for f in json.loads(checked.output)["findings"] if f["code"] == "repository_differs"]
    assert len(found) == 1 and found[0]["severity"] == "warning"
    assert "'shop'" in found[0]["message"] and "'acme/shop'" in found[0]["message"]
    assert "and 1 more" in found[0]["message"]
    ran = runner.invoke(cli, ["run", str(cases), "--index", str(index), "-o",
                              str(tmp_path / "a.jsonl"), "--quiet"])
    assert ran.exit_code == 0, ran.output
    assert ran.output.count("warning: case book") == 1


def test_a_go_starter_is_an_exported_name(tmp_path: Path) -> None:
    # Go's lower-case names are private to their package, however top-level.
    repo = Repo(tmp_path / "gin")
    repo.commit({"auth.go": "package gin\n\ntype authPair struct {\n\tvalue string\n}\n\n"
                            "func processAccounts() []authPair {\n\treturn nil\n}\n",
                 "context.go": "package gin\n\ntype Context struct {\n\tindex int8\n}\n"})
    out = tmp_path / "evals"
    done = CliRunner().invoke(cli, ["cases", "init", str(repo.path), "-o", str(out)])
    assert done.exit_code == 0, done.output
    target = load_cases(str(out / "cases.yaml")).cases[0].groups[0].any_of[0]
    assert (target.file, target.symbol) == ("context.go", "Context")

