"""SWE-bench development instances as a codegold case file, for ``codegold tune``.

One case per instance whose index is in ``--cache-dir`` (the layout of
``swebench_localization.py``: ``owner+name/<base_commit>/``): the query is the issue text,
the revision its base commit, and each gold file one required group whose alternatives
are the gold functions in that file (the whole file when the fix touched none). Case ids
are instance ids, so the 70/30 hash split of ``codegold tune`` is the benchmark's split.
``--index-dir`` receives one link per revision, the flat folder ``--index`` takes.

Usage::

    python benchmarks/swebench_cases.py --cache-dir /work/devcache -o dev.yaml \\
        --index-dir dev-indexes/
    codegold tune dev.yaml --index dev-indexes/ --space space.yaml --seed 0 -o tuned.yaml
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

DEFAULT_DATA = Path("/work/shared/data/swebench-dev/instances.jsonl")


def case_of(row: dict[str, Any], cutoff: int) -> dict[str, Any]:
    groups = []
    for number, file in enumerate(row["gold_files"], start=1):
        symbols = [g["symbol"] for g in row["gold_symbols"] if g["file"] == file]
        any_of = [{"file": file, "symbol": s} for s in symbols] or [{"file": file}]
        groups.append({"id": f"file{number}", "any_of": any_of})
    return {"id": row["instance_id"], "repository": row["repo"], "revision": row["base_commit"],
            "query": row["query"], "cutoff": cutoff, "groups": groups}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache-dir", type=Path, required=True)
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--cutoff", type=int, default=5)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    args.index_dir.mkdir(parents=True, exist_ok=True)
    cases = []
    for row in rows:
        index = args.cache_dir / row["repo"].replace("/", "+") / row["base_commit"]
        try:
            complete = json.loads((index / "manifest.json").read_text()).get("complete")
        except (OSError, ValueError):
            complete = False
        if not complete or not row["gold_files"]:
            continue
        link = args.index_dir / row["base_commit"]
        if not link.exists():
            link.symlink_to(index.resolve())
        cases.append(case_of(row, args.cutoff))
    args.output.write_text(yaml.safe_dump({"format": 1, "cases": cases}, sort_keys=False,
                                          allow_unicode=True))
    print(f"{len(cases)} cases, {len(list(args.index_dir.iterdir()))} indexes",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
