"""Checks for the caches retrieval keeps beside an index (``INDEX/dense/``).

A cache is only ever a copy of what can be computed again, so a cache that is truncated,
torn or edited is treated as absent and recomputed, never trusted and never a crash.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import numpy.typing as npt


def load_dense_cache(meta_path: Path, vectors_path: Path, *, cache_format: int,
                     build_id: str | None, dimensions: int | None = None
                     ) -> tuple[list[str], npt.NDArray[np.float32]] | None:
    """``(chunk ids, vectors)`` from a dense cache of ``cache_format`` made for index build
    ``build_id``.

    None when the cache is absent, from another build or format, or does not hold
    together: unreadable JSON or ``.npy``, not one finite float row per chunk id, or rows
    of another width than ``dimensions`` (when given).
    """
    try:
        meta = json.loads(meta_path.read_bytes())
        if (not isinstance(meta, dict) or meta.get("format") != cache_format
                or meta.get("index_build_id") != build_id):
            return None
        ids = meta.get("chunk_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return None
        vectors = np.load(vectors_path, allow_pickle=False)
    except (OSError, ValueError, TypeError, EOFError):
        return None
    if (not isinstance(vectors, np.ndarray) or vectors.ndim != 2 or vectors.shape[0] != len(ids)
            or vectors.dtype.kind != "f"
            or (dimensions is not None and ids and vectors.shape[1] != dimensions)):
        return None
    rows = vectors.astype(np.float32, copy=False)
    if not bool(np.all(np.isfinite(rows))):
        return None
    return ids, rows
