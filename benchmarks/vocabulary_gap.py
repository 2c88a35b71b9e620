"""How many failing cases a search by words could rank first at all.

Runs codegold's own diagnosis over the reference retriever's run of a corpus (the cache
folder of ``benchmarks/mined_corpus.py``: ``cases/``, ``indexes/``, ``runs/CONFIG/``) and
sorts each ranking miss (``retrieval_miss``, ``below_cutoff``) of one missing group by its
``words [...]`` evidence line: the target holds none of the question's words, or fewer than
the best chunk inside the cutoff, as many, or more. Only the last kind is a miss that
words alone point at; the others need the question in the code's words or a signal that
matches meaning. Printed per query class and per language, with case counts.

    python benchmarks/vocabulary_gap.py --cache-dir CORPUS [--config reference] [--json OUT]
    python benchmarks/vocabulary_gap.py --cache-dir RC --cases-dir benchmarks/realcases

(the second: the hand-written cases, run by ``realcases.py --cache-dir RC``).

The corpus must have been run first (``mined_corpus.py --configs reference``): this script
reads the results and attempts that run wrote, and the indexes it used.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from codegold.diagnose.words import KINDS, kind_of
from codegold.model import load_cases
from codegold.workflows import DiagnoseRequest, diagnose

COLUMNS = (*KINDS, "other cause")


def _kind(cause: str, evidence: list[str]) -> str:
    if cause not in ("retrieval_miss", "below_cutoff"):
        return "other cause"
    return kind_of(evidence) or "other cause"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-dir", required=True, type=Path)
    parser.add_argument("--config", default="reference", help="the run's folder under runs/")
    parser.add_argument("--cases-dir", type=Path, help="the case files (default: CACHE/cases)")
    parser.add_argument("--json", type=Path, help="write each case's kind here")
    args = parser.parse_args(argv)
    cache: Path = args.cache_dir
    indexes = cache / "indexes"
    by_class: dict[str, Counter[str]] = defaultdict(Counter)
    by_language: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, str] = {}
    for cases_file in sorted((args.cases_dir or cache / "cases").glob("*.yaml")):
        if cases_file.name.startswith("slice"):
            continue
        results = cache / "runs" / args.config / f"{cases_file.stem}.results.json"
        attempts = results.with_name(f"{cases_file.stem}.attempts.jsonl")
        if not results.exists() or not attempts.exists():
            print(f"skip {cases_file.stem}: no run under runs/{args.config}/", file=sys.stderr)
            continue
        cases = {c.id: c for c in load_cases(str(cases_file)).cases}
        revisions = {c.revision for c in cases.values()}
        folders = {r: indexes / r for r in revisions if (indexes / r / "manifest.json").exists()}
        summary = diagnose(DiagnoseRequest(results=str(results), attempts=str(attempts),
                                           indexes=folders)).summary
        for d in summary.diagnoses:
            case = cases.get(d.case_id)
            if case is None or len(case.required_groups) != 1:
                continue  # several groups: the words of one say little about the case
            kind = _kind(d.cause, d.evidence)
            kinds[d.case_id] = kind
            by_class[case.query_class][kind] += 1
            by_language[case.tags.get("language", "-")][kind] += 1
        print(f"{cases_file.stem}: {len(summary.diagnoses)} diagnosed", file=sys.stderr)
    for title, table in (("query class", by_class), ("language", by_language)):
        print(f"\n| {title} | failing, one group | " + " | ".join(COLUMNS) + " |")
        print("|---|---|" + "---|" * len(COLUMNS))
        total: Counter[str] = Counter()
        for key in sorted(table):
            row = table[key]
            total += row
            n = sum(row.values())
            print(f"| {key} | {n} | " + " | ".join(f"{row[k]} ({100 * row[k] / n:.0f} %)" for k in COLUMNS) + " |")
        n = sum(total.values())
        if n:
            print(f"| all | {n} | " + " | ".join(f"{total[k]} ({100 * total[k] / n:.0f} %)" for k in COLUMNS) + " |")
    if args.json:
        args.json.write_text(json.dumps(kinds, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
