"""``cases check`` warns about a label whose symbol no chunk can ever carry: it is in the
index's symbol table under no spelling, and the warning names the closest name."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index
from gitrepo import Repo

PYPROJECT = ('[project]\nname = "shop"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
             'markers = [\n  "slow: slow tests",\n]\n')
CODE = "class SessionService:\n    def create_session(self):\n        return 1\n"


def test_a_symbol_no_chunk_can_carry_is_named_with_the_closest(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"pyproject.toml": PYPROJECT, "src/session.py": CODE})
    build_index(str(repo.path), sha, tmp_path / "idx" / sha)
    targets = {
        "dotted-key": "{file: pyproject.toml, symbol: tool.pytest.ini_options.markers}",
        "key": "{file: pyproject.toml, symbol: markers}",
        "table": "{file: pyproject.toml, symbol: tool.pytest.ini_options}",
        "other-spelling": "{file: src/session.py, symbol: 'SessionService#create_session'}",
        "rust-spelling": "{file: src/session.py, symbol: 'SessionService::create_session'}",
    }
    lines = [f"format: 1\ndefaults: {{repository: acme/shop, revision: {sha}, cutoff: 5}}\ncases:"]
    for n, (case_id, target) in enumerate(targets.items()):
        lines.append(f"  - id: {case_id}\n    query: question {n}\n    accepted: [{target}]")
    cases = tmp_path / "cases.yaml"
    cases.write_text("\n".join(lines) + "\n")
    done = CliRunner().invoke(cli, ["cases", "check", str(cases), "--index",
                                    str(tmp_path / "idx"), "--json"])
    assert done.exit_code == 0, done.output
    found = json.loads(done.output)["findings"]
    never = [f for f in found if f["code"] == "symbol_not_indexed"]
    assert [f["case_id"] for f in never] == ["dotted-key"]
    assert never[0]["severity"] == "warning"
    assert never[0]["suggestions"][0].startswith("markers")
    assert "closest: markers" in never[0]["message"]
