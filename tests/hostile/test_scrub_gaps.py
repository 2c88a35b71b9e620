"""Secrets that slipped past scrubbing (``cases from-log``) and index redaction: a key in
prose after the word "token", a token broken by a line break, hidden by a zero-width
character or percent-encoded, ``curl -u``, ``mysql -p``, a kubeconfig client key, a YAML
block scalar; redacting twice changes nothing; ``cases mine`` keeps co-authors' e-mail
addresses and squash-merge bodies out of queries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitrepo import Repo
from hostilekit import assert_no_traceback, run_cli

V2 = "64cf94f743b6c391bbdfd61ebebeda5d06377c57"
GH = "ghp_" + "Zr8Kq2Lm5Nx7Pb3Vd9Wf1Yh4Tj6Sc0Ga2Ue8"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
KUBE = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB"

# (text, the parts of the secret that must not survive)
LEAKS = {
    "prose-after-token": (f"the token {AWS_SECRET} should work", ["wJalrXUtnFEMI", "EXAMPLEKEY"]),
    "prose-secret-key-is": (f"my secret key is {AWS_SECRET}", ["wJalrXUtnFEMI"]),
    "split-by-newline": (f"here it is: {GH[:14]}\n{GH[14:]} done", [GH[4:14], GH[14:]]),
    "curl-u": ("curl -u deploy:Hunter2Secret https://x.example/api", ["Hunter2Secret"]),
    "curl-user": ("curl --user deploy:Hunter2Secret https://x.example/", ["Hunter2Secret"]),
    "mysql-p": ("mysql -h db -u root -pS3cretPassw0rd app", ["S3cretPassw0rd"]),
    "percent-encoded": ("see /x?t=%67%68%70%5F" + GH[4:], [GH[4:]]),
    "zero-width": (GH[:10] + "\u200b" + GH[10:], [GH[4:10], GH[10:]]),
    "kubeconfig": (f"users:\n- name: a\n  user:\n    client-key-data: {KUBE}\n", [KUBE[:20]]),
    "yaml-block": ("db:\n  password: |\n    correct-horse-battery-staple\n  host: x\n",
                   ["correct-horse"]),
}


def _from_log(tmp_path: Path, query: str) -> str:
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"id": "r1", "query": query, "repository": "acme/shop",
                               "revision": V2, "cited": ["src/a.py"]}) + "\n")
    out = tmp_path / "drafts.yaml"
    proc = run_cli("cases", "from-log", log, "-o", out, "--report", tmp_path / "scrub.json",
                   timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out.read_text(encoding="utf-8") + proc.stdout + proc.stderr


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_from_log_scrubs_it(tmp_path: Path, name: str) -> None:
    text, parts = LEAKS[name]
    written = _from_log(tmp_path, "where is login? " + text)
    for part in parts:
        assert part not in written, (name, written)
    assert "<SECRET:" in written


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_the_index_redacts_it(tmp_path: Path, name: str) -> None:
    text, parts = LEAKS[name]
    source = tmp_path / "notes.md"
    source.write_text(f"# Notes\n\n{text}\n", encoding="utf-8")
    proc = run_cli("index", "parse", source, "--text", timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for part in parts:
        assert part not in proc.stdout, (name, proc.stdout)


def test_scrubbing_scrubbed_text_changes_nothing(tmp_path: Path) -> None:
    once = "password: <SECRET:password>, x <SECRET:api_key> Bearer <SECRET:bearer_token>"
    written = _from_log(tmp_path, once)
    assert "<SECRET:<" not in written and "SECRET:<SECRET" not in written, written
    assert "<SECRET:api_key>" in written


def test_mine_keeps_co_authors_and_squashed_bodies_out(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"app/orders.py": "def place_order(cart):\n    return cart\n"})
    body = ("fix: place_order crashes on an empty cart (#12)\n\n"
            "Guard the empty cart.\n\n"
            "* wip token " + GH + "\n* more wip by jane@example.com\n\n"
            "Co-authored-by: Jane Roe <jane.roe@example.com>\n"
            "Signed-off-by: Bob <bob@corp.example>\n")
    repo.commit({"app/orders.py": "def place_order(cart):\n    return cart or []\n"},
                message=body)
    out = tmp_path / "mined.yaml"
    proc = run_cli("cases", "mine", repo.path, "-o", out, timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = out.read_text(encoding="utf-8")
    assert "place_order crashes" in text and "Guard the empty cart" in text
    for leaked in ("jane.roe@example.com", "bob@corp.example", "jane@example.com", GH, "wip"):
        assert leaked not in text, (leaked, text)
