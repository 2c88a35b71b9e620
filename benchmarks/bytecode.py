"""Compile the bytecode of the code a benchmark times before its first round.

An installed package has its bytecode compiled (pip writes it at install time), so a
command's start-up costs reading it, not compiling every module. An editable checkout run
with ``PYTHONDONTWRITEBYTECODE=1`` (set on some CI machines and sandboxes) would compile
every module in every child process instead, a cost (0.03 s for ``codegold eval``, 0.14 s
for ``codegold index``) no user pays. Compiling once here removes it from the figures;
the variable only stops Python writing bytecode, never reading it.
"""

from __future__ import annotations

import compileall
import os
from pathlib import Path


def compile_package(src: str | Path | None = None) -> str:
    """Compile the ``codegold`` package under ``src`` (a ``src`` folder), or the one this
    interpreter imports; returns a line saying what was done, for the benchmark's output."""
    if src is None:
        import codegold

        package = Path(codegold.__file__).parent
    else:
        package = Path(src) / "codegold"
    ok = compileall.compile_dir(str(package), quiet=1, workers=1)
    state = "compiled" if ok else "compiled with errors"
    note = " (PYTHONDONTWRITEBYTECODE is set: Python would not write it)" \
        if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""
    return f"bytecode of {package} {state} before timing{note}"
