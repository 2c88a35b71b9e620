"""``codegold cases check`` on the bundled example: the real cases are clean, planted label
mistakes are each found, with the closest real names suggested."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
V2 = "64cf94f743b6c391bbdfd61ebebeda5d06377c57"

PLANTED = f"""format: 1
defaults: {{repository: acme/shop, revision: {V2}, cutoff: 5}}
cases:
  - id: moved-file
    query: where is the session created
    accepted: [{{file: src/session-service.ts, symbol: createSession}}]
  - id: wrong-qualifier
    query: createSession
    accepted: [{{file: src/auth/session-service.ts, symbol: LegacySessionService.createSession}}]
  - id: test-as-definition
    query: how do tests fake refresh
    accepted: [{{file: test/auth/refresh.spec.ts, roles: [definition]}}]
  - id: forbids-itself
    query: legacy session handling
    accepted: [{{file: src/legacy/session.ts}}]
    forbidden: ["src/legacy/"]
  - id: ambiguous-prefix
    query: validate refresh token
    accepted: [{{file: src/auth/refresh.ts, symbol: validateRefreshToken}}]
    forbidden: ["src/auth/session"]
  - id: glob-nothing
    query: any kotlin file
    accepted: [{{file: "src/**/*.kt"}}]
  - id: clean
    query: validateRefreshToken definition
    accepted: [{{file: src/auth/refresh.ts, symbol: validateRefreshToken, roles: [definition]}}]
"""


@pytest.fixture(scope="module")
def indexes(example_repo: tuple[Path, dict[str, str]],
            tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, shas = example_repo
    root = tmp_path_factory.mktemp("check") / "idx"
    for sha in sorted(set(shas.values())):
        build_index(str(repo), sha, root / sha)
    return root


def test_the_example_cases_have_no_label_errors(indexes: Path) -> None:
    done = CliRunner().invoke(cli, ["cases", "check", str(EXAMPLE / "cases.yaml"), "--index",
                                    str(indexes)])
    assert done.exit_code == 0, done.output
    assert "0 errors" in done.output


def test_planted_label_mistakes_are_found(indexes: Path, tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(PLANTED)
    done = CliRunner().invoke(cli, ["cases", "check", str(cases), "--index", str(indexes),
                                    "--json"])
    assert done.exit_code == 1, done.output
    report = json.loads(done.output)
    codes = {(f["case_id"], f["code"]) for f in report["findings"]}
    assert ("moved-file", "file_missing") in codes
    assert ("wrong-qualifier", "symbol_missing") in codes
    assert ("test-as-definition", "role_mismatch") in codes
    assert ("forbids-itself", "forbidden_target") in codes
    assert ("ambiguous-prefix", "forbidden_prefix_ambiguous") in codes
    assert ("glob-nothing", "glob_matches_nothing") in codes
    assert not [f for f in report["findings"] if f["case_id"] == "clean"]
    by_case = {f["case_id"]: f for f in report["findings"] if f["severity"] == "error"}
    assert "src/auth/session-service.ts" in by_case["moved-file"]["suggestions"]
    assert any("SessionService.createSession" in s
               for s in by_case["wrong-qualifier"]["suggestions"])
    assert report["errors"] == 6 - 1  # the ambiguous prefix is a warning


def test_a_revision_without_an_index_is_an_error(indexes: Path, tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(PLANTED.replace(V2, "a" * 40))
    done = CliRunner().invoke(cli, ["cases", "check", str(cases), "--index", str(indexes)])
    assert done.exit_code == 1
    assert "no index for revision" in done.output
