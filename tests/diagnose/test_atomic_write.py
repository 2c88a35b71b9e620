"""The diagnosis folder is written whole or not at all: staged beside it, renamed into
place; a crash leaves the previous diagnosis, and a folder holding other files is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeindex import FakeIndex, entry, ichunk, sdef

import codegold.diagnose.engine as engine
from codegold.diagnose import diagnose_run, write_diagnosis_dir
from codegold.diagnose.engine import Diagnosed
from codegold.diagnose.records import DiagnosisSet
from codegold.errors import InputError
from runfactory import make_case, make_result, make_run

SVC = "src/auth/session.py"


def _diagnosis(*case_ids: str) -> tuple[DiagnosisSet, list[Diagnosed]]:
    index = FakeIndex([ichunk("svc-1", SVC, 1, 20, symbol="SessionService.createSession")],
                      [entry(SVC)], [sdef("SessionService.createSession", SVC, 2, 20, "svc-1")])
    run = make_run([make_result(make_case(c, file=SVC, symbol="SessionService.createSession"))
                    for c in case_ids])
    return diagnose_run(run, index=index)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_a_second_diagnosis_replaces_the_first_whole(tmp_path: Path) -> None:
    out = tmp_path / "diag"
    write_diagnosis_dir(*_diagnosis("first", "second"), out)
    assert any("second" in name for name in _tree(out))
    write_diagnosis_dir(*_diagnosis("first"), out)
    assert not any("second" in name for name in _tree(out))  # no stale bundle survives
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diag"]  # no staging left


def test_a_crash_while_writing_leaves_the_previous_diagnosis(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "diag"
    write_diagnosis_dir(*_diagnosis("first", "second"), out)
    before = _tree(out)

    def crash(*_args: object) -> str:
        raise KeyboardInterrupt  # the user pressed Ctrl-C half way

    monkeypatch.setattr(engine, "render_summary_markdown", crash)
    with pytest.raises(KeyboardInterrupt):
        write_diagnosis_dir(*_diagnosis("third"), out)
    assert _tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diag"]
    # and a first write that crashes leaves no folder at all
    with pytest.raises(KeyboardInterrupt):
        write_diagnosis_dir(*_diagnosis("third"), tmp_path / "fresh")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diag"]


def test_a_folder_with_other_files_is_refused_and_kept(tmp_path: Path) -> None:
    out = tmp_path / "notes"
    out.mkdir()
    (out / "mine.txt").write_text("keep", encoding="utf-8")
    with pytest.raises(InputError, match=r"mine\.txt"):
        write_diagnosis_dir(*_diagnosis("first"), out)
    assert _tree(out) == {"mine.txt": b"keep"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]
