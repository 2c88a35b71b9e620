"""Writing case files: drafts become ordinary ``format: 1`` case files, read back by the
same loader as hand-written ones."""

from __future__ import annotations

import re
from typing import Any

import yaml

from codegold.plumbing.secrets import redact_data

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
    """A case file's text; drafts quote commit messages, code and logs, so every string
    has secret values replaced (:func:`codegold.plumbing.secrets.redact_data`)."""
    document: dict[str, Any] = {"format": 1}
    if defaults:
        document["defaults"] = redact_data(defaults)
    document["cases"] = redact_data(cases)
    body = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    return header + body
