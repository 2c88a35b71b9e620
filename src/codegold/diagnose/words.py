"""Which of a query's words a chunk holds: the vocabulary half of a ranking miss.

A retriever that matches words cannot rank a target that holds none of the question's
words, and has no reason to prefer one that holds fewer of them than the chunks it put
first. Diagnosis says which of the two a miss is (a question asked in other words than
the code's, or a ranking that words alone do not decide), so that the fix goes to the
right place: the question or a signal that matches meaning, or the fusion and rerank.

Words are compared as the index splits them (``createSession`` holds ``create`` and
``session``), lower-cased and reduced to their English stem (the retriever's stemmer:
``retries``/``retry``, ``parsed``/``parsing``), so that inflection is no gap. Words of
fewer than three letters, numbers and the commonest English words are not counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from codegold.index.tokens import STOPWORDS, code_tokens, stem, words

# Words no target is expected to hold: the retriever's stop words, and the words of
# asking and of degree a question adds ("what happens whether ...", "must it still ...").
_COMMON = STOPWORDS | frozenset((
    "done", "else", "even", "ever", "every", "gets", "happen", "happened", "happens", "however",
    "let", "many", "may", "might", "much", "must", "need", "needs", "often", "per", "since",
    "still", "upon", "us", "uses", "via", "well", "whether", "whose", "within", "without",
    "yet"))


def query_words(text: str) -> dict[str, str]:
    """The words of a question that count: each stem once, in order, with the word as the
    question first wrote it (to show)."""
    out: dict[str, str] = {}
    for word in words(text):
        pieces = code_tokens(word)
        # a multi-piece identifier also yields its compound; a question's word is its pieces
        for piece in pieces[:-1] if len(pieces) > 1 else pieces:
            if len(piece) >= 3 and not piece.isdigit() and piece not in _COMMON:
                out.setdefault(stem(piece), piece)
    return out


def chunk_words(*texts: str) -> frozenset[str]:
    """Every stemmed word of a chunk's texts (its code, path and symbol names)."""
    return frozenset(stem(t) for text in texts for t in code_tokens(text))


@dataclass(frozen=True)
class Share:
    """How many of the query's words a chunk holds, and which (as the query wrote them)."""

    asked: int
    held: tuple[str, ...]


def share(asked: dict[str, str], texts: Iterable[str]) -> Share:
    """Which of ``asked`` (from :func:`query_words`) the texts of one chunk hold."""
    held = chunk_words(*texts)
    return Share(len(asked), tuple(shown for key, shown in asked.items() if key in held))


# What a ranking miss's words say, in the evidence line's own words: the target holds
# none of the query's words, fewer than the best chunk inside the cutoff, as many, more.
KINDS = ("none", "fewer", "as many", "more")
_LINE = re.compile(r"words \[(none|fewer|as many|more)\]: ")


def line_prefix(kind: str) -> str:
    """The opening of the evidence line of ``kind`` (one of :data:`KINDS`)."""
    return f"words [{kind}]: "


def kind_of(evidence: Sequence[str]) -> str | None:
    """The kind of the words line among ``evidence`` (a diagnosis's), None without one."""
    for line in evidence:
        found = _LINE.match(line)
        if found:
            return found.group(1)
    return None
