"""One answer to "does this labelled target exist, as labelled, at its pinned revision?",
shared by ``codegold cases check`` and diagnosis's ``stale_label``."""

from codegold.labels.lookup import (
    LABEL_FAULTS,
    LabelSource,
    LabelVerdict,
    TargetFacts,
    forbidding_pattern,
    judge_target,
    look_up,
    wants_definition,
)
from codegold.labels.sources import IndexView, RepoView

__all__ = [
    "LABEL_FAULTS",
    "IndexView",
    "LabelSource",
    "LabelVerdict",
    "RepoView",
    "TargetFacts",
    "forbidding_pattern",
    "judge_target",
    "look_up",
    "wants_definition",
]
