"""Evaluator throughput: `codegold eval` end to end vs ranx end to end vs the decode floor.

Generates N cases × D ranked chunks (default 100,000 × 50), the equivalent TREC run and
qrels, then times, each as its own process, side by side and repeated:

- ``codegold eval cases.jsonl attempts.jsonl -o results.json -q``
- the same with redaction switched off (``redact_attempt`` replaced by the identity), to
  show what scanning the attempts' free text for secrets costs (issue 26)
- ranx: load the TREC qrels and run from disk, compute hit_rate@5 and mrr@5
- the floor: merely decode every line of attempts.jsonl (msgspec, untyped)

It prints medians, ratios and peak memory (max RSS of each process), and the CPU seconds
of each process (user + system, all its threads): on a machine shared with other work
they move less than wall seconds do, so their ratios tell a change from the noise. With ``--baseline
SRC`` (the ``src`` folder of another checkout, e.g. ``git archive main src | tar -x -C
/tmp/base``) that tree's ``codegold eval`` runs in the same rounds, and its results.json
must be byte-identical to this tree's.
Targets (issue 2): codegold ≤ ranx end to end, ≤ 3× the decode floor, peak < 2 GB;
(issue 26) codegold ≤ 0.5× ranx with redaction on.

    python benchmarks/eval_throughput.py                 # full size
    python benchmarks/eval_throughput.py --cases 10000   # quicker
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bytecode import compile_package

REVISION = "0123456789abcdef0123456789abcdef01234567"
ROLES = ("definition", "call_site", "test", "docs")


def generate(out: Path, n_cases: int, depth: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    manifest = ('{"repository":"bench/repo","revision":"%s","index_build_id":"bench",'
                '"chunker":{"name":"bench","version":"1"},"complete":true}' % REVISION)
    with open(out / "cases.jsonl", "w") as cases, open(out / "attempts.jsonl", "w") as attempts, \
            open(out / "run.trec", "w") as run, open(out / "qrels.trec", "w") as qrels:
        cases.write('{"format": 1, "defaults": {"revision": "%s", "cutoff": 5}}\n' % REVISION)
        for i in range(n_cases):
            gold = f"src/m{i % 97}/f{i}.py"
            cases.write('{"id":"q%d","query":"where is thing %d","query_class":"%s",'
                        '"accepted":[{"file":"%s","roles":["definition"]}]}\n'
                        % (i, i, ("descriptive", "exact_identifier")[i % 2], gold))
            qrels.write(f"q{i} 0 {gold} 1\n")
            gold_rank = rng.choice([1, 1, 2, 3, 5, 8, 20, 49, None])
            chunks = []
            for r in range(1, depth + 1):
                if r == gold_rank:
                    file, role = gold, "definition"
                else:
                    file, role = f"src/m{rng.randrange(97)}/o{rng.randrange(10**6)}.py", rng.choice(ROLES)
                chunks.append('{"chunk_id":"c%d_%d","file":"%s","symbol":"S%d","role":"%s",'
                              '"revision":"%s","score":%.4f,"start_line":%d,"end_line":%d}'
                              % (i, r, file, r, role, REVISION, 1.0 / r, r * 10, r * 10 + 9))
                # TREC docs are files; a definition-role check has no TREC equivalent, so
                # the oracle run lists the gold file only where the chunk is the definition.
                run.write(f"q{i} Q0 {file if role == 'definition' or file != gold else file + '#x'}"
                          f" {r} {depth - r + 1} bench\n")
            attempts.write('{"attempt_id":"a%d","case_id":"q%d","run_id":"bench","manifest":%s,'
                           '"query":{"raw":"where is thing %d"},"ranked":[%s]}\n'
                           % (i, i, manifest, i, ",".join(chunks)))


RANX = """
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
print(evaluate(qrels, run, ["hit_rate@5", "mrr@5"]))
"""

NO_REDACTION = """
import sys
import codegold.model.attempts as attempts
attempts.redact_attempt = lambda attempt: attempt
sys.argv = ["codegold", *sys.argv[1:]]
from codegold.cli.main import main
main()
"""

FLOOR = """
import sys, msgspec
decode = msgspec.json.decode
n = 0
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        decode(line)
        n += 1
print(n)
"""


def timed(cmd: list[str], env: dict[str, str] | None = None
          ) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds, peak RSS in MB, and stdout of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"command failed: {' '.join(cmd)}\n{err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def eval_commands(work: Path, baseline: str | None = None
                  ) -> tuple[dict[str, list[str]], dict[str, dict[str, str]]]:
    """The timed commands over the data in ``work`` (see the module's docstring), and the
    environment of those that run another checkout's ``src`` (``baseline``)."""
    codegold = [sys.executable, "-m", "codegold.cli", "eval", str(work / "cases.jsonl"),
                str(work / "attempts.jsonl"), "-o", str(work / "results.json"), "-q"]
    bare = [sys.executable, "-c", NO_REDACTION, *codegold[3:]]
    ranx = [sys.executable, "-c", RANX, str(work / "qrels.trec"), str(work / "run.trec")]
    floor = [sys.executable, "-c", FLOOR, str(work / "attempts.jsonl")]
    commands = {"codegold eval": codegold, "  no redaction": bare, "ranx": ranx,
                "decode floor": floor}
    envs: dict[str, dict[str, str]] = {}
    if baseline:
        commands["baseline eval"] = [*codegold[:-2], str(work / "results.baseline.json"), "-q"]
        commands["  baseline no redaction"] = [*bare[:-2], str(work / "results.baseline.json"),
                                                "-q"]
        envs["baseline eval"] = envs["  baseline no redaction"] = {
            **os.environ, "PYTHONPATH": str(Path(baseline).resolve())}
    return commands, envs


def time_rounds(commands: dict[str, list[str]], envs: dict[str, dict[str, str]], repeat: int
                ) -> tuple[dict[str, list[tuple[float, float, float]]], str]:
    """Every command's (wall s, CPU s, peak MB) in each of ``repeat`` interleaved rounds, so
    machine noise hits all alike; and what ranx printed."""
    rows: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
    ranx_out = ""
    for _ in range(repeat):
        for name, cmd in commands.items():
            wall, cpu, rss, out = timed(cmd, envs.get(name))
            rows[name].append((wall, cpu, rss))
            if name == "ranx":
                ranx_out = out.strip()
    return rows, ranx_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", help="keep generated data here (default: a temp dir)")
    parser.add_argument("--baseline", metavar="SRC",
                        help="also time codegold eval from this src folder (PYTHONPATH)")
    args = parser.parse_args()

    print(compile_package())
    if args.baseline:
        print(compile_package(args.baseline))
    work = Path(args.workdir or tempfile.mkdtemp(prefix="codegold-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if not (work / "attempts.jsonl").exists():
        generate(work, args.cases, args.depth)
    size_mb = (work / "attempts.jsonl").stat().st_size / 1e6
    print(f"data: {args.cases:,} cases × {args.depth} chunks, attempts.jsonl {size_mb:,.0f} MB "
          f"(generated in {time.perf_counter() - t0:.1f} s) in {work}")

    commands, envs = eval_commands(work, args.baseline)
    rows, ranx_out = time_rounds(commands, envs, args.repeat)
    med = {name: statistics.median(w for w, _, _ in runs) for name, runs in rows.items()}
    cpu = {name: statistics.median(c for _, c, _ in runs) for name, runs in rows.items()}
    peak = {name: max(r for _, _, r in runs) for name, runs in rows.items()}
    print(f"{'':24}{'median s':>10}{'peak MB':>10}{'/ floor':>9}{'/ ranx':>8}"
          f"{'cpu s':>8}{'/ floor':>9}")
    for name in rows:
        print(f"{name:24}{med[name]:>10.2f}{peak[name]:>10.0f}"
              f"{med[name] / med['decode floor']:>9.2f}{med[name] / med['ranx']:>8.2f}"
              f"{cpu[name]:>8.2f}{cpu[name] / cpu['decode floor']:>9.2f}")
    print(f"runs per row: {args.repeat} (medians)")
    print(f"ratio codegold / ranx        = {med['codegold eval'] / med['ranx']:.2f}  (target ≤ 0.5)")
    print(f"redaction costs               = {med['codegold eval'] - med['  no redaction']:.2f} s")
    print(f"ratio codegold / decode floor = {med['codegold eval'] / med['decode floor']:.2f}  (target ≤ 3)")
    print(f"  no redaction / decode floor = {med['  no redaction'] / med['decode floor']:.2f}")
    print(f"cpu codegold / decode floor   = {cpu['codegold eval'] / cpu['decode floor']:.2f}")
    if args.baseline:
        same = (work / "results.json").read_bytes() == (work / "results.baseline.json").read_bytes()
        print(f"results.json byte-identical to the baseline's: {'yes' if same else 'NO'}")
        if not same:
            raise SystemExit(1)
    print(f"codegold peak memory          = {peak['codegold eval']:.0f} MB  (target < 2048)")
    print(f"ranx figures: {ranx_out}")


if __name__ == "__main__":
    main()
