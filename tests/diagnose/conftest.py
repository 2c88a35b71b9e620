from __future__ import annotations

import sys
from pathlib import Path

# The RunResult builders live beside the compare tests; report tests reuse them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compare"))
