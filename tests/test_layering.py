"""The package layering of docs/architecture.md, enforced: each part imports only the parts
listed for it (``codegold`` itself means ``codegold.__version__``). The layers run
cli → workflows → the parts → model → errors; plumbing serves every part."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "codegold"
BASE = {"codegold", "errors"}
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "plumbing": {"errors"},
    "execute": {"errors"},
    "model": {"errors", "plumbing"},  # plumbing.outputs, secrets: the atomic writer, redaction on read
    "evaluate": BASE | {"model", "plumbing"},
    "gate": BASE | {"model", "plumbing"},
    "index": BASE | {"model", "plumbing", "execute"},
    "retrieve": BASE | {"model", "plumbing", "index", "execute"},
    "resolve": BASE | {"model", "plumbing", "index"},
    "adapters": BASE | {"model", "plumbing", "execute", "index", "retrieve", "resolve"},
    "trajectories": BASE | {"model", "plumbing", "index", "resolve"},
    "labels": BASE | {"model", "plumbing", "index", "evaluate"},
    "diagnose": BASE | {"model", "plumbing", "index", "evaluate", "labels"},
    "curate": BASE | {"model", "plumbing", "index", "evaluate", "labels"},
    "report": BASE | {"model", "plumbing"},
    "compare": BASE | {"model", "plumbing", "report"},
    "tune": BASE | {"model", "plumbing", "index", "retrieve", "adapters", "evaluate", "curate"},
    "assemble": BASE | {"model", "plumbing", "evaluate", "gate", "diagnose", "report"},
    # what a user asks for, one function each, over every part; only the CLI calls them
    "workflows": BASE | {"model", "plumbing", "execute", "index", "retrieve", "resolve",
                         "adapters", "labels", "evaluate", "gate", "diagnose", "curate",
                         "report", "compare", "assemble", "trajectories", "tune"},
}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "codegold":
                found.add(parts[1] if len(parts) > 1 else "codegold")
    return found


def test_every_part_imports_only_what_the_architecture_allows() -> None:
    problems = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        part = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        if part in ("cli", "__init__", "__main__"):
            continue
        assert part in ALLOWED, f"{rel}: part {part!r} is not in docs/architecture.md's table"
        for target in _imports(path) - ALLOWED[part] - {part}:
            problems.append(f"{rel} imports codegold.{target}")
    assert not problems, "\n".join(problems)


def test_nothing_imports_the_cli() -> None:
    offenders = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                 if p.relative_to(ROOT).parts[0] != "cli" and "cli" in _imports(p)]
    assert not offenders


def test_only_the_cli_calls_the_workflows() -> None:
    offenders = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                 if p.relative_to(ROOT).parts[0] not in ("cli", "workflows")
                 and "workflows" in _imports(p)]
    assert not offenders
