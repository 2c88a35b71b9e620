"""What in a query names code: the one home of the identifier rules.

Two readings, for two jobs, kept side by side so that a change to one is a change made
knowingly to the other:

* :func:`looks_like_code` is the reference retriever's: a word of prose is searched as a
  name when its shape says code (a qualified name, snake case, camelCase humps). It is
  strict on purpose, since a word taken for a name is boosted: ``v2`` or ``HTTP2`` in an
  issue's prose stay words.
* :func:`identifiers` is diagnosis's (``query_rewrite_loss``): every word a user may have
  meant as a name (backticked, a path, letters mixed with digits too), since a rewrite of
  any retriever that drops one has lost something.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


# A long query repeats its words (a pasted log, one word a hundred thousand times): each
# distinct word is read once.
@lru_cache(maxsize=65_536)
def looks_like_code(word: str) -> bool:
    """The reference retriever's reading of one word of a query (see the module)."""
    if "." in word or "::" in word:
        return True
    if "_" in word.strip("_") or word.startswith("__"):
        return True
    core = word.lstrip("_")
    if re.search(r"[a-z][A-Z]", core):  # camelCase / PascalCase with two humps
        return True
    return bool(re.fullmatch(r"[A-Z][A-Z0-9]{2,}(?:_[A-Z0-9]+)*", core)) and "_" in core


_SPAN = re.compile(r"`([^`]*)`|([^`]+)")
_TOKEN = re.compile(r"(?:\.{0,2}/)?[\w$]+(?:(?:::|->|[-./#])[\w$]+)*")
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2,}[a-z]")
_PARTS = re.compile(r"[\w$]+")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "cf", "vs", "viz", "et.al", "a.k.a", "n.b", "p.s"})


@dataclass(frozen=True)
class Token:
    text: str
    quoted: bool  # written between backticks

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(_PARTS.findall(self.text))

    @property
    def is_identifier(self) -> bool:
        """Backticked, or shaped like code: snake/camel case, a path, a qualified name,
        letters mixed with digits. Prose abbreviations (``e.g.``, ``i.e.``) are not."""
        text = self.text
        if not any(ch.isalpha() for ch in text):
            return False
        if self.quoted:
            return True
        if text.lower() in _ABBREVIATIONS:
            return False
        if "." in text and "/" not in text and all(len(p) <= 1 for p in text.split(".")):
            return False
        return ("_" in text.strip("_") or "/" in text or "::" in text or "->" in text or "#" in text
                or "." in text or bool(_CAMEL.search(text))
                or (any(ch.isdigit() for ch in text) and text[0].isalpha()))


def tokenize(text: str) -> list[Token]:
    """Split a query into word tokens; the same tokenizer reads raw and rewritten queries."""
    out: list[Token] = []
    for quoted, plain in _SPAN.findall(text):
        span = quoted if quoted else plain
        out += [Token(m, bool(quoted)) for m in _TOKEN.findall(span)]
    return out


# A link (``https://github.com/org/repo/issues/12``): an address, not a name of the code.
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://\S+")


def identifiers(text: str) -> list[str]:
    """The identifiers of a query, in order, each once (links are not read)."""
    return list(dict.fromkeys(t.text for t in tokenize(_URL.sub(" ", text)) if t.is_identifier))
