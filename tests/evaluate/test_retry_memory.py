"""Many retries of one case must not hold every attempt's scored ranking in memory.

The final attempt of a case is the one no other names in ``retry_of``; while streaming,
only attempts that may still be final keep their scored result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

from codegold.evaluate import evaluate_files
from goldkit import SHA_A, case, chunk, manifest, write_cases

RETRIES = 4_000
RANKED = 10


def _lines(retries: int) -> Iterator[str]:
    ranked = [chunk(f"c{i}", f"src/other{i}.py", "g", excerpt="x" * 200) for i in range(RANKED - 1)]
    ranked.append(chunk("hit", "src/a.py", "f"))
    head = {"case_id": "c1", "ranked": ranked, "manifest": manifest()}
    for n in range(retries):
        yield json.dumps({**head, "attempt_id": f"a{n}",
                          "retry_of": f"a{n - 1}" if n else None}) + "\n"


def _peak_bytes(tmp_path: Path, retries: int) -> tuple[int, float]:
    cases = write_cases(tmp_path, [case("c1", [{"file": "src/a.py", "symbol": "f"}])],
                        {"revision": SHA_A, "cutoff": RANKED})
    attempts = tmp_path / f"attempts-{retries}.jsonl"
    with attempts.open("w", encoding="utf-8") as handle:
        handle.writelines(_lines(retries))
    started = time.perf_counter()
    tracemalloc.start()
    try:
        result = evaluate_files(str(cases), str(attempts))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    (only,) = result.cases
    assert only.attempt_id == f"a{retries - 1}" and only.status == "pass"
    assert len(only.attempt_ids) == retries and result.warnings == []
    return peak, time.perf_counter() - started


def _peak_in_a_fresh_process(tmp_path: Path, retries: int) -> int:
    """``_peak_bytes`` in a new interpreter: ``eval`` runs once per process, and what
    earlier tests left in this one (memos, caches) must not count as held by retries."""
    folder = tmp_path / f"run-{retries}"
    folder.mkdir()
    code = ("import sys; from pathlib import Path; import test_retry_memory as t; "
            f"print(t._peak_bytes(Path(sys.argv[1]), {retries})[0])")
    tests = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parent), str(tests),
         *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True,
                          text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return int(proc.stdout.strip().splitlines()[-1])


def test_memory_stays_bounded_over_many_retries_of_one_case(tmp_path: Path) -> None:
    small = _peak_in_a_fresh_process(tmp_path, RETRIES // 10)
    large = _peak_in_a_fresh_process(tmp_path, RETRIES)
    # What grows with retries is the list of attempt ids results.json reports (and the set
    # that finds duplicates): a few hundred bytes per retry, never a scored ranking each
    # (about 10 kB per retry here before the fix).
    per_retry = (large - small) / (RETRIES - RETRIES // 10)
    assert per_retry < 600, f"{per_retry:.0f} bytes held per retry"
