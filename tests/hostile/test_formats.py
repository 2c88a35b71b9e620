"""Hostile YAML/JSON/JSONL documents through the CLI: each becomes exit 2 with one
``error:`` line naming the file, never a traceback, a hang or a memory blow-up.

Document classes: alias bombs (nested and wide), nesting 10,000 deep (YAML flow, YAML
block, JSON), alias cycles, lists and mappings as mapping keys, non-UTF-8 bytes, byte-
order marks, NUL bytes, JSONL lines that are not objects, out-of-range numbers (1e999,
5,000-digit integers, NaN, .inf), an absurd cutoff, empty and comment-only files, a
FIFO nobody writes to, a symlink loop, several YAML documents, Python tags. Each goes
to the command that reads that kind of file: ``eval`` (cases, attempts), ``run --config``
(retriever config), ``diagnose --owners`` (owners), ``index --policy`` (path policy).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from codegold.errors import InputError
from codegold.model import load_cases
from goldkit import SHA_A, attempt, case, chunk, write_attempts, write_cases
from hostilekit import assert_clean_error, assert_sentinels, plant_sentinels, run_cli

TIMEOUT = 60
MEMORY = 2 * 1024**3


def _bomb() -> str:
    text = "format: 1\nanchors:\n  - &a0 [" + ", ".join(["lol"] * 9) + "]\n"
    for level in range(1, 9):
        text += f"  - &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]\n"
    return text + "cases: [*a8]\n"


def _wide_alias() -> str:
    """One anchor of 2,000 targets reused by 3,000 cases: 516 KB that expands to millions."""
    text = (f"format: 1\ndefaults: {{repository: r, revision: {SHA_A}, cutoff: 5}}\ncases:\n"
            "  - id: c0\n    query: q\n    accepted: &t [" + ", ".join(["{file: a.py}"] * 2000)
            + "]\n")
    return text + "".join(f"  - {{id: c{i}, query: q, accepted: *t}}\n" for i in range(1, 3000))


DEEP = 10_000
# (label, file name, content) for files read whole as one YAML/JSON document.
DOCUMENTS: list[tuple[str, str, bytes]] = [
    ("alias_bomb", "x.yaml", _bomb().encode()),
    ("wide_alias", "x.yaml", _wide_alias().encode()),
    ("alias_cycle", "x.yaml", b"format: 1\ncases: &a [*a]\n"),
    ("deep_flow_yaml", "x.yaml", b"format: 1\ncases: " + b"[" * DEEP + b"]" * DEEP + b"\n"),
    ("deep_map_yaml", "x.yaml", b"format: 1\ncases: " + b"{a: " * DEEP + b"1" + b"}" * DEEP),
    ("deep_block_yaml", "x.yaml", b"format: 1\ncases:\n"
     + b"".join(b" " * i + b"- \n" for i in range(0, 3000))),
    ("deep_json", "x.json", b'{"format": 1, "cases": ' + b"[" * DEEP + b"]" * DEEP + b"}"),
    ("list_key", "x.yaml", b"format: 1\n? [a, b]\n: 1\n"),
    ("mapping_key", "x.yaml", b"format: 1\n{a: 1}: 2\n"),
    ("latin1", "x.yaml", b"format: 1\ncases:\n  - id: caf\xe9\n"),
    ("utf8_bom", "x.yaml", b"\xef\xbb\xbfformat: 1\n"),
    ("utf16", "x.yaml", "format: 1\n".encode("utf-16")),
    ("utf8_bom_json", "x.json", b'\xef\xbb\xbf{"format": 1}'),
    ("nul_byte", "x.yaml", b"format: 1\x00\n"),
    ("huge_float_json", "x.json", b'{"format": 1, "x": 1e999}'),
    ("nan_json", "x.json", b'{"format": 1, "x": NaN}'),
    ("huge_int_yaml", "x.yaml", b"format: 1\nx: " + b"9" * 5000 + b"\n"),
    ("empty", "x.yaml", b""),
    ("empty_json", "x.json", b"  \n"),
    ("comments_only", "x.yaml", b"# nothing here\n"),
    ("scalar", "x.yaml", b"just text\n"),
    ("list_top", "x.json", b"[1, 2]"),
    ("two_documents", "x.yaml", b"format: 1\n---\nformat: 1\n"),
    ("python_tag", "x.yaml", b"format: 1\nx: !!python/object/apply:os.system [echo hi]\n"),
    ("format_2", "x.yaml", b"format: 2\n"),
    ("format_text", "x.yaml", b"format: one\n"),
    ("unterminated", "x.json", b'{"format": 1, "cases": [{"id": "a"'),
]
CASE_ONLY: list[tuple[str, str, bytes]] = [
    ("jsonl_not_object", "x.jsonl", b'{"format": 1}\n[1, 2]\n'),
    ("jsonl_string_line", "x.jsonl", b'{"format": 1}\n"case"\n'),
    ("jsonl_deep", "x.jsonl", b'{"format": 1}\n{"id": ' + b"[" * DEEP + b"]" * DEEP + b"}\n"),
    ("cutoff_1e9", "x.yaml", f"format: 1\ndefaults: {{revision: {SHA_A}, cutoff: 1000000000}}\n"
     "cases: [{id: a, query: q, accepted: [{file: a.py}]}]\n".encode()),
    ("cutoff_nan", "x.yaml", f"format: 1\ndefaults: {{revision: {SHA_A}, cutoff: .nan}}\n"
     "cases: [{id: a, query: q, accepted: [{file: a.py}]}]\n".encode()),
    ("missing_format", "x.yaml", b"cases: []\n"),
]
CONFIG_ONLY: list[tuple[str, str, bytes]] = [
    ("negative_rrf_k", "c.yaml", b"fusion: {rrf_k: -60}\n"),
    ("negative_b", "c.yaml", b"signals:\n  lexical: {b: -5}\n"),
    ("negative_k1", "c.yaml", b"signals:\n  lexical: {k1: -1}\n"),
    ("nan_weight", "c.yaml", b"fusion:\n  weights: {lexical: .nan}\n"),
    ("inf_weight", "c.yaml", b"fusion:\n  weights: {symbol: .inf}\n"),
    ("huge_weight_json", "c.json", b'{"fusion": {"weights": {"symbol": 1e999}}}'),
    ("unknown_key", "c.yaml", b"fusion: {wieghts: {}}\n"),
    ("unknown_signal", "c.yaml", b"fusion:\n  weights: {lexicl: 1}\n"),
]


def _ids(rows: list[tuple[str, str, bytes]]) -> list[str]:
    return [row[0] for row in rows]


def _write(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / "in" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(content)
    return path


def _good_cases(tmp_path: Path) -> Path:
    return write_cases(tmp_path, [case("a", [{"file": "src/a.py"}])], name="good.yaml")


def _eval_cases(tmp_path: Path, bad: Path) -> list[str | Path]:
    return ["eval", bad, "/dev/null", "-o", tmp_path / "out.json", "-q"]


def _eval_attempts(tmp_path: Path, bad: Path) -> list[str | Path]:
    return ["eval", _good_cases(tmp_path), bad, "-o", tmp_path / "out.json", "-q"]


def _run_config(tmp_path: Path, bad: Path) -> list[str | Path]:
    return ["run", _good_cases(tmp_path), "--config", bad, "-o", tmp_path / "a.jsonl", "-q"]


def _diagnose_owners(tmp_path: Path, bad: Path) -> list[str | Path]:
    cases = _good_cases(tmp_path)
    attempts = write_attempts(tmp_path, [attempt("a1", "a", [chunk("c1", "src/b.py")])])
    results = tmp_path / "results.json"
    proc = run_cli("eval", cases, attempts, "-o", results, "-q", timeout=TIMEOUT)
    assert results.exists(), proc.stderr
    return ["diagnose", results, "--owners", bad, "-o", tmp_path / "diag"]


def _index_policy(tmp_path: Path, bad: Path) -> list[str | Path]:
    return ["index", tmp_path, "--revision", "HEAD", "-o", tmp_path / "idx", "--policy", bad, "-q"]


Command = Callable[[Path, Path], list[str | Path]]


def _expect_clean(tmp_path: Path, command: Command, name: str, content: bytes) -> None:
    bad = _write(tmp_path, name, content)
    planted = plant_sentinels(tmp_path / "in")
    args = command(tmp_path, bad)
    proc = run_cli(*args, timeout=TIMEOUT, memory=MEMORY)
    assert_clean_error(proc, contains=str(bad))
    assert_sentinels(planted)
    assert bad.read_bytes() == content


@pytest.mark.parametrize(("label", "name", "content"), DOCUMENTS + CASE_ONLY,
                         ids=_ids(DOCUMENTS + CASE_ONLY))
def test_hostile_case_file(tmp_path: Path, label: str, name: str, content: bytes) -> None:
    _expect_clean(tmp_path, _eval_cases, name, content)


@pytest.mark.parametrize(("label", "name", "content"), DOCUMENTS + CONFIG_ONLY,
                         ids=_ids(DOCUMENTS + CONFIG_ONLY))
def test_hostile_retriever_config(tmp_path: Path, label: str, name: str, content: bytes) -> None:
    _expect_clean(tmp_path, _run_config, name, content)


OWNERS_AND_POLICY = [row for row in DOCUMENTS if row[0] in {
    "alias_bomb", "deep_flow_yaml", "deep_json", "list_key", "latin1", "utf8_bom",
    "huge_int_yaml", "empty", "format_2", "nan_json"}]


@pytest.mark.parametrize(("label", "name", "content"), [*OWNERS_AND_POLICY, ("unknown_cause", "o.yaml", b"format: 1\nowners: {stale_lable: data}\n"), ("blank_team", "o.yaml", b"format: 1\ndefault: ''\n")], ids=[*_ids(OWNERS_AND_POLICY), "unknown_cause", "blank_team"])
def test_hostile_owners_file(tmp_path: Path, label: str, name: str, content: bytes) -> None:
    _expect_clean(tmp_path, _diagnose_owners, name, content)


@pytest.mark.parametrize(("label", "name", "content"), [*OWNERS_AND_POLICY, ("empty_glob", "p.yaml", b"include: ['']\n"), ("zero_max_bytes", "p.yaml", b"max_bytes: 0\n")], ids=[*_ids(OWNERS_AND_POLICY), "empty_glob", "zero_max_bytes"])
def test_hostile_index_policy(tmp_path: Path, label: str, name: str, content: bytes) -> None:
    _expect_clean(tmp_path, _index_policy, name, content)


ATTEMPTS: list[tuple[str, bytes]] = [
    ("line_is_list", b"[1, 2]\n"),
    ("line_is_string", b'"attempt"\n'),
    ("deep_filters", b'{"attempt_id": "a", "case_id": "a", "query": {"raw": "q", "filters": '
     b'{"x": ' + b"[" * DEEP + b"]" * DEEP + b"}}}\n"),
    ("huge_score", b'{"attempt_id": "a", "case_id": "a", "ranked": '
     b'[{"chunk_id": "c", "file": "f", "score": 1e999}]}\n'),
    ("nan_score", b'{"attempt_id": "a", "case_id": "a", "ranked": '
     b'[{"chunk_id": "c", "file": "f", "score": NaN}]}\n'),
    ("latin1", b'{"attempt_id": "caf\xe9", "case_id": "a"}\n'),
    ("format_2", b'{"attempt_id": "a", "case_id": "a", "format": 2}\n'),
    ("truncated", b'{"attempt_id": "a", "case_id": '),
]


@pytest.mark.parametrize(("label", "content"), ATTEMPTS, ids=[a[0] for a in ATTEMPTS])
def test_hostile_attempts_file(tmp_path: Path, label: str, content: bytes) -> None:
    _expect_clean(tmp_path, _eval_attempts, "attempts.jsonl", content)


def test_fifo_without_writer_is_an_empty_file_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "in" / "cases.yaml"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    proc = run_cli(*_eval_cases(tmp_path, fifo), timeout=TIMEOUT, memory=MEMORY)
    assert_clean_error(proc, contains=[str(fifo), "empty"])


def test_symlink_loop(tmp_path: Path) -> None:
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    proc = run_cli(*_eval_cases(tmp_path, loop), timeout=TIMEOUT, memory=MEMORY)
    assert_clean_error(proc, contains=str(loop))
    proc = run_cli(*_run_config(tmp_path, loop), timeout=TIMEOUT, memory=MEMORY)
    assert_clean_error(proc, contains=str(loop))


@pytest.mark.parametrize("kind", ["directory", "socket"])
def test_not_a_regular_file_is_an_input_error(tmp_path: Path, kind: str) -> None:
    # The CLI's own argument check catches a directory first; the loader must too.
    target = tmp_path / "cases.yaml"
    if kind == "directory":
        target.mkdir()
    else:
        import socket

        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(target))
            with pytest.raises(InputError, match=r"cases\.yaml: cannot read cases file"):
                load_cases(str(target))
        return
    with pytest.raises(InputError, match="found a directory"):
        load_cases(str(target))


def test_error_names_the_line_of_an_alias_bomb(tmp_path: Path) -> None:
    bad = _write(tmp_path, "x.yaml", _bomb().encode())
    proc = run_cli(*_eval_cases(tmp_path, bad), timeout=TIMEOUT, memory=MEMORY)
    line = assert_clean_error(proc, contains=["alias"])
    assert f"{bad}:" in line


def test_legitimate_aliases_and_a_large_json_case_file_still_load(tmp_path: Path) -> None:
    text = (f"format: 1\ndefaults: {{repository: r, revision: {SHA_A}, cutoff: 5}}\n"
            "targets: []\ncases:\n  - id: c0\n    query: q\n    accepted: &t [{file: a.py}, "
            "{file: b.py, roles: [definition]}]\n")
    text = text.replace("targets: []\n", "")
    text += "".join(f"  - {{id: c{i}, query: q, accepted: *t}}\n" for i in range(1, 2000))
    path = _write(tmp_path, "ok.yaml", text.encode())
    assert len(load_cases(str(path)).cases) == 2000
    big = {"format": 1, "defaults": {"revision": SHA_A, "cutoff": 10},
           "cases": [{"id": f"c{i}", "query": "q " * 50, "accepted": [{"file": f"f{i}.py"}]}
                     for i in range(20_000)]}
    json_path = _write(tmp_path, "big.json", json.dumps(big).encode())
    assert len(load_cases(str(json_path)).cases) == 20_000
