"""The same jobs on ``--executor local`` and ``--executor ray``: wall time and equality.

1. ``index REPO --revisions TAGS -o DIR`` for the N most recent release tags of REPO
   (default: pytest, a local bare clone), with the shared chunk store and with
   ``--no-store``, once per executor, each in a fresh folder and its own process;
   checks that both executors give every tag the same build id and index bytes.
2. ``run`` of the bundled example's cases (``--repeat R`` attempts each) against its two
   indexes, once per executor; checks that the attempts are the same but for
   ``queried_at`` and ``timing_ms``.
3. What Ray alone costs: starting and stopping a local Ray with no job.

Every Ray figure includes starting a local Ray in that process (given on its own in 3).

    python benchmarks/executor_ray.py                    # 5 tags of pytest, repeat 20
    python benchmarks/executor_ray.py --tags 3 --repeat 5
    python benchmarks/executor_ray.py --json out.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "acme-shop"
DEFAULT_REPO = "/work/.mirror/pytest-dev+pytest/repo"
RELEASE = re.compile(r"^v?\d+\.\d+\.\d+$")
EXECUTORS = ("local", "ray")


def release_tags(repo: str, count: int) -> list[str]:
    out = subprocess.run(["git", "-C", repo, "tag", "--sort=-creatordate"],
                         capture_output=True, text=True, check=True).stdout.split()
    return list(reversed([tag for tag in out if RELEASE.match(tag)][:count]))


def codegold(*args: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "codegold.cli", *args], check=True,
                   stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


def index_digest(folder: Path) -> dict[str, str]:
    """Revision -> build id and sha256 of index.sqlite, for every index in ``folder``."""
    found = {}
    for manifest in sorted(folder.glob("*/manifest.json")):
        data = json.loads(manifest.read_text())
        body = hashlib.sha256((manifest.parent / "index.sqlite").read_bytes()).hexdigest()
        found[data["revision"]] = f"{data['index_build_id']}:{body[:16]}"
    return found


def normalised(path: Path) -> list[str]:
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        record.pop("queried_at", None)
        record.pop("timing_ms", None)
        lines.append(json.dumps(record, sort_keys=True))
    return lines


def ray_start_stop() -> float:
    code = ("import logging, ray; ray.init(include_dashboard=False, log_to_driver=False, "
            "logging_level=logging.ERROR); ray.shutdown()")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default=DEFAULT_REPO)
    parser.add_argument("--tags", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=20, help="attempts per example case")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1767225600"}
    figures: dict[str, object] = {"cpus": os.cpu_count(), "tags": args.tags}
    tags = release_tags(args.repo, args.tags)
    print(f"{len(tags)} tags of {args.repo}: {', '.join(tags)}; {os.cpu_count()} CPUs")
    figures["ray_start_stop_s"] = round(ray_start_stop(), 2)
    print(f"ray start + stop, no job: {figures['ray_start_stop_s']:.1f}s")
    with tempfile.TemporaryDirectory(prefix="codegold-ray-bench-") as tmp:
        base = Path(tmp)
        for store in (True, False):
            digests = {}
            for executor in EXECUTORS:
                out = base / f"idx-{executor}-{'store' if store else 'scratch'}"
                seconds = codegold("index", args.repo, "--revisions", ",".join(tags), "-o",
                                   str(out), "--quiet", "--executor", executor,
                                   *([] if store else ["--no-store"]), env=env)
                digests[executor] = index_digest(out)
                key = f"index_{'store' if store else 'scratch'}_{executor}_s"
                figures[key] = round(seconds, 2)
                print(f"index {len(tags)} tags, {'store' if store else 'no store'}, "
                      f"{executor}: {seconds:.1f}s")
            same = digests["local"] == digests["ray"] and len(digests["local"]) == len(tags)
            print(f"  same build ids and index bytes: {same}")
            figures[f"index_{'store' if store else 'scratch'}_identical"] = same
        repo = base / "acme"
        subprocess.run([sys.executable, str(EXAMPLE / "build_example.py"), str(repo)],
                       check=True, stdout=subprocess.DEVNULL)
        idx = base / "acme-idx"
        codegold("index", str(repo), "--cases", str(EXAMPLE / "cases.yaml"), "-o", str(idx),
                 "--quiet", env=env)
        outputs = {}
        for executor in EXECUTORS:
            out = base / f"attempts-{executor}.jsonl"
            seconds = codegold("run", str(EXAMPLE / "cases.yaml"), "--index", str(idx), "-o",
                               str(out), "--run-id", "bench", "--repeat", str(args.repeat),
                               "--allow-errors", "--quiet", "--executor", executor, env=env)
            outputs[executor] = normalised(out)
            figures[f"run_{executor}_s"] = round(seconds, 2)
            print(f"run example cases x{args.repeat} ({len(outputs[executor])} attempts), "
                  f"{executor}: {seconds:.1f}s")
        same = outputs["local"] == outputs["ray"]
        figures["run_identical"] = same
        figures["attempts"] = len(outputs["local"])
        print(f"  same attempts but for queried_at and timing_ms: {same}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
