"""The shortcuts that keep `codegold eval` near the decode floor (issue 26) answer exactly
what the slow, obvious rule answers: each is checked against that rule here."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.errors import SchemaError
from codegold.evaluate.engine import evaluate_attempts
from codegold.evaluate.match import GroupMatcher
from codegold.evaluate.score import CaseScorer
from codegold.model import Attempt, Case, CaseSet, Chunk, EvidenceGroup, Target
from codegold.model.attempts import MAX_CHUNKS, too_many_chunks
from codegold.model.io import reading as _files
from codegold.model.io import refuse_duplicate_keys
from codegold.model.paths import all_canonical, is_canonical

# Paths built from the characters that decide canonical form.
_PATHS = st.text(alphabet="ab/.\\\n", max_size=8)


@settings(max_examples=2000, deadline=None)
@given(st.lists(_PATHS, max_size=6))
def test_all_canonical_is_is_canonical_of_each(paths: list[str]) -> None:
    assert all_canonical(paths) == all(is_canonical(p) for p in paths)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(["src/a.py", "./src/a.py", "src//a.py", "src/b.py", "a.py",
                                 "/src/a.py", "src/x/../a.py", "lib/a.py"]), max_size=12),
       st.booleans())
def test_candidates_are_the_chunks_may_match_lets_through(files: list[str], glob: bool) -> None:
    targets = [Target(file="src/a.py"), Target(file="a.py")]
    if glob:
        targets.append(Target(file="lib/*.py"))
    matcher = GroupMatcher((("g", True, tuple(targets)),))
    chunks = [Chunk(chunk_id=f"c{i}", file=f) for i, f in enumerate(files)]
    expected = [i for i, c in enumerate(chunks) if matcher.may_match(c.file)]
    assert list(matcher.candidates(chunks)) == expected
    # and no chunk left out satisfies a group
    assert all(not matcher.satisfied(c) for i, c in enumerate(chunks) if i not in expected)


@pytest.mark.parametrize("line", [
    '{"a": 1, "a": 2}',                               # colons == keys once decoded + 1
    '{"a": {"b": 1, "b": 2}}',
    '{"a": [{"k": "x"}, {"k": "y", "k": "z"}]}',
    '{"q": "x:y", "a": 1, "a": 2}',                   # a colon in a string as well
    '{"a\\u003a": 1, "a\\u003a": 2}',                 # an escaped colon in a key
])
def test_a_repeated_key_is_refused_with_the_decoded_value_given(line: str) -> None:
    raw = line.encode()
    with pytest.raises(SchemaError, match="duplicate key"):
        refuse_duplicate_keys(raw, "x.jsonl", 1, decoded=json.loads(raw))


@pytest.mark.parametrize("line", [
    '{"a": 1, "b": {"c": [1, {"d": 2}]}}',
    '{"q": "where: here", "a": 1}',                   # more colons than keys: full check
    '{"a\\u003a": 1, "b": "\\u003a"}',
    '[]',
])
def test_distinct_keys_pass_with_the_decoded_value_given(line: str) -> None:
    raw = line.encode()
    refuse_duplicate_keys(raw, "x.jsonl", 1, decoded=json.loads(raw))


def test_too_many_chunks_counts_only_lines_long_enough_to_hold_them() -> None:
    key = b'"chunk_id"'
    assert too_many_chunks(key * (2 * MAX_CHUNKS)) is None
    assert too_many_chunks(key * (2 * MAX_CHUNKS + 1)) == 2 * MAX_CHUNKS + 1
    assert too_many_chunks(b"x" * 10 * (2 * MAX_CHUNKS + 1)) is None


def test_the_first_acceptable_chunk_past_the_trend_depth_is_found() -> None:
    """The first acceptable chunk at any depth is found past rank 20 and past non-canonical
    paths, as the chunk-by-chunk rule finds it."""
    case = Case(id="c", query="q", repository=None, revision="a" * 40, cutoff=2,
                query_class="x", groups=(EvidenceGroup(id="g", required=True,
                                                       any_of=(Target(file="src/a.py"),)),))
    files = ["src/b.py"] * 30 + ["./src/a.py", "src/a.py"]
    attempt = Attempt(attempt_id="a", case_id="c",
                      ranked=[Chunk(chunk_id=f"c{i}", file=f, revision="a" * 40)
                              for i, f in enumerate(files)])
    result = CaseScorer(case).score(attempt)
    assert result.first_relevant_rank is None
    assert result.first_relevant_rank_any_depth == 31
    assert result.group_ranks == [None]  # past the trend depth: not a trend rank


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=40).map(lambda b: b.replace(b"\x00", b"\n")),
       st.integers(min_value=1, max_value=9), st.integers(min_value=1, max_value=12))
def test_block_lines_are_bounded_lines_and_hash_every_byte(
        data: bytes, block: int, longest: int) -> None:
    """Read in blocks on one side and line by line on the other: the same lines, the same
    error on the same line, and the checksum of every byte."""
    def run(read: Callable[[io.BytesIO], Iterator[tuple[int, bytes]]]) -> tuple[object, ...]:
        got: list[tuple[int, bytes]] = []
        try:
            for item in read(io.BytesIO(data)):
                got.append(item)
        except SchemaError as err:
            return (*got, err.line)
        return tuple(got)

    digest = hashlib.sha256()
    with mock.patch.object(_files, "MAX_LINE_BYTES", longest), \
            mock.patch.object(_files, "_BLOCK_BYTES", block):
        slow = run(lambda handle: _files.bounded_lines(handle, "x"))
        fast = run(lambda handle: _files.block_lines(handle, "x", digest.update))
    assert fast == slow
    if not slow or not isinstance(slow[-1], int):  # read to the end: every byte hashed
        assert digest.hexdigest() == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(("attempts", "warned", "chosen", "ids"), [
    ([("a", None)], False, "a", ["a"]),
    ([("a", "elsewhere")], False, "a", ["a"]),    # names an attempt not in the file
    ([("a", "a")], True, "a", ["a"]),             # a retry of itself: none is final
    ([("a", None), ("b", "a")], False, "b", ["a", "b"]),
    ([("a", None), ("b", None)], True, "b", ["a", "b"]),
])
def test_a_case_with_one_attempt_is_decided_as_one_with_many(
        attempts: list[tuple[str, str | None]], warned: bool, chosen: str, ids: list[str]) -> None:
    case = Case(id="c", query="q", repository=None, revision="a" * 40, cutoff=2,
                query_class="x", groups=(EvidenceGroup(id="g", required=True,
                                                       any_of=(Target(file="a.py"),)),))
    result = evaluate_attempts(CaseSet(path="p", sha256="s", cases=(case,)),
                               [Attempt(attempt_id=a, case_id="c", retry_of=r)
                                for a, r in attempts])
    assert bool(result.warnings) == warned, result.warnings
    assert (result.cases[0].attempt_id, result.cases[0].attempt_ids) == (chosen, ids)


def test_a_read_error_in_block_lines_is_raised_to_the_reader() -> None:
    class Failing(io.BytesIO):
        def read1(self, size: int = -1) -> bytes:
            raise OSError(5, "Input/output error")

    with pytest.raises(OSError, match="Input/output error"):
        list(_files.block_lines(Failing(b"a\n"), "x", hashlib.sha256().update))


_SECRETISH = st.sampled_from(["", "ab", "login_handler", "password=hunter2xyz99",
                              "AKIAIOSFODNN7EXAMPLE", "token ghp_" + "a1" * 18])


@settings(max_examples=500, deadline=None)
@given(symbol=st.none() | _SECRETISH, symbols=st.lists(_SECRETISH, max_size=2),
       excerpt=st.none() | _SECRETISH, tool=st.none() | _SECRETISH,
       extra=st.none() | st.dictionaries(st.sampled_from(["text", "k"]), _SECRETISH, max_size=2),
       role=st.none() | st.sampled_from(["definition", "test"]) | _SECRETISH,
       language=st.none() | st.sampled_from(["python", "go"]) | _SECRETISH)
def test_chunks_skipped_by_redaction_hold_nothing_it_would_change(
        symbol: str | None, symbols: list[str], excerpt: str | None, tool: str | None,
        extra: dict[str, str] | None, role: str | None, language: str | None) -> None:
    """Redaction on read skips chunks that hold no free text; the skip never leaves a
    chunk that the full per-chunk redaction would have changed."""
    from codegold.model.attempts import _clean_chunk, _clean_chunks

    chunk = Chunk(chunk_id="c", file="src/a.py", symbol=symbol, symbols=tuple(symbols),
                  excerpt=excerpt, tool=tool, extra=extra, role=role, language=language)
    assert _clean_chunks([chunk]) == [_clean_chunk(chunk)]


_MANIFESTS = st.sampled_from(["acme/shop", "https://u:ghp_" + "a1" * 18 + "@github.com/acme/shop",
                              "other/repo", None])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_MANIFESTS, st.sampled_from(["tree-sitter", "AKIAIOSFODNN7EXAMPLE"])),
                min_size=1, max_size=6))
def test_a_remembered_manifest_is_cleaned_as_a_fresh_one(
        manifests: list[tuple[str | None, str]]) -> None:
    """Attempts carrying the manifest the previous one carried reuse its clean form; the
    result is always what cleaning that manifest alone gives (the same object when it
    holds no secret)."""
    from codegold.model.attempts import _clean_manifest, _cleaned_manifest
    from codegold.model.manifest import ChunkerInfo, Manifest

    for repository, chunker in manifests:
        manifest = Manifest(repository=repository, chunker=ChunkerInfo(name=chunker, version="1"))
        clean, fresh = _clean_manifest(manifest), _cleaned_manifest(manifest)
        assert clean == fresh
        assert (clean is manifest) == (fresh is manifest)


def _attempt_lines(count: int) -> bytes:
    return b"".join(json.dumps({"attempt_id": f"a{i}", "case_id": f"c{i}"}).encode() + b"\n"
                    for i in range(count))


@pytest.mark.parametrize("block", [1, 7, 1 << 24])
def test_the_digest_made_ahead_is_the_files_and_the_lines_are_those_read_in_line(
        tmp_path: Path, block: int) -> None:
    """An attempts file hashed on a thread (in blocks of any size) gives the file's
    SHA-256 and the same attempts as a file read line by line without a digest."""
    from codegold.model.attempts import AttemptsFile, iter_attempts

    path = tmp_path / "attempts.jsonl"
    path.write_bytes(_attempt_lines(50) + b"\n")  # a blank last line is skipped
    ahead = hashlib.sha256()
    with mock.patch.object(_files, "_AHEAD_BYTES", block), \
            AttemptsFile(str(path), ahead) as attempts:
        assert attempts._ahead is not None  # a regular file: hashed on the thread
        got = list(attempts)
    assert got == list(iter_attempts(str(path))) and len(got) == 50
    assert ahead.hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_attempts_file_written_to_while_it_is_read_is_refused(tmp_path: Path) -> None:
    """The digest names the bytes scored: a file appended to between the start of the
    hash and the end of the reading could be scored on lines the digest never saw."""
    from codegold.errors import InputError
    from codegold.model.attempts import AttemptsFile

    path = tmp_path / "attempts.jsonl"
    path.write_bytes(_attempt_lines(3))
    with AttemptsFile(str(path), hashlib.sha256()) as attempts:
        with path.open("ab") as more:
            more.write(_attempt_lines(1))
        with pytest.raises(InputError, match="changed while it was read"):
            list(attempts)


def test_a_pipe_of_attempts_is_hashed_as_it_is_read(tmp_path: Path) -> None:
    """A pipe can be read once: no thread, the digest made from the lines as they pass."""
    import os
    import threading

    from codegold.model.attempts import AttemptsFile

    data = _attempt_lines(20)
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        digest = hashlib.sha256()
        with AttemptsFile(f"/dev/fd/{read_end}", digest) as attempts:
            assert attempts._ahead is None
            assert [a.attempt_id for a in attempts] == [f"a{i}" for i in range(20)]
        assert digest.hexdigest() == hashlib.sha256(data).hexdigest()
    finally:
        writer.join()
        os.close(read_end)


def test_a_bad_case_file_is_reported_before_a_missing_attempts_file(tmp_path: Path) -> None:
    from codegold.errors import CodegoldError
    from codegold.evaluate.engine import evaluate_files

    cases = tmp_path / "cases.yaml"
    cases.write_text("format: 1\ncases: 3\n")
    with pytest.raises(CodegoldError) as caught:
        evaluate_files(str(cases), str(tmp_path / "absent.jsonl"))
    assert caught.value.path == str(cases)
    cases.write_text("format: 1\ncases:\n  - {id: q, query: w, revision: '%s', "
                     "cutoff: 5, accepted: [{file: a.py}]}\n" % ("a" * 40))
    with pytest.raises(CodegoldError, match="attempts file not found"):
        evaluate_files(str(cases), str(tmp_path / "absent.jsonl"))


def test_an_attempts_file_with_a_byte_order_mark_says_so(tmp_path: Path) -> None:
    from codegold.model.attempts import iter_attempts

    path = tmp_path / "attempts.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + _attempt_lines(1))
    with pytest.raises(SchemaError, match="byte-order mark") as caught:
        list(iter_attempts(str(path)))
    assert caught.value.line == 1


def test_without_pread_the_digest_is_made_as_the_file_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from codegold.model.attempts import AttemptsFile

    path = tmp_path / "attempts.jsonl"
    path.write_bytes(_attempt_lines(5))
    monkeypatch.delattr(os, "pread")
    digest = hashlib.sha256()
    with AttemptsFile(str(path), digest) as attempts:
        assert attempts._ahead is None
        assert len(list(attempts)) == 5
    assert digest.hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()
