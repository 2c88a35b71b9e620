#!/usr/bin/env python3
"""Fill the quoted demo output in README.md and docs/ from a run of the demo.

Every block between ``<!-- demo:NAME -->`` and ``<!-- /demo -->`` is generated here from
what ``codegold demo`` produced (``eval``: the default run scored and gated; ``classic``:
the three classic failures; ``fix``: the fix's gain, cost and the same gate passing on it;
``config-digest``), so a quoted figure cannot drift from the demo:

    .venv/bin/python scripts/gen_demo_docs.py              # run the demo, rewrite the blocks
    .venv/bin/python scripts/gen_demo_docs.py --check      # exit 1 if a block is stale
    .venv/bin/python scripts/gen_demo_docs.py --out demo-out   # run the demo there

tests/example/test_example_demo.py runs the check against the demo it runs anyway.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.model import Aggregates, RunResult, load_results
from codegold.workflows.demo import CaseLine, FixOutcome, examples_text, fix_text, run_demo

ROOT = Path(__file__).resolve().parents[1]
POLICY = ROOT / "examples" / "acme-shop" / "policy.yaml"
# The files whose blocks are generated.
TARGETS = ("README.md", "docs/report.md")
# A block keeps the indentation of its opening marker (one inside a list item).
_BLOCK = re.compile(r"^(?P<indent>[ \t]*)<!-- demo:(?P<name>[a-z-]+) -->\n(?P<body>.*?)"
                    r"^(?P=indent)<!-- /demo -->", re.S | re.M)
# The slices README's abbreviated eval table quotes.
EVAL_SLICES = ("query_class=exact_identifier", "tag:risk=high")


def _rate(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:.3f}"


def _eval_row(key: str, m: Aggregates) -> str:
    return (f" {key:<29} {m.cases:>3} {m.scored:>7} {m.pass_:>5} {m.fail:>5} {m.invalid:>8} "
            f"{_rate(m.hit_rate):>6} {_rate(m.pass_rate):>10} {_rate(m.mean_group_recall):>7} "
            f"{_rate(m.mrr):>6} {_rate(m.forbidden_rate):>6}")


def eval_block(out: Path) -> str:
    result: RunResult = load_results(str(out / "results.json"))
    head = (f" {'slice':<29} {'n':>3} {'scored':>7} {'pass':>5} {'fail':>5} {'invalid':>8} "
            f"{'hit':>6} {'pass rate':>10} {'recall':>7} {'MRR':>6} {'forb.':>6}")
    rows = [head, _eval_row("all", result.summary)]
    by_key = {s.key: s.metrics for s in result.slices}
    rows += [_eval_row(key, by_key[key]) for key in EVAL_SLICES if key in by_key]
    gate = CliRunner().invoke(cli, ["gate", str(out / "results.json"), "--policy", str(POLICY)])
    lines = ["```text", "$ codegold eval cases.yaml attempts.jsonl -o results.json", *rows,
             "$ codegold gate results.json --policy policy.yaml",
             *gate.output.rstrip("\n").splitlines(), "$ echo $?", str(gate.exit_code), "```"]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def classic_block(out: Path) -> str:
    examples, _ = _outcomes[out]
    return "```text\n" + "\n".join(line.rstrip() for line in examples_text(examples)) + "\n```\n"


def _from_root(path: str) -> str:
    """``path`` (as the demo showed it, relative to where it ran) relative to the checkout."""
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path


def fix_block(out: Path) -> str:
    """The closing "The fix" lines, then the same gate on the fixed run, with its exit code."""
    _, fix = _outcomes[out]
    if fix is None:
        raise SystemExit(f"the demo in {out} did not measure the fix; see its output")
    fix = dataclasses.replace(fix, policy=_from_root(fix.policy))
    gate = CliRunner().invoke(cli, ["gate", str(out / "fixed" / "results.json"),
                                    "--policy", str(POLICY)])
    lines = ["```text", *fix_text(fix),
             "$ codegold gate demo-out/fixed/results.json --policy examples/acme-shop/policy.yaml",
             *gate.output.rstrip("\n").splitlines(), "$ echo $?", str(gate.exit_code), "```"]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def config_digest_block(out: Path) -> str:
    from codegold.model import iter_attempts

    digests = {a.retriever_config for a in iter_attempts(str(out / "attempts.jsonl"))}
    digest = sorted(d for d in digests if d)[0] if any(digests) else "unknown"
    return f"`{digest[:19]}…`\n"


BLOCKS: dict[str, Callable[[Path], str]] = {
    "eval": eval_block,
    "classic": classic_block,
    "fix": fix_block,
    "config-digest": config_digest_block,
}
_outcomes: dict[Path, tuple[tuple[CaseLine, ...], FixOutcome | None]] = {}


def fill(text: str, out: Path) -> str:
    """``text`` with every demo block regenerated from the demo folder ``out``."""
    def one(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in BLOCKS:
            raise SystemExit(f"unknown demo block {name!r}; known: {', '.join(sorted(BLOCKS))}")
        indent = match.group("indent")
        body = "".join(indent + line if line.strip() else line
                       for line in BLOCKS[name](out).splitlines(keepends=True))
        return f"{indent}<!-- demo:{name} -->\n{body}{indent}<!-- /demo -->"

    return _BLOCK.sub(one, text)


def run(out: Path | None) -> Path:
    """The demo folder to read: ``out`` as given, else a fresh run of the demo."""
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="codegold-demo-")) / "out"
    outcome = run_demo(out)
    _outcomes[out] = outcome.examples, outcome.fix
    return out


def remember(out: Path, examples: tuple[CaseLine, ...], fix: FixOutcome | None = None) -> None:
    """Use a demo already run (its closing examples and fix) instead of running it here."""
    _outcomes[out] = examples, fix


def stale(out: Path) -> list[str]:
    """The target files whose blocks differ from what the demo in ``out`` gives."""
    return [name for name in TARGETS
            if fill((ROOT / name).read_text(encoding="utf-8"), out)
            != (ROOT / name).read_text(encoding="utf-8")]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    given = argv[argv.index("--out") + 1] if "--out" in argv else None
    out = run(Path(given) if given else None)
    if check:
        changed = stale(out)
        for name in changed:
            print(f"{name} quotes demo output that is stale; run scripts/gen_demo_docs.py")
        return 1 if changed else 0
    for name in TARGETS:
        path = ROOT / name
        path.write_text(fill(path.read_text(encoding="utf-8"), out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
