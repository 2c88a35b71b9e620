"""The gold cases load, cover what issue 6 asks, and are not stale at their revisions."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

from codegold.evaluate.match import file_matches
from codegold.model import load_cases

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"

CASES = str(EXAMPLE / "cases.yaml")


def test_case_file_covers_every_kind_of_case() -> None:
    cases = load_cases(CASES).cases
    assert len(cases) >= 40
    classes = Counter(case.query_class for case in cases)
    assert set(classes) == {"exact_identifier", "descriptive", "stack_trace", "example_request"}
    assert any(case.context and case.context.open_file for case in cases)
    assert any(case.context is None for case in cases)
    assert any(not group.required for case in cases for group in case.groups)
    traps = {pattern for case in cases for pattern in case.forbidden}
    assert {"src/legacy/", "src/generated/", "vendor/"} <= traps
    assert all(case.rationale for case in cases)
    assert len({case.revision for case in cases}) == 2
    ids = {case.id for case in cases}
    assert {"session-expiry", "webhook-parse-signature", "retry-policy-definition"} <= ids


def test_every_target_exists_at_its_revision(example_repo: tuple[Path, dict[str, str]]) -> None:
    """A label naming a file or symbol absent at the pinned revision would be stale."""
    repo, _ = example_repo
    listing: dict[str, list[str]] = {}
    problems = []
    for case in load_cases(CASES).cases:
        if case.revision not in listing:
            listing[case.revision] = subprocess.run(
                ["git", "ls-tree", "-r", "--name-only", case.revision], cwd=repo, check=True,
                capture_output=True, text=True).stdout.split()
        for group in case.groups:
            for target in group.any_of:
                files = [p for p in listing[case.revision] if file_matches(target.file, p)]
                if not files:
                    problems.append(f"{case.id}: no file {target.file}")
                    continue
                if target.symbol is None:
                    continue
                name = target.symbol.rsplit(".", 1)[-1]
                texts = [subprocess.run(["git", "show", f"{case.revision}:{p}"], cwd=repo,
                                        check=True, capture_output=True, text=True).stdout
                         for p in files]
                if not any(name in text for text in texts):
                    problems.append(f"{case.id}: {target.symbol} not in {target.file}")
    assert problems == []
