"""One retriever behind three adapters: ``command:`` (a process per case),
``command+jsonl:`` (one process, a JSON line per case) and ``http://`` (a local server).

The retriever is ``examples/retrievers/windows_bm25.py`` (BM25 over 40-line windows of
the revision's files, read from git objects): in ``--once`` mode it rebuilds its corpus
for every case, as a one-shot command must; ``--serve`` and ``--http`` build it on the
first case of a revision and keep it. A fresh HTTP server is started for each round and
timed from its first request (its corpus is built then, as for ``--serve``); only the
command forms' first answer also carries the process start. Printed per
adapter, medians over ``--rounds`` interleaved rounds: the first answer, the mean of the
others ("steady"), p50 and p95 of all answers (the wall time the runner measures around
each request), and the ratios of steady mean and p50 to HTTP's.

    python benchmarks/adapters_latency.py --repo /work/.mirror \\
        --cases benchmarks/realcases/flask.yaml --limit 13

Only 127.0.0.1 is used (the HTTP server is started here on a free port).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from codegold.adapters.registry import RetrieverOptions, close_retriever, make_retriever
from codegold.adapters.runner import run_cases
from codegold.index.catalog import IndexSet
from codegold.model import decode_attempt, load_cases

ROOT = Path(__file__).resolve().parents[1]
WINDOWS = ROOT / "examples" / "retrievers" / "windows_bm25.py"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"the HTTP server did not listen on 127.0.0.1:{port} within 30 s")


def measure(spec: str, cases: list[Any], out: Path) -> tuple[float, list[float]]:
    out.unlink(missing_ok=True)
    retriever = make_retriever(spec, RetrieverOptions(timeout=300, retries=0))
    started = time.perf_counter()
    try:
        summary = run_cases(cases, retriever, IndexSet.empty(), out, label=spec,
                            require_index=False)
    finally:
        close_retriever(retriever)
    seconds = time.perf_counter() - started
    if summary.errors:
        raise SystemExit(f"{spec}: {summary.errors} error attempt(s), see {out}")
    walls = [decode_attempt(line, path=str(out), line_number=n).timing_ms["wall"]  # type: ignore[index]
             for n, line in enumerate(out.read_bytes().splitlines(), start=1)]
    return seconds, walls


HTTP = "http (a running server)"


def adapter_figures(repo: str, cases: list[Any], rounds_: int, out: Path
                    ) -> dict[str, dict[str, float]]:
    """Per adapter, medians over ``rounds_`` interleaved rounds of the first answer, the
    steady mean, p50 and p95 (ms of wall time per answer) on ``cases`` over ``repo``."""
    out.mkdir(parents=True, exist_ok=True)
    python = sys.executable
    adapters = {
        "command (a process per case)": f"command:{python} {WINDOWS} --once {repo}",
        "command+jsonl (one process)": f"command+jsonl:{python} {WINDOWS} --serve {repo}",
        HTTP: "",
    }
    rounds: dict[str, list[list[float]]] = {name: [] for name in adapters}
    for _ in range(rounds_):
        for n, (name, spec) in enumerate(adapters.items()):
            if spec:
                rounds[name].append(measure(spec, cases, out / f"{n}.jsonl")[1])
                continue
            port = _free_port()  # a fresh server each round, started before it is timed
            server = subprocess.Popen([python, str(WINDOWS), "--http", str(port), repo],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                _listening(port)
                rounds[name].append(measure(f"http://127.0.0.1:{port}/", cases,
                                            out / f"{n}.jsonl")[1])
            finally:
                server.kill()
                server.wait(timeout=10)

    def stats(walls_per_round: list[list[float]]) -> dict[str, float]:
        keys = {"first": lambda w: w[0], "steady": lambda w: float(np.mean(w[1:])),
                "p50": lambda w: float(np.percentile(w, 50)),
                "p95": lambda w: float(np.percentile(w, 95))}
        return {key: float(np.median([f(w) for w in walls_per_round]))
                for key, f in keys.items()}

    return {name: stats(walls) for name, walls in rounds.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", required=True, help="a clone, or a folder of clones (owner+name/)")
    parser.add_argument("--cases", type=Path, default=ROOT / "benchmarks/realcases/flask.yaml")
    parser.add_argument("--limit", type=int, default=13)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("/tmp/codegold-adapters-latency"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    cases = load_cases(str(args.cases)).cases[: args.limit]
    figures = adapter_figures(args.repo, cases, args.rounds, args.out)
    http = figures[HTTP]
    print(f"\n{len(cases)} cases of {args.cases.name}, retriever windows_bm25.py, "
          f"medians of {args.rounds} rounds\n")
    print("| adapter | first ms | steady mean ms | p50 ms | p95 ms | steady / HTTP | p50 / HTTP |")
    print("|---|---|---|---|---|---|---|")
    for name, f in figures.items():
        print(f"| {name} | {f['first']:.1f} | {f['steady']:.1f} | {f['p50']:.1f} | "
              f"{f['p95']:.1f} | {f['steady'] / http['steady']:.2f}× | "
              f"{f['p50'] / http['p50']:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
