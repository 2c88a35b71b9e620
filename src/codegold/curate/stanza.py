"""Writing case files: drafts become ordinary ``format: 1`` case files, read back by the
same loader as hand-written ones."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from codegold.errors import InputError

CASES_HEADER = ("# Draft gold cases written by codegold. Review every case: check the targets\n"
                "# (`codegold cases check`), fix the query class and write the rationale.\n")


def slug(text: str, *, limit: int = 48) -> str:
    """A case-id-safe slug of ``text``."""
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return cleaned[:limit].rstrip("-") or "case"


def unique_id(base: str, seen: set[str]) -> str:
    candidate, n = base, 2
    while candidate in seen:
        candidate, n = f"{base}-{n}", n + 1
    seen.add(candidate)
    return candidate


def case_file_text(cases: list[dict[str, Any]], defaults: dict[str, Any] | None = None,
                   header: str = CASES_HEADER) -> str:
    document: dict[str, Any] = {"format": 1}
    if defaults:
        document["defaults"] = defaults
    document["cases"] = cases
    body = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    return header + body


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write {target}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise InputError(f"cannot write {target}: {err.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write {target}: {err.strerror}") from None
