"""The digest of an attempts file made ahead on a thread holds no copy of the file."""

from __future__ import annotations

import hashlib
import tracemalloc
from pathlib import Path

from codegold.model.io.reading import DigestAhead


def test_hashing_a_large_file_ahead_holds_no_copy_of_it(tmp_path: Path) -> None:
    # A streaming eval's memory must not follow the attempts file's size; the digest
    # thread once read 16 MiB blocks, so a 12 MB file was one 12 MB allocation at a time.
    path = tmp_path / "attempts.jsonl"
    data = (b'{"case_id": "c1", "ranked": []}\n' * 400_000)[:12 * 1024**2]
    path.write_bytes(data)
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        tracemalloc.start()
        try:
            ahead = DigestAhead.start(handle, str(path), "attempts", digest)
            assert ahead is not None
            ahead.finish(len(data))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert digest.hexdigest() == hashlib.sha256(data).hexdigest()
    assert peak < 3 * 1024**2, f"{peak} bytes traced while hashing a {len(data)}-byte file"


def test_a_file_of_a_few_bytes_and_an_empty_one_are_hashed_whole(tmp_path: Path) -> None:
    for data in (b"", b"x\n", b"y" * (1024**2 + 3)):
        path = tmp_path / "a.jsonl"
        path.write_bytes(data)
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            ahead = DigestAhead.start(handle, str(path), "attempts", digest)
            assert ahead is not None
            ahead.finish(len(data))
        assert digest.hexdigest() == hashlib.sha256(data).hexdigest()
