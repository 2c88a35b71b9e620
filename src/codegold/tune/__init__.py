"""``codegold tune``: tune the reference retriever on a training split, judge on held-out."""

from codegold.tune.engine import Figures, TuneResult, render_config, score, split_cases, tune
from codegold.tune.space import DEFAULT_SPACE, Param, load_space

__all__ = ["DEFAULT_SPACE", "Figures", "Param", "TuneResult", "load_space", "render_config",
           "score", "split_cases", "tune"]
