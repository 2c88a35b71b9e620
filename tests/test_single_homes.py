"""Shared ideas have one home each, enforced like the layering: running programs,
replacing files and folders, pools of threads and processes, naming clones, telling
identifiers from prose."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "codegold"

# Modules that may start other programs: git, bounded untrusted programs and what they
# share. (Ray starts its own processes inside the ray package; codegold.execute only
# calls its API, so it needs no entry here.)
PROGRAMS = {"plumbing/git.py", "plumbing/process.py"}
# Modules that may rename files or folders into place: the one atomic writer and folder
# swap, and the index output folders' build lock and leftover temporaries (outdir only
# names and removes them; swaps go through plumbing.outputs.swap_folder).
RENAMES = {"plumbing/outputs.py"}
# Pools of threads or processes live in codegold.execute (one executor family: local,
# threads, ordered processes, Ray). Elsewhere nothing imports multiprocessing, and from
# concurrent.futures only ``Future`` (a one-shot result box one thread fills for another,
# as the MCP client's event-loop thread does) and nothing that runs work.
POOLS = "execute/"
_FUTURE_NAMES = {"Future"}
_PROGRAM_CALLS = {("os", "system"), ("os", "popen"), ("os", "execv"), ("os", "execvp"),
                  ("os", "spawnv"), ("os", "fork"), ("os", "posix_spawn")}
_RENAME_CALLS = {("os", "replace"), ("os", "rename"), ("os", "renames"), ("shutil", "move")}


def _modules() -> list[tuple[str, ast.Module]]:
    return [(path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(ROOT.rglob("*.py"))]


def _dotted(node: ast.AST) -> tuple[str, str] | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id, node.attr
    return None


def test_only_plumbing_starts_programs() -> None:
    problems = []
    for rel, tree in _modules():
        if rel in PROGRAMS:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""])
                if any(name.split(".")[0] in ("subprocess", "pty") for name in names):
                    problems.append(f"{rel}:{node.lineno} imports subprocess")
            elif isinstance(node, ast.Call) and _dotted(node.func) in _PROGRAM_CALLS:
                problems.append(f"{rel}:{node.lineno} starts a program")
    assert not problems, "\n".join(problems)


def test_only_plumbing_outputs_renames_into_place() -> None:
    problems = []
    for rel, tree in _modules():
        if rel in RENAMES:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            if _dotted(node.func) in _RENAME_CALLS:
                problems.append(f"{rel}:{node.lineno} renames with {ast.unparse(node.func)}")
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "rename":
                problems.append(f"{rel}:{node.lineno} renames a path")
            elif (isinstance(node.func, ast.Attribute) and node.func.attr == "replace"
                  and len(node.args) == 1 and not node.keywords):
                # str.replace takes two arguments; Path.replace(target) one
                problems.append(f"{rel}:{node.lineno} replaces a path")
    assert not problems, "\n".join(problems)


def _pool_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, what)`` for each import of a pool: anything from multiprocessing, and
    anything from concurrent.futures but ``Future``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names
                      if alias.name.split(".")[0] in ("multiprocessing", "concurrent")]
        elif isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            names = {alias.name for alias in node.names}
            if top == "multiprocessing" or (top == "concurrent" and (
                    node.module != "concurrent.futures" or names - _FUTURE_NAMES)):
                found += [(node.lineno, f"{node.module}.{name}") for name in sorted(names)
                          if top == "multiprocessing" or name not in _FUTURE_NAMES]
    return found


def test_pools_of_threads_and_processes_live_in_execute() -> None:
    problems = [f"{rel}:{line} imports {what}" for rel, tree in _modules()
                if not rel.startswith(POOLS) for line, what in _pool_imports(tree)]
    assert not problems, "\n".join(problems)


def test_the_pool_rule_tells_a_pool_from_a_future() -> None:
    sample = ast.parse("from concurrent.futures import Future, ThreadPoolExecutor\n"
                       "import multiprocessing.pool\n"
                       "from concurrent.futures import Future\n"
                       "from multiprocessing import get_context\n")
    assert _pool_imports(sample) == [(1, "concurrent.futures.ThreadPoolExecutor"),
                                     (2, "multiprocessing.pool"),
                                     (4, "multiprocessing.get_context")]


def test_identifier_rules_live_in_model_identifiers() -> None:
    """Whether a word of a query names code is decided in one module (both readings)."""
    problems = []
    for rel, tree in _modules():
        if rel == "model/identifiers.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.strip("_") in (
                    "is_code_like", "looks_like_code", "is_identifier", "identifiers"):
                problems.append(f"{rel}:{node.lineno} defines {node.name}")
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and ("[a-z][A-Z]" in node.value or "[a-z0-9][A-Z]" in node.value)):
                problems.append(f"{rel}:{node.lineno} spells a camelCase rule")
    assert not problems, "\n".join(problems)


def test_clone_folder_names_are_spelled_in_one_module() -> None:
    """``owner+name`` / ``owner__name`` are read and written only by index.clones."""
    problems = []
    for rel, tree in _modules():
        if rel == "index/clones.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = ast.unparse(node)
                if "}+{" in text or "}__{" in text:
                    problems.append(f"{rel}:{node.lineno} spells a clone folder name")
    assert not problems, "\n".join(problems)
