"""Span resolution on the bundled example: a retriever that returns only files and line
windows is judged, case by case, the same as the same chunks carrying codegold's symbols."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import msgspec
import pytest
import yaml
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.evaluate import evaluate_files
from codegold.index import build_index
from codegold.index.store import IndexReader
from codegold.model import Chunk, Resolution, iter_attempts
from codegold.resolve import AttemptResolver, SpanResolver

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
GREP = Path(__file__).resolve().parents[2] / "examples" / "retrievers" / "grep_retriever.js"
V2 = "64cf94f743b6c391bbdfd61ebebeda5d06377c57"


@pytest.fixture(scope="module")
def indexes(example_repo: tuple[Path, dict[str, str]],
            tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, shas = example_repo
    root = tmp_path_factory.mktemp("resolve") / "idx"
    for sha in sorted(set(shas.values())):
        build_index(str(repo), sha, root / sha)
    return root


def _statuses(cases: Path, attempts: Path, resolve: Path | None = None
              ) -> dict[str, tuple[str, int | None]]:
    if resolve is None:
        result = evaluate_files(str(cases), str(attempts))
    else:
        with AttemptResolver.from_path(resolve) as resolver:
            result = evaluate_files(str(cases), str(attempts),
                                    prepare=lambda a, c: resolver.resolve(a, c.revision))
    return {c.case_id: (c.status, c.first_relevant_rank) for c in result.cases}


def test_line_windows_score_like_annotated_chunks(indexes: Path, tmp_path: Path) -> None:
    cases = EXAMPLE / "cases.yaml"
    annotated = tmp_path / "annotated.jsonl"
    run = CliRunner().invoke(cli, ["run", str(cases), "--index", str(indexes), "-o",
                                   str(annotated), "--quiet"])
    assert run.exit_code == 0, run.output
    # The same rankings as a line-window retriever reports them: file and lines only.
    windows = tmp_path / "windows.jsonl"
    with windows.open("wb") as out:
        for attempt in iter_attempts(str(annotated)):
            bare = [Chunk(chunk_id="w:" + c.chunk_id, file=c.file, start_line=c.start_line,
                          end_line=c.end_line, revision=c.revision) for c in attempt.ranked]
            out.write(msgspec.json.encode(msgspec.structs.replace(
                attempt, ranked=bare, candidates=None)) + b"\n")
    expected = _statuses(cases, annotated)
    strict = _statuses(cases, windows)
    resolved = _statuses(cases, windows, resolve=indexes)
    passed = sum(status == "pass" for status, _ in expected.values())
    assert passed >= 30
    assert sum(status == "pass" for status, _ in strict.values()) < passed / 4
    assert resolved == expected

    # The CLI option gives the same figures and records what was resolved.
    out = tmp_path / "results.json"
    done = CliRunner().invoke(cli, ["eval", str(cases), str(windows), "--resolve",
                                    str(indexes), "-o", str(out), "--quiet"])
    assert done.exit_code == 0, done.output
    data = json.loads(out.read_text())
    assert {c["case_id"]: (c["status"], c["first_relevant_rank"])
            for c in data["cases"]} == expected
    some = next(c for c in data["cases"] if c["status"] == "pass")
    assert some["ranked"][0]["resolved"]["rule"] in ("span", "category")


def test_resolution_rule(indexes: Path) -> None:
    with IndexReader.open(indexes / V2) as reader:
        spans = SpanResolver(reader)
        definitions = reader.definitions_in_file("src/auth/session-service.ts")
        method = next(d for d in definitions if d.qualified.endswith("createSession"))
        # A window that holds only the header line of the method.
        header = spans.resolution(Chunk(chunk_id="a", file="src/auth/session-service.ts",
                                        start_line=method.start_line,
                                        end_line=method.start_line))
        assert method.qualified in header.symbols and header.role == "definition"
        assert header.revision == V2 and header.revision_from == "assumed"
        # A file that is not indexed resolves nothing: the reported metadata is judged.
        missing = spans.resolution(Chunk(chunk_id="b", file="nowhere.ts", start_line=1,
                                         end_line=3, symbol="x", role="definition"))
        assert missing.rule == "not_indexed"
        chunk = Chunk(chunk_id="b", file="nowhere.ts", symbol="x", role="definition",
                      resolved=missing)
        assert chunk.judged_symbols() == ("x",) and chunk.judged_role() == "definition"
        # An excerpt that is not the text at this revision leaves the revision unknown.
        wrong = spans.resolution(Chunk(chunk_id="c", file="src/auth/session-service.ts",
                                       start_line=method.start_line, end_line=method.end_line,
                                       excerpt="nothing like this\nappears in the file\nat all"))
        assert wrong.revision is None and wrong.note
        # A test file's span resolves to role test whatever it defines.
        tests = [e.path for e in reader.iter_inventory()
                 if e.category == "test" and e.fate == "indexed"]
        role = spans.resolution(Chunk(chunk_id="d", file=tests[0], start_line=1, end_line=5))
        assert role.role == "test"
    assert isinstance(header, Resolution)


@pytest.mark.skipif(shutil.which("node") is None, reason="the example retriever is a Node script")
def test_external_line_window_retriever_through_command(
        example_repo: tuple[Path, dict[str, str]], indexes: Path, tmp_path: Path) -> None:
    repo, _ = example_repo
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(repo), str(checkout)], check=True)
    subprocess.run(["git", "-C", str(checkout), "checkout", "-q", V2], check=True)
    cases = tmp_path / "cases.yaml"
    data = yaml.safe_load((EXAMPLE / "cases.yaml").read_text())
    data["cases"] = [c for c in data["cases"] if c.get("revision", V2) == V2]
    cases.write_text(yaml.safe_dump(data))
    figures: dict[str, int] = {}
    for mode in ("strict", "resolved"):
        out = tmp_path / f"{mode}.jsonl"
        extra = ["--resolve"] if mode == "resolved" else []
        done = CliRunner().invoke(cli, ["run", str(cases), "--index", str(indexes), "-o",
                                        str(out), "--quiet", "--retriever",
                                        f"command:node {GREP} {checkout}", *extra])
        assert done.exit_code == 0, done.output
        result = evaluate_files(str(cases), str(out))
        figures[mode] = sum(c.status == "pass" for c in result.cases)
        if mode == "resolved":
            chunk = next(iter_attempts(str(out))).ranked[0]
            assert chunk.symbol is None and chunk.resolved is not None
    assert figures["resolved"] > 3 * max(1, figures["strict"])
