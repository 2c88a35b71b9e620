"""``cases check`` accepts a symbol that only a chunk carries (a docs heading, a config
key): the scorer matches chunk symbols, so such a label is not missing."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index
from gitrepo import Repo

README = """# Shop

Intro text.

## Transport Adapters

Mount an adapter on a session to change how requests are sent.

## Example: Automatic Retries

Retry failed requests with a mounted adapter.
"""


def _check(tmp_path: Path, targets: list[str]) -> dict[str, list[dict[str, str]]]:
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"README.md": README, "app.py": "def mount(adapter):\n    return adapter\n"})
    build_index(str(repo.path), sha, tmp_path / "idx" / sha, repository="acme/shop")
    lines = [f"format: 1\ndefaults: {{repository: acme/shop, revision: {sha}, cutoff: 5}}\ncases:"]
    for n, target in enumerate(targets):
        lines.append(f"  - id: c{n}\n    query: question number {n}\n"
                     f"    accepted: [{target}]")
    cases = tmp_path / "cases.yaml"
    cases.write_text("\n".join(lines) + "\n")
    done = CliRunner().invoke(cli, ["cases", "check", str(cases), "--index",
                                    str(tmp_path / "idx"), "--json"])
    assert done.exit_code in (0, 1), (done.exit_code, done.output, done.stderr)
    assert done.output, (done.exit_code, done.stderr)
    by_case: dict[str, list[dict[str, str]]] = {f"c{n}": [] for n in range(len(targets))}
    for finding in json.loads(done.output)["findings"]:
        by_case[finding["case_id"]].append(finding)
    return by_case


def test_docs_heading_symbols_are_labels_the_scorer_accepts(tmp_path: Path) -> None:
    found = _check(tmp_path, [
        '{file: README.md, symbol: Transport Adapters}',
        '{file: README.md, symbol: "Example: Automatic Retries", roles: [docs]}',
        '{file: README.md, symbol: Transport Adapters, roles: [definition]}',
        '{file: README.md, symbol: Connection Pools}',
        '{file: app.py, symbol: mount, roles: [definition]}',
    ])
    assert found["c0"] == [] and found["c1"] == [] and found["c4"] == []
    assert [f["code"] for f in found["c2"]] == ["role_mismatch"]
    assert [f["code"] for f in found["c3"]] == ["symbol_missing"]
