"""``cases import swebench`` and ``cases mine`` on a small repository with a known history;
the output passes ``cases check`` against the index of its base revision."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.curate.changes import parse_patch
from codegold.index import build_index
from codegold.model import load_cases
from gitrepo import Repo, git

PARSER_V1 = '''"""Parsing order lines."""


def parse_line(text):
    parts = text.split(",")
    return {"sku": parts[0], "qty": int(parts[1])}


class Totals:
    def add(self, line):
        self.total = getattr(self, "total", 0) + line["qty"]

    def reset(self):
        self.total = 0
'''
PARSER_V2 = PARSER_V1.replace('    return {"sku": parts[0], "qty": int(parts[1])}',
                              '    if len(parts) < 2:\n        raise ValueError(text)\n'
                              '    return {"sku": parts[0].strip(), "qty": int(parts[1])}')


def _history(tmp_path: Path) -> tuple[Repo, str, str]:
    repo = Repo(tmp_path / "repo")
    base = repo.commit({"shop/parser.py": PARSER_V1, "README.md": "# shop\n",
                        "shop/__init__.py": "", "package-lock.json": '{"v": 1}\n'},
                       "Initial import")
    repo.commit({"README.md": "# shop\n\nUsage.\n"}, "Fix broken link in README (#3)")
    fix_base = git(repo.path, "rev-parse", "HEAD")
    repo.commit({"shop/parser.py": PARSER_V2, "shop/new_module.py": "def helper():\n    pass\n",
                 "package-lock.json": '{"v": 2}\n'},
                "Fix crash in parse_line on short lines (#12)\n\nA line without a quantity "
                "raised IndexError.")
    repo.commit({"shop/parser.py": PARSER_V2 + "\n"}, "Format with black")
    repo.commit({"VERSION": "1.2.0\n"}, "Bump version to 1.2.0")
    repo.commit({"package-lock.json": '{"v": 3}\n'}, "Fix install on npm 7 (#20)")
    return repo, base, fix_base


def test_parse_patch_marks_changed_and_inserted_old_lines() -> None:
    patch = ("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -3,3 +3,4 @@\n a\n-b\n+B\n"
             " c\n+d\ndiff --git a/n.py b/n.py\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+x\n")
    files = parse_patch(patch)
    assert [(f.old_path, f.new_path) for f in files] == [("x.py", "x.py"), (None, "n.py")]
    assert files[0].old_lines == {4, 5}


def test_mine_drafts_the_fix_and_skips_the_rest(tmp_path: Path) -> None:
    repo, _, fix_base = _history(tmp_path)
    out = tmp_path / "mined.yaml"
    done = CliRunner().invoke(cli, ["cases", "mine", str(repo.path), "-o", str(out)])
    assert done.exit_code == 0, done.output
    cases = load_cases(str(out)).cases
    assert len(cases) == 1
    case = cases[0]
    assert case.revision == fix_base and "#12" in case.query
    assert [(t.file, t.symbol) for g in case.groups for t in g.any_of] == [
        ("shop/parser.py", "parse_line")]
    assert case.tags["status"] == "draft"
    # The lock file the fix also changed is no gold (no index holds it); a commit that
    # changes only a lock file is no case.
    for reason in ("formatting or typo", "version bump", "documentation only",
                   "only files an index leaves out"):
        assert reason in done.output


def test_import_swebench_then_check_has_no_errors(tmp_path: Path) -> None:
    repo, _, fix_base = _history(tmp_path)
    fix = git(repo.path, "rev-list", "-1", "--grep", "Fix crash", "HEAD")
    patch = git(repo.path, "diff", fix_base, fix) + "\n"
    instances = tmp_path / "instances.jsonl"
    instances.write_text(json.dumps({
        "instance_id": "acme__shop-12", "repo": "acme/shop", "base_commit": fix_base,
        "problem_statement": "parse_line crashes with IndexError on 'sku-1'", "patch": patch,
    }) + "\n" + json.dumps({"instance_id": "broken", "repo": "acme/shop",
                            "base_commit": "not-a-sha", "problem_statement": "x",
                            "patch": patch}) + "\n")
    out = tmp_path / "swebench.yaml"
    done = CliRunner().invoke(cli, ["cases", "import", "swebench", str(instances), "--repo",
                                    str(repo.path), "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert "not a 40-hex" in done.output
    case = load_cases(str(out)).cases[0]
    assert case.id == "acme__shop-12" and case.revision == fix_base
    assert [g.any_of[0].file for g in case.groups] == ["shop/parser.py"]  # new file left out
    assert case.groups[0].any_of[0].symbol == "parse_line"
    assert [g.edit for g in case.groups] == [True]  # the gold patch changes it
    build_index(str(repo.path), fix_base, tmp_path / "idx" / fix_base)
    checked = CliRunner().invoke(cli, ["cases", "check", str(out), "--index",
                                       str(tmp_path / "idx")])
    assert checked.exit_code == 0, checked.output
    assert "0 errors" in checked.output


def test_import_reads_the_localisation_format_too(tmp_path: Path) -> None:
    repo, _, fix_base = _history(tmp_path)
    instances = tmp_path / "dev.jsonl"
    instances.write_text(json.dumps({
        "instance_id": "acme__shop-13", "repo": "acme/shop", "base_commit": fix_base,
        "query": "quantities are summed wrong",
        "gold_files": ["shop/parser.py", "shop/missing.py"],
        "gold_symbols": [{"file": "shop/parser.py", "symbol": "Totals.add"}]}) + "\n")
    out = tmp_path / "dev.yaml"
    done = CliRunner().invoke(cli, ["cases", "import", "swebench", str(instances), "--repo",
                                    str(repo.path), "-o", str(out)])
    assert done.exit_code == 0, done.output
    case = load_cases(str(out)).cases[0]
    assert [(t.file, t.symbol) for g in case.groups for t in g.any_of] == [
        ("shop/parser.py", "Totals.add")]
    assert [g.edit for g in case.groups] == [True]
