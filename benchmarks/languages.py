"""Definition recall and precision of codegold's structural chunker against Universal Ctags.

The measure is the ``ctags_measure`` tool (tools/ctags_measure/, where its method is
written down); this prints its figures for a local checkout:

    python benchmarks/languages.py PATH [--language L] [--span] [--misses N]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from ctags_measure import main

if __name__ == "__main__":
    raise SystemExit(main())
