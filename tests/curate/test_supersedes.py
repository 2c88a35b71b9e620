"""``supersedes`` in case files: earlier label versions, validated like the labels they
were, and shown by ``cases diff``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.errors import SchemaError
from codegold.model import load_cases

SHA, OLD = "a" * 40, "b" * 40
PRIOR = {"revision": OLD, "changed_at": "2026-03-01",
         "accepted": [{"file": "src/old/session.ts", "symbol": "createSession"}],
         "rationale": "before the auth move"}


def _write(path: Path, case: dict[str, Any]) -> Path:
    base = {"id": "c1", "query": "where is createSession defined",
            "accepted": [{"file": "src/auth/session.ts", "symbol": "createSession"}],
            "rationale": "moved to src/auth"}
    base.update(case)
    path.write_text(yaml.safe_dump({"format": 1, "defaults": {"revision": SHA, "cutoff": 5},
                                    "cases": [base]}))
    return path


def test_prior_labels_load_with_groups_or_accepted(tmp_path: Path) -> None:
    grouped = {"revision": OLD, "changed_at": "2026-02-01T10:00:00Z",
               "groups": [{"id": "def", "any_of": [{"file": "src/a.ts", "roles": ["definition"]}]},
                          {"id": "doc", "required": False, "any_of": [{"file": "docs/a.md"}]}]}
    case = load_cases(str(_write(tmp_path / "c.yaml", {"supersedes": [PRIOR, grouped]}))).cases[0]
    first, second = case.supersedes
    assert (first.revision, first.changed_at, first.rationale) == (OLD, "2026-03-01",
                                                                  "before the auth move")
    assert first.groups[0].any_of[0].file == "src/old/session.ts" and first.groups[0].required
    assert [g.required for g in second.groups] == [True, False]
    assert load_cases(str(_write(tmp_path / "d.yaml", {}))).cases[0].supersedes == ()


@pytest.mark.parametrize(("prior", "message"), [
    ({**PRIOR, "changed_at": "last week"}, "changed_at"),
    ({**PRIOR, "changed_at": "2026-13-45"}, "not a real date"),
    ({**PRIOR, "revision": "HEAD"}, "revision"),
    ({k: v for k, v in PRIOR.items() if k != "accepted"}, "no evidence"),
    ({**PRIOR, "groups": [{"id": "g", "any_of": [{"file": "x"}]}]}, "not both"),
    ({**PRIOR, "accepted": [{"file": "x", "roles": ["nonsense"]}]}, "roles"),
    ({**PRIOR, "author": "me"}, "author"),
    ({k: v for k, v in PRIOR.items() if k != "changed_at"}, "changed_at"),
])
def test_bad_prior_labels_are_located(tmp_path: Path, prior: dict[str, Any], message: str) -> None:
    path = _write(tmp_path / "c.yaml", {"supersedes": [PRIOR, prior]})
    with pytest.raises(SchemaError, match=message) as raised:
        load_cases(str(path))
    assert raised.value.case_id == "c1" or "supersedes" in str(raised.value)


def test_diff_shows_the_superseded_label(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml", {"accepted": [{"file": "src/old/session.ts",
                                                       "symbol": "createSession"}],
                                         "rationale": "before the auth move"})
    new = _write(tmp_path / "new.yaml", {"supersedes": [PRIOR]})
    done = CliRunner().invoke(cli, ["cases", "diff", str(old), str(new)])
    assert done.exit_code == 0, done.output
    assert "relabelled c1 (groups, supersedes)" in done.output
    assert ("supersedes 2026-03-01 at bbbbbbbbbbbb: accepted: src/old/session.ts createSession"
            " — before the auth move") in done.output
    assert "not kept in supersedes" not in done.output
    as_json = json.loads(CliRunner().invoke(cli, ["cases", "diff", str(old), str(new),
                                                  "--json"]).output)
    assert as_json[0]["prior_labels"][0]["revision"] == OLD


def test_diff_notes_a_relabel_without_history(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml", {"accepted": [{"file": "src/old/session.ts"}]})
    new = _write(tmp_path / "new.yaml", {})
    done = CliRunner().invoke(cli, ["cases", "diff", str(old), str(new)])
    assert done.exit_code == 0, done.output
    assert "relabelled c1 (groups)" in done.output
    assert "(the replaced label is not kept in supersedes)" in done.output


def test_hostile_history_text_is_terminal_safe(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml", {})
    new = _write(tmp_path / "new.yaml", {"supersedes": [
        {**PRIOR, "rationale": "ok\x1b[2J\x1b]0;pwned\x07", "accepted": [{"file": "a\x1b[31m.ts"}]}]})
    done = CliRunner().invoke(cli, ["cases", "diff", str(old), str(new)])
    assert done.exit_code == 0, done.output
    line = next(x for x in done.output.splitlines() if x.strip().startswith("supersedes"))
    assert "\x1b" not in line and "\x07" not in line
