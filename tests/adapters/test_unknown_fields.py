"""A retriever answer with fields codegold does not read is still read: they are kept
under ``extra`` (and said once per run), never an error attempt."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codegold.adapters.protocol import decode_response, response_from_builtins
from codegold.cli.main import cli
from codegold.model import iter_attempts
from codegold.model.schema import json_schema


def test_an_extra_chunk_field_is_kept_not_fatal() -> None:
    payload = json.dumps({"ranked": [{"chunk_id": "a", "file": "x.py", "start_line": 1,
                                      "end_line": 9, "text": "def f(): ..."}],
                          "served_by": "bm25-7"}).encode()
    response = decode_response(payload, source="command:x")
    assert response.ranked[0].extra == {"text": "def f(): ..."}
    assert response.ranked[0].end_line == 9
    assert response.extra == {"served_by": "bm25-7"}
    # a bare list of chunks, and plain Python data, read the same way
    bare = decode_response(b'[{"chunk_id": "a", "file": "x.py", "text": "t"}]', source="s")
    assert bare.ranked[0].extra == {"text": "t"}
    data = response_from_builtins({"ranked": [{"chunk_id": "a", "file": "x.py", "score2": 1}]},
                                  source="python:m:f")
    assert data.ranked[0].extra == {"score2": 1}


def test_the_schemas_say_unknown_fields_go_under_extra() -> None:
    attempts = json.dumps(json_schema("attempts"))
    assert '"extra"' in attempts


def test_run_says_once_and_every_case_is_scored(cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "attempts.jsonl"
    result = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(out),
                                      "--retriever", "python:fake_retrievers:with_extra_fields"])
    assert result.exit_code == 0, result.output
    assert result.output.count("fields codegold does not read") == 1
    assert "ranked[].text" in result.output and "debug" in result.output
    attempts = list(iter_attempts(str(out)))
    assert attempts and all(a.error is None for a in attempts)
    assert all(c.extra and "text" in c.extra for a in attempts for c in a.ranked)
    assert attempts[0].extra == {"debug": {"took": 3}}


def test_the_response_schema_accepts_unknown_fields() -> None:
    schema = json_schema("retrieval-response")
    for name in ("RetrievalResponse", "Chunk"):
        assert schema["$defs"][name]["additionalProperties"] is True
        assert "extra" in schema["$defs"][name]["description"]
