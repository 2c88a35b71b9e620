"""Writing case files: drafts become ordinary ``format: 1`` case files, read back by the
same loader as hand-written ones; a search's picked results become one case stanza."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import yaml

from codegold.errors import InputError
from codegold.model.cases import ROLES
from codegold.plumbing.secrets import redact_data
from codegold.plumbing.text import terminal_safe

if TYPE_CHECKING:
    from codegold.model import Chunk
    from codegold.model.manifest import Manifest

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


_LINE_BREAKS = re.compile("[\r\x85\u2028\u2029]")


class _Dumper(yaml.SafeDumper):
    pass


def _string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # PyYAML folds a NEL or line separator inside a plain or single-quoted scalar into a
    # space when read back; double quotes write it as an escape.
    style = '"' if _LINE_BREAKS.search(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _string)


def yaml_text(document: Any) -> str:
    """``document`` as YAML, written by the YAML library (never by pasting values into
    text): every string is quoted where it must be, NEL and other line breaks included,
    so what is read back is what was written."""
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def yaml_comments(lines: list[str]) -> str:
    """``# `` comment lines; a line break or control character in ``lines`` (a folder
    name quoted in a comment) is shown escaped, so a comment never ends early."""
    return "".join(f"# {terminal_safe(line)}\n" for line in lines)


def case_file_text(cases: list[dict[str, Any]], defaults: dict[str, Any] | None = None,
                   header: str = CASES_HEADER) -> str:
    """A case file's text; drafts quote commit messages, code and logs, so every string
    has secret values replaced (:func:`codegold.plumbing.secrets.redact_data`)."""
    document: dict[str, Any] = {"format": 1}
    if defaults:
        document["defaults"] = redact_data(defaults)
    document["cases"] = redact_data(cases)
    return header + yaml_text(document)


def search_case_stanza(query: str, manifest: Manifest, chunks: list[Chunk],
                       cutoff: int | None = None) -> str:
    """A case (YAML list item) accepting any of ``chunks``, pinned to ``manifest``'s
    repository and revision; a role the case format does not know is left out. It names
    a cutoff only when given one: by default the case file's ``defaults`` decide it (the
    production cutoff is the answer stage's, not how deep a search looked)."""
    if not manifest.revision:
        raise InputError("the index's manifest names no revision to pin the case to")
    case_slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")[:60].strip("-") \
        or "new-case"
    targets: list[dict[str, object]] = []
    for chunk in chunks:
        target: dict[str, object] = {"file": chunk.file}
        if chunk.symbol:
            target["symbol"] = chunk.symbol
        if chunk.role in ROLES:
            target["roles"] = [chunk.role]
        targets.append(target)
    case: dict[str, object] = {"id": case_slug, "query": query}
    if manifest.repository:
        case["repository"] = manifest.repository
    case["revision"] = manifest.revision
    if cutoff is not None:
        case["cutoff"] = cutoff
    case["accepted"] = targets
    return yaml.safe_dump([case], sort_keys=False, allow_unicode=False, width=100)
