#!/usr/bin/env python3
"""Check the CI recipe in docs/ci.md: its shape, and that its shell steps work as written.

    python scripts/check_ci_recipe.py            # structure + run against acme-shop
    python scripts/check_ci_recipe.py --no-run   # structure only

The GitHub Actions workflow is read from the first ```yaml block of docs/ci.md holding
``jobs:``, the GitLab CI variant from the block holding ``script:``. Both are checked for
what a team relies on: the evidence is uploaded ``if: always()``, the index cache key is
codegold's version + the chunker version (fingerprint) + the pinned revisions, diagnose
gets the index folder, summary.md goes to the job summary and to the pull request, and the
gate runs last.

Then the GitHub job's ``run:`` steps are executed in order, with bash as GitHub runs them
(``-eo pipefail``), in a copy of the bundled acme-shop repository with its cases, policy
and owners under ``eval/``. No network is used: ``uses:`` steps are simulated (the cache
key is computed from the step outputs and printed; the comment and upload steps check that
their files exist), and ``pip`` is a stand-in that checks it was asked for codegold and
uses the codegold installed from this repository path. The gate's exit code must be a
verdict (0 or 1), never bad input (2). Exit 0 when everything holds, 1 with one line per
problem otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "acme-shop"
INDEXES = ".codegold/indexes"
_EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def yaml_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```", markdown, flags=re.S | re.M)


def load_recipes(doc: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    blocks = yaml_blocks(doc.read_text(encoding="utf-8"))
    github = next((b for b in blocks if re.search(r"^jobs:", b, re.M)), None)
    gitlab = next((b for b in blocks if "script:" in b and not re.search(r"^jobs:", b, re.M)), None)
    if github is None or gitlab is None:
        raise SystemExit(f"{doc}: expected a GitHub workflow block (jobs:) and a GitLab block (script:)")
    return yaml.safe_load(github), yaml.safe_load(gitlab)


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    jobs = workflow.get("jobs")
    if not isinstance(jobs, dict) or len(jobs) != 1:
        raise SystemExit("workflow: expected exactly one job under jobs:")
    job = next(iter(jobs.values()))
    steps = job.get("steps") if isinstance(job, dict) else None
    if not isinstance(steps, list) or not steps:
        raise SystemExit("workflow: the job has no steps")
    return steps


def _find(steps: list[dict[str, Any]], pattern: str, key: str = "run") -> list[dict[str, Any]]:
    return [s for s in steps if re.search(pattern, str(s.get(key, "")))]


def check_github(workflow: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    # PyYAML reads the key `on` as True.
    triggers = workflow.get("on", workflow.get(True))
    if not isinstance(triggers, dict) or "pull_request" not in triggers:
        problems.append("workflow: must run on pull_request")
    steps = _steps(workflow)
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or ("run" in step) == ("uses" in step):
            problems.append(f"step {i + 1}: needs exactly one of run: or uses:")
    def always(step: dict[str, Any]) -> bool:
        return "always()" in str(step.get("if", ""))

    uploads = _find(steps, r"actions/upload-artifact", "uses")
    if not uploads or not always(uploads[0]):
        problems.append("upload-artifact step missing or without if: always()")
    elif "out/" not in str(uploads[0].get("with", {}).get("path", "")):
        problems.append("upload-artifact must upload out/")
    caches = _find(steps, r"actions/cache", "uses")
    key = str(caches[0].get("with", {}).get("key", "")) if caches else ""
    outputs = re.findall(r"steps\.(\w+)\.outputs\.(\w+)", key)
    if not caches or {o for _, o in outputs} != {"codegold", "chunker", "revisions"}:
        problems.append("cache key must be built from steps.<id>.outputs.codegold, .chunker and .revisions")
    elif caches[0].get("with", {}).get("path") != INDEXES:
        problems.append(f"cache path must be {INDEXES}")
    else:
        ids = {i for i, _ in outputs}
        producer = [s for s in steps if s.get("id") in ids]
        text = str(producer[0].get("run", "")) if len(producer) == 1 and len(ids) == 1 else ""
        for needed in ("codegold --version", "CHUNKER_VERSION", "eval/cases.yaml", "GITHUB_OUTPUT"):
            if needed not in text:
                problems.append(f"cache key step must use {needed}")
        if producer and steps.index(producer[0]) > steps.index(caches[0]):
            problems.append("cache key step must come before the cache step")
    diagnose = _find(steps, r"codegold diagnose")
    if not diagnose or not re.search(rf"--index\s+{re.escape(INDEXES)}\b", str(diagnose[0]["run"])):
        problems.append(f"diagnose must get the index folder: --index {INDEXES}")
    elif not always(diagnose[0]):
        problems.append("diagnose must run if: always()")
    report = _find(steps, r"codegold report")
    text = str(report[0]["run"]) if report else ""
    if not report or "--md out/summary.md" not in text or "--diagnosis out/diagnosis" not in text:
        problems.append("report must write --md out/summary.md with --diagnosis out/diagnosis")
    elif not re.search(r"out/summary\.md\s*>>\s*\"?\$GITHUB_STEP_SUMMARY", text):
        problems.append("summary.md must be appended to $GITHUB_STEP_SUMMARY")
    elif not always(report[0]):
        problems.append("report must run if: always()")
    comments = [s for s in _find(steps, r"comment", "uses")
                if s.get("with", {}).get("path") == "out/summary.md"]
    if not comments or not always(comments[0]):
        problems.append("summary.md must be posted as a PR comment (a comment action with "
                        "path: out/summary.md, if: always())")
    runs = [s for s in steps if "run" in s]
    if not runs or "codegold gate" not in str(runs[-1]["run"]):
        problems.append("the gate must be the last run: step")
    elif steps.index(runs[-1]) < steps.index(uploads[0]) if uploads else False:
        problems.append("the gate must come after the upload")
    for step in runs:
        for expr in _EXPR.findall(str(step["run"])):
            problems.append(f"step {step.get('name', '?')!r}: no ${{{{ {expr} }}}} inside run: "
                            "(pass it through env:)")
    return problems


def check_gitlab(pipeline: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    jobs = {k: v for k, v in pipeline.items() if isinstance(v, dict) and "script" in v}
    if len(jobs) != 1:
        return ["gitlab: expected one job with script:"]
    job = next(iter(jobs.values()))
    script = "\n".join(str(line) for line in job["script"])
    for needed in ("codegold index", "codegold run", "codegold eval", "codegold report",
                   "--md out/summary.md", "--junit out/junit.xml"):
        if needed not in script:
            problems.append(f"gitlab: script must run {needed!r}")
    if not re.search(rf"codegold diagnose .*--index\s+{re.escape(INDEXES)}\b", script):
        problems.append(f"gitlab: diagnose must get --index {INDEXES}")
    if "codegold gate" not in str(job["script"][-1]):
        problems.append("gitlab: the gate must be the last script line")
    artifacts = job.get("artifacts", {})
    if artifacts.get("when") != "always" or "out/" not in artifacts.get("paths", []):
        problems.append("gitlab: artifacts must keep out/ when: always")
    if artifacts.get("reports", {}).get("junit") != "out/junit.xml":
        problems.append("gitlab: artifacts.reports.junit must be out/junit.xml")
    setup = "\n".join(str(line) for line in job.get("before_script", [])) + script
    if "codegold --version" not in setup or "CHUNKER_VERSION" not in setup:
        problems.append("gitlab: indexes must be keyed on codegold and chunker versions")
    if "eval/cases.yaml" not in str(job.get("cache", {}).get("key", {})):
        problems.append("gitlab: cache key must include eval/cases.yaml (the pinned revisions)")
    return problems


# ---- running the GitHub job locally ------------------------------------------------------

def _condition(text: str, event: str) -> bool:
    """GitHub's ``if:`` for the few forms the recipe uses; anything else is refused."""
    if not text:
        return True
    result = True
    for term in (t.strip() for t in text.split("&&")):
        if term in ("always()", "success()"):
            continue
        match = re.fullmatch(r"github\.event_name\s*==\s*'(\w+)'", term)
        if match is None:
            raise SystemExit(f"if: {text!r}: the checker does not understand {term!r}")
        result = result and match.group(1) == event
    return result


def _shims(folder: Path, log: Path) -> None:
    """``codegold`` and ``python`` from this interpreter; ``pip`` a stand-in that only
    accepts being asked for codegold (the one installed from this repository path)."""
    folder.mkdir()
    exe = Path(sys.executable)
    codegold = exe.parent / "codegold"
    (folder / "codegold").write_text(
        f'#!/bin/sh\nexec "{codegold}" "$@"\n' if codegold.exists()
        else f'#!/bin/sh\nexec "{exe}" -m codegold.cli.main "$@"\n', encoding="utf-8")
    (folder / "python").write_text(f'#!/bin/sh\nexec "{exe}" "$@"\n', encoding="utf-8")
    (folder / "pip").write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{log}"\n'
        'case "$*" in *codegold*) echo "pip stand-in: using codegold installed from '
        f'{ROOT}"; exit 0;; esac\n'
        'echo "pip stand-in: not asked for codegold: $*" >&2; exit 1\n', encoding="utf-8")
    for name in ("codegold", "python", "pip"):
        (folder / name).chmod(0o755)


def _workspace(base: Path) -> Path:
    repo = base / "repo"
    subprocess.run([sys.executable, str(EXAMPLE / "build_example.py"), str(repo)], check=True,
                   capture_output=True, text=True, timeout=300)
    (repo / "eval").mkdir()
    for name in ("cases.yaml", "policy.yaml", "owners.yaml"):
        shutil.copy(EXAMPLE / name, repo / "eval" / name)
    return repo


def run_github(workflow: dict[str, Any], *, event: str = "pull_request",
               keep: Path | None = None) -> list[str]:
    import codegold

    problems: list[str] = []
    if not Path(codegold.__file__).resolve().is_relative_to(ROOT):
        problems.append(f"codegold imported from {codegold.__file__}, not from {ROOT}")
    base = Path(tempfile.mkdtemp(prefix="cg-ci-")) if keep is None else keep
    repo = _workspace(base)
    _shims(base / "bin", base / "pip.log")
    outputs_file, summary = base / "github_output", base / "step_summary.md"
    env = {**os.environ, "PATH": f"{base / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
           "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_EVENT_NAME": event, "CI": "true"}
    outputs: dict[str, dict[str, str]] = {}
    failed = False
    gate_rc: int | None = None
    for step in _steps(workflow):
        name = str(step.get("name", step.get("uses", "?")))
        condition = str(step.get("if", ""))
        if failed and "always()" not in condition:
            print(f"skip  {name} (an earlier step failed)")
            continue
        if not _condition(condition, event):
            print(f"skip  {name} (if: {condition})")
            continue
        uses = str(step.get("uses", ""))
        with_ = step.get("with", {}) or {}
        if uses.startswith("actions/cache"):
            key = _EXPR.sub(lambda m: _output(outputs, m.group(1), problems), str(with_["key"]))
            print(f"cache {key}")
            if not re.fullmatch(r"idx-\d[\w.]*-[\w.+-]+-[0-9a-f]{16}", key):
                problems.append(f"cache key {key!r} is not codegold-chunker-revisions")
        elif "comment" in uses or uses.startswith("actions/upload-artifact"):
            path = repo / str(with_.get("path", ""))
            needed = ([path] if path.is_file() else
                      [path / n for n in ("report.html", "summary.md", "junit.xml", "results.json",
                                          "attempts.jsonl", "diagnosis/diagnoses.json")])
            missing = [str(p.relative_to(repo)) for p in needed if not p.exists()]
            print(f"{'ok' if not missing else 'FAIL':5} {name}: {with_.get('path')}")
            if missing:
                problems.append(f"{name}: missing {', '.join(missing)}")
        elif uses:
            print(f"skip  {name} (uses: {uses}, not run locally)")
        else:
            env_step = {**env, "GITHUB_OUTPUT": str(outputs_file)}
            outputs_file.write_text("", encoding="utf-8")
            proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                                   str(step["run"])], cwd=repo, env=env_step, text=True,
                                  capture_output=True, timeout=900, check=False)
            if step.get("id"):
                outputs[str(step["id"])] = dict(
                    line.split("=", 1) for line in outputs_file.read_text().splitlines() if "=" in line)
            is_gate = "codegold gate" in str(step["run"])
            if is_gate:
                gate_rc = proc.returncode
            ok = proc.returncode == 0 or (is_gate and proc.returncode == 1)
            print(f"{'ok' if ok else 'FAIL':5} {name} (exit {proc.returncode})")
            if not ok:
                failed = True
                problems.append(f"step {name!r} exited {proc.returncode}: "
                                + (proc.stderr.strip().splitlines() or ["no stderr"])[-1])
    text = summary.read_text(encoding="utf-8") if summary.exists() else ""
    if "**Gate: " not in text:
        problems.append("the job summary does not hold summary.md's verdict line")
    if gate_rc is None:
        problems.append("the gate step did not run")
    built = sorted(p.name for p in (repo / INDEXES).glob("*/manifest.json"))
    if len(list((repo / INDEXES).glob("*/manifest.json"))) < 2:
        problems.append(f"expected an index per pinned revision under {INDEXES}, found {built}")
    print(f"workspace: {base}  gate exit: {gate_rc}")
    if keep is None and not problems:
        shutil.rmtree(base, ignore_errors=True)
    return problems


def _output(outputs: dict[str, dict[str, str]], expr: str, problems: list[str]) -> str:
    match = re.fullmatch(r"steps\.(\w+)\.outputs\.(\w+)", expr)
    value = outputs.get(match.group(1), {}).get(match.group(2), "") if match else ""
    if not value:
        problems.append(f"${{{{ {expr} }}}} is empty")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "ci.md")
    parser.add_argument("--no-run", action="store_true", help="Check the structure only.")
    parser.add_argument("--keep", type=Path, help="Run in this (empty) folder and keep it.")
    args = parser.parse_args(argv)
    github, gitlab = load_recipes(args.doc)
    problems = check_github(github) + check_gitlab(gitlab)
    if not problems and not args.no_run:
        if args.keep is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
        problems += run_github(github, keep=args.keep)
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    print("CI recipe: OK" if not problems else f"CI recipe: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
