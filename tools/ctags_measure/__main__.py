"""``python -m ctags_measure PATH``: see :mod:`ctags_measure`."""

from __future__ import annotations

from ctags_measure.report import main

raise SystemExit(main())
