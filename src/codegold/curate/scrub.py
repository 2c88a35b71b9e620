"""Removing secrets and personal data from text before anything is written.

Two layers, both replacing what they find with a typed placeholder (``<SECRET:github_token>``,
``<EMAIL>``) and reporting the kind and place, never the value:

1. precise patterns for well-known credential formats (:mod:`codegold.plumbing.secrets`,
   shared with the index, adapters and reports) (cloud keys, tokens, private key
   blocks, credentials inside URLs, ``password=…`` assignments, bearer headers) and for
   personal data (e-mail and IP addresses, phone and card numbers, user names from a
   configurable list, home folders);
2. the plugins of ``detect-secrets`` (a maintained detector: vendor token formats and
   high-entropy strings), run over what the first layer left.

A further rule catches long unquoted tokens that mix letters and digits with high entropy
(keys pasted into prose), while leaving git commit shas alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import msgspec

from codegold.errors import InputError, MissingDependency
from codegold.plumbing.secrets import (
    DETECT_SECRETS_KINDS,
    find_high_entropy,
    find_secrets,
    replace_spans,
)


class Removal(msgspec.Struct, frozen=True, kw_only=True):
    """One kind of value removed from one field of one record, and how many times."""

    record: str
    field: str
    kind: str
    count: int


_PII_PATTERNS: tuple[tuple[str, str], ...] = (
    ("EMAIL", r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b"),
    ("IP", r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b"),
    ("IP6", r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])"),
    ("PHONE", r"(?<![\w+])\+\d{1,3}[\s.-]?\(?\d{1,4}\)?(?:[\s.-]?\d{2,4}){2,4}\b"),
    ("PHONE", r"(?<![\w])\(\d{3}\)\s?\d{3}[\s.-]\d{4}\b"),
    ("HOME", r"(?:(?<=/home/)|(?<=/Users/)|(?<=\\Users\\))[^/\\\s]+"),
)
_CARD = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


MAX_NAME_CHARS = 200
MAX_NAMES = 10_000
MAX_NAMES_FILE_BYTES = 1024**2


def read_names(path: str | None, given: Iterable[str] = ()) -> tuple[str, ...]:
    """User names to scrub: ``given`` and one per line of ``path``, each checked to be a
    name (a short line of text), so a stray file can never become a giant pattern."""
    from codegold.model.io import decode_text, read_bytes

    lines: list[tuple[str, str | None, int | None]] = [(n, None, None) for n in given]
    if path is not None:
        text = decode_text(read_bytes(path, "names", limit=MAX_NAMES_FILE_BYTES), path, "names")
        lines += [(n, path, number) for number, n in enumerate(text.splitlines(), start=1)]
    if len(lines) > MAX_NAMES:
        raise InputError(f"{len(lines)} user names to scrub; at most {MAX_NAMES} are taken",
                         path=path)
    for name, where, number in lines:
        if len(name.strip()) > MAX_NAME_CHARS or any(
                ch < " " and ch != "\t" for ch in name):
            raise InputError(f"a user name to scrub is one line of at most {MAX_NAME_CHARS} "
                             f"characters; found {len(name)} characters"
                             + (" with control characters" if any(ch < " " for ch in name)
                                else ""), path=where if number else None, line=number,
                             field=None if number else "name", settings=("name",))
    return tuple(name for name, _, _ in lines)


@dataclass
class Scrubber:
    """Scrubs strings; keeps per-kind counts for the report. ``names`` are user names to
    remove wherever they appear as words."""

    names: tuple[str, ...] = ()
    use_detect_secrets: bool = True
    _compiled: list[tuple[str, re.Pattern[str]]] = field(default_factory=list, repr=False)
    _plugins: list[object] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._compiled = [(kind, re.compile(p)) for kind, p in _PII_PATTERNS]
        clean = sorted({n.strip() for n in self.names if n.strip()}, key=len, reverse=True)
        if clean:
            names = "|".join(re.escape(n) for n in clean)
            self._compiled.append(("USER", re.compile(rf"(?i)(?<!\w)(?:{names})(?!\w)")))

    def _detectors(self) -> list[object]:
        if self._plugins is None:
            if not self.use_detect_secrets:
                self._plugins = []
                return self._plugins
            try:
                from detect_secrets.settings import default_settings, get_plugins
            except ImportError as err:
                raise MissingDependency("detect-secrets", "cases",
                                        "scrubbing secrets from logs") from err
            with default_settings():
                self._plugins = list(get_plugins())
        return self._plugins

    def scrub(self, text: str) -> tuple[str, Counter[str]]:
        """``text`` with every secret and personal datum replaced, and counts per kind."""
        found: Counter[str] = Counter()
        text = _replace(text, [(start, end, f"SECRET:{kind}")
                               for start, end, kind in find_secrets(text)], found)
        spans = _spans(self._compiled, text)
        for match in _CARD.finditer(text):
            digits = re.sub(r"\D", "", match.group())
            if 13 <= len(digits) <= 19 and _luhn(digits):
                spans.append((*match.span(), "CARD"))
        text = _replace(text, spans, found)
        text = self._detect_secrets_pass(text, found)
        spans = [(start, end, f"SECRET:{kind}") for start, end, kind in find_high_entropy(text)]
        return _replace(text, spans, found), found

    def _detect_secrets_pass(self, text: str, found: Counter[str]) -> str:
        plugins = self._detectors()
        if not plugins:
            return text
        values: dict[str, str] = {}
        for line in text.splitlines():
            for plugin in plugins:
                analyze = getattr(plugin, "analyze_line", None)
                if analyze is None:
                    continue
                try:
                    secrets = analyze(filename="log.txt", line=line, line_number=0)
                except Exception:
                    continue
                for secret in secrets:
                    value = str(getattr(secret, "secret_value", "") or "")
                    # Values touching a placeholder are the placeholder itself, read as a
                    # credential (``user:<SECRET:…>@host``): already removed.
                    if len(value) >= 6 and not set(value) & {"<", ">"} and "SECRET" not in value:
                        kind = re.sub(r"\W+", "_", str(secret.type).lower()).strip("_")
                        # a type this codegold does not know is named generically: only
                        # the known kinds make placeholders (PLACEHOLDER_KINDS)
                        values.setdefault(value, kind if kind in DETECT_SECRETS_KINDS
                                          else "detected_secret")
        for value, kind in sorted(values.items(), key=lambda item: -len(item[0])):
            count = text.count(value)
            if count:
                text = text.replace(value, f"<SECRET:{kind}>")
                found[f"SECRET:{kind}"] += count
        return text

    def scrub_fields(self, record: str, fields: Iterable[tuple[str, str]],
                     report: list[Removal]) -> Iterator[str]:
        """Scrub each ``(field, text)``, appending what was removed to ``report``."""
        for name, text in fields:
            clean, found = self.scrub(text)
            report.extend(Removal(record=record, field=name, kind=kind, count=count)
                          for kind, count in sorted(found.items()))
            yield clean


def _spans(patterns: list[tuple[str, re.Pattern[str]]], text: str) -> list[tuple[int, int, str]]:
    spans = []
    for kind, pattern in patterns:
        for match in pattern.finditer(text):
            start, end = match.span("value") if "value" in pattern.groupindex else match.span()
            if kind == "IP6" and not _ipv6_like(match.group()):
                continue
            if end > start:
                spans.append((start, end, "IP" if kind == "IP6" else kind))
    return spans


def _ipv6_like(text: str) -> bool:
    groups = [g for g in text.split(":") if g]
    return ("::" in text and len(groups) >= 2) or len(groups) >= 5


def _replace(text: str, spans: list[tuple[int, int, str]], found: Counter[str]) -> str:
    """Replace non-overlapping spans (the longest wins where they overlap)."""
    text, kinds = replace_spans(text, [(start, end, "USER" if kind == "HOME" else kind)
                                       for start, end, kind in spans], "<{kind}>")
    found.update(kinds)
    return text
