"""The example generator is deterministic and the case file pins its real shas."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from types import ModuleType

from codegold.model import load_cases

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


def _pinned_shas() -> dict[str, str]:
    """The ``v1 = <sha>`` lines of the header comment in cases.yaml."""
    text = (EXAMPLE / "cases.yaml").read_text(encoding="utf-8")
    return dict(re.findall(r"^#\s+(v\d+) = ([0-9a-f]{40})", text, flags=re.M))


def test_regenerating_gives_the_shas_pinned_in_cases(example_repo: tuple[Path, dict[str, str]]) -> None:
    _, shas = example_repo
    assert shas == _pinned_shas()
    revisions = {case.revision for case in load_cases(str(EXAMPLE / "cases.yaml")).cases}
    assert revisions == set(shas.values())


def test_two_builds_are_identical(build_example: ModuleType, tmp_path: Path,
                                  example_repo: tuple[Path, dict[str, str]]) -> None:
    assert build_example.build(tmp_path / "again") == example_repo[1]


def test_tags_and_contents(example_repo: tuple[Path, dict[str, str]]) -> None:
    repo, shas = example_repo
    assert _git(repo, "rev-parse", "v1").strip() == shas["v1"]
    v1 = set(_git(repo, "ls-tree", "-r", "--name-only", "v1").split())
    v2 = set(_git(repo, "ls-tree", "-r", "--name-only", "v2").split())
    assert 60 <= len(v2) <= 120
    assert {"src/legacy/session.ts", "src/auth/session-service.ts", "src/retry/policy.ts",
            "src/generated/api-client.ts", "billing/billing/invoice.py"} <= v2
    assert any(p.startswith("vendor/") for p in v2) and any(p.startswith("migrations/") for p in v2)
    assert v2 - v1 == {"src/http/rate-limit.ts", "migrations/004_add_session_device.sql"}
    assert v1 - v2 == {"src/legacy/cookies.ts"}
    retry_users = [p for p in v2 if p.startswith("test/") and "RetryPolicy" in
                   _git(repo, "show", f"v2:{p}")]
    assert len(retry_users) >= 5


def test_refuses_a_non_empty_output(build_example: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("x")
    try:
        build_example.build(tmp_path)
    except build_example.BuildError as err:
        assert "not empty" in str(err)
    else:
        raise AssertionError("build() wrote into a non-empty directory")
