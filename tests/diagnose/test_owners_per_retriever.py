"""owners.yaml keyed by retriever id: an external retriever's own causes go to its team."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from fakeindex import FakeIndex, entry, ichunk, sdef

from codegold.diagnose import diagnose_run, load_owners
from codegold.errors import SchemaError
from codegold.model import Attempt, Query, encode_attempt
from runfactory import chunk, make_case, make_result, make_run

OWNERS = """format: 1
owners: {stale_label: eval-dataset}
default: search
retrievers:
  "command:node my.js": {below_cutoff: team-x-ranking, default: team-x}
  "python:acme.rag:search": {retrieval_miss: acme-rag}
"""


def _owners(tmp_path: Path, text: str = OWNERS) -> Path:
    path = tmp_path / "owners.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_retriever_entry_wins_and_its_default_takes_only_its_own_stages(tmp_path: Path) -> None:
    owners = load_owners(str(_owners(tmp_path)))
    node = "command:node my.js"
    assert owners.owner_of("below_cutoff", node) == "team-x-ranking"
    assert owners.owner_of("retrieval_miss", node) == "team-x"
    assert owners.owner_of("metadata_mismatch", node) == "team-x"
    assert owners.owner_of("split_context", node) == "team-x"
    # dataset and index-manifest causes keep the file-wide routing
    assert owners.owner_of("stale_label", node) == "eval-dataset"
    assert owners.owner_of("invalid_run", node) == "search"
    # a retriever without a default: listed causes only
    assert owners.owner_of("retrieval_miss", "python:acme.rag:search") == "acme-rag"
    assert owners.owner_of("below_cutoff", "python:acme.rag:search") == "search"
    # no retriever, or one the file does not name: as before
    assert owners.owner_of("retrieval_miss") == "search"
    assert owners.owner_of("retrieval_miss", "command:other") == "search"


@pytest.mark.parametrize("text, words", [
    ("format: 1\nretrievers: {x: {nonsense: t}}\n", "nonsense"),
    ("format: 1\nretrievers: {x: {retrieval_miss: ''}}\n", "retrievers"),
    ("format: 1\nretrievers: [a, b]\n", "retrievers"),
    ("format: 1\nretrievers: {x: team}\n", "retrievers"),
])
def test_bad_retriever_entries_are_schema_errors(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(SchemaError, match=words):
        load_owners(str(_owners(tmp_path, text)))


def test_diagnosis_routes_by_the_attempts_retriever(tmp_path: Path) -> None:
    results, attempts = [], []
    for name, retriever in (("ours", None), ("theirs", "command:node my.js")):
        result = make_result(make_case(name), rank=None)
        results.append(result)
        attempts.append(Attempt(
            attempt_id=result.attempt_id or "", case_id=name, retriever=retriever,
            ranked=[chunk(f"n{i}", f"src/other{i}.py", symbol=f"other{i}") for i in range(5)],
            query=Query(raw=result.case.query)))
    path = tmp_path / "attempts.jsonl"
    path.write_bytes(b"".join(encode_attempt(a) + b"\n" for a in attempts))
    run = make_run(results, attempts_path=str(path))
    svc = "src/auth/session.py"
    index = FakeIndex([ichunk("svc-1", svc, 1, 20, symbol="SessionService.createSession",
                              text="class SessionService:\n    def createSession(self): ...\n")],
                      [entry(svc)], [sdef("SessionService.createSession", svc, 2, 20, "svc-1")])
    summary, _ = diagnose_run(run, index=index,
                              owners=load_owners(str(_owners(tmp_path))))
    by_case = {d.case_id: d for d in summary.diagnoses}
    assert by_case["ours"].cause == by_case["theirs"].cause == "retrieval_miss"
    assert by_case["theirs"].owner.startswith("team-x"), msgspec.to_builtins(by_case["theirs"])
    assert by_case["ours"].owner == "search"
