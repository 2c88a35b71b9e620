"""Where diagnosis reads facts from: the index and git views of :mod:`codegold.labels`
(one definition, shared with ``codegold cases check``)."""

from __future__ import annotations

from codegold.labels.sources import IndexView, RepoView

__all__ = ["IndexView", "RepoView"]
