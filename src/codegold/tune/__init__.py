"""``codegold tune``: tune the reference retriever on a training split, judge on held-out."""

from codegold.tune.engine import (
    Figures,
    Fold,
    LoroResult,
    TuneResult,
    loro,
    render_config,
    render_loro,
    score,
    split_cases,
    tune,
)
from codegold.tune.space import DEFAULT_SPACE, Param, load_space

__all__ = ["DEFAULT_SPACE", "Figures", "Fold", "LoroResult", "Param", "TuneResult", "load_space",
           "loro", "render_config", "render_loro", "score", "split_cases", "tune"]
