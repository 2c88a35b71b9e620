"""codegold run (reference retriever, folder of indexes) + codegold eval, and codegold search."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.evaluate import evaluate_files
from codegold.model import iter_attempts


def _cases(path: Path, revision: str, other: str) -> Path:
    path.write_text(f"""format: 1
defaults: {{repository: acme/fixture, revision: {revision}, cutoff: 3}}
cases:
  - id: create
    query: How does create_session handle an expired refresh token?
    query_class: descriptive
    accepted: [{{file: src/auth/session_service.py, symbol: create_session, roles: [definition]}}]
  - id: trace
    query_class: stack_trace
    query: |
      Traceback (most recent call last):
        File "/srv/app/src/auth/refresh.py", line 5, in validate_refresh_token
    accepted: [{{file: src/auth/refresh.py, symbol: validate_refresh_token}}]
  - id: cart
    query: cart total
    context: {{open_file: web/cart.ts}}
    accepted: [{{file: web/cart.ts, symbol: cartTotal}}]
  - id: elsewhere
    revision: {other}
    query: create_session
    accepted: [{{file: src/auth/session_service.py}}]
""")
    return path


def test_run_reference_then_eval(fixture_index: Path, fixture_repo: tuple[Path, str],
                                 tmp_path: Path) -> None:
    _, revision = fixture_repo
    folder = tmp_path / "indexes"
    folder.mkdir()
    shutil.copytree(fixture_index, folder / "rev1")
    cases = _cases(tmp_path / "cases.yaml", revision, "f" * 40)
    out = tmp_path / "attempts.jsonl"
    result = CliRunner().invoke(cli, ["run", str(cases), "--index", str(folder), "-o", str(out),
                                      "--workers", "2", "--quiet"])
    # "elsewhere" has no index of its revision: an error attempt, so exit 3 (all written)
    assert result.exit_code == 3, result.output
    assert "case elsewhere: no index for revision" in result.output
    attempts = {a.case_id: a for a in iter_attempts(str(out))}
    assert set(attempts) == {"create", "trace", "cart", "elsewhere"}
    good = attempts["create"]
    assert good.error is None and good.manifest is not None
    assert good.manifest.revision == revision and good.manifest.complete
    assert good.query is not None and good.query.rewritten and "create_session" in good.query.rewritten
    assert good.candidates and len(good.ranked) >= 3
    assert good.context_ids == [c.chunk_id for c in good.ranked]
    assert good.timing_ms is not None and good.timing_ms["total"] > 0
    assert all(c.revision == revision for c in good.ranked)
    assert attempts["elsewhere"].error is not None and "no index for revision" in attempts["elsewhere"].error
    statuses = {c.case_id: c.status for c in evaluate_files(str(cases), str(out)).cases}
    assert statuses == {"create": "pass", "trace": "pass", "cart": "pass", "elsewhere": "invalid"}


def test_search_cli(fixture_index: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["search", str(fixture_index), "create_session expired token",
                                 "-k", "3", "--explain"])
    assert result.exit_code == 0, result.output
    assert "src/auth/session_service.py:" in result.output
    assert "signals:" in result.output and "lexical=" in result.output
    assert "title terms:" not in result.output
    long = runner.invoke(cli, ["search", str(fixture_index),
                               "Expired token rejected\n\nThe session cart total is wrong.",
                               "-k", "2", "--explain"])
    assert long.exit_code == 0, long.output
    assert "title terms: expired token rejected" in long.output
    as_json = runner.invoke(cli, ["search", str(fixture_index), "cartTotal", "-k", "2", "--json"])
    assert as_json.exit_code == 0, as_json.output
    payload = json.loads(as_json.stdout)
    assert payload["ranked"][0]["file"] == "web/cart.ts"
    missing = runner.invoke(cli, ["search", "/nonexistent/index", "x"])
    assert missing.exit_code == 2 and missing.output.startswith("error:")


def test_run_builds_missing_indexes_from_repo(fixture_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, revision = fixture_repo
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"""format: 1
defaults: {{revision: {revision}, cutoff: 2}}
cases:
  - id: cart
    query: cartTotal
    accepted: [{{file: web/cart.ts}}]
""")
    out = tmp_path / "attempts.jsonl"
    folder = tmp_path / "indexes"
    result = CliRunner().invoke(cli, ["run", str(cases), "--repo", str(repo), "--index", str(folder),
                                      "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert (folder / revision / "manifest.json").is_file()
    statuses = {c.case_id: c.status for c in evaluate_files(str(cases), str(out)).cases}
    assert statuses == {"cart": "pass"}
