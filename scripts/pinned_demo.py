"""Run ``codegold demo --out OUT`` with the chunker fingerprint pinned to a constant.

Chunk ids hash the chunker version, whose fingerprint hashes the chunker's own sources
(``index/fingerprint.py``): any edit to them, a comment or a moved function, changes every
chunk id and so the order of equal-scored chunks. To check that a refactoring changed no
behaviour, run this with the tree before and after and diff the two folders (timings and
timestamps aside):

    PYTHONPATH=OLD/src .venv/bin/python scripts/pinned_demo.py /tmp/demo-old
    .venv/bin/python scripts/pinned_demo.py /tmp/demo-new
"""

from __future__ import annotations

import sys
import types

# Before codegold.index is imported: the chunker reads the fingerprint when it loads.
_pinned = types.ModuleType("codegold.index.fingerprint")
_pinned.chunker_fingerprint = lambda: "0000000000"  # type: ignore[attr-defined]
sys.modules["codegold.index.fingerprint"] = _pinned

from codegold.cli.main import main  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: pinned_demo.py OUT")
    sys.argv = ["codegold", "demo", "--out", sys.argv[1]]
    main()
