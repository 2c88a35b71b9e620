"""Words of a question that code writes run together: ``warnings`` → ``filterwarnings``.

Code often joins words without a separator or a case change (``filterwarnings``,
``rootdir``, ``hostname``, ``setenv``), and the tokeniser cannot split what has no
boundary. A question says the words apart ("which warnings ...", "the host name"), so
BM25 never meets the compound. This module finds, in an engine's own vocabulary:

- a **joined pair**: two adjacent question words written as one term (``host name`` →
  ``hostname``);
- a **compound holding a question word**: a term that is another vocabulary term
  followed or preceded by the word (``warnings`` → ``filterwarnings``); each part has at
  least ``_MIN_PART`` letters.

Only vocabulary terms count as the other part, so the expansion is the repository's own
spelling, never a word list's. Each word brings at most ``per_word`` compounds, the most
frequent first, at a weight below a plain term's (the caller chooses it).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence

_MIN_PART = 3
_MIN_WORD = 4


class Vocabulary:
    """A sorted view of an engine's terms for prefix and suffix lookups."""

    def __init__(self, terms: Sequence[str], frequency: Callable[[str], int]) -> None:
        words = [t for t in terms if t.isascii() and t.isalpha()]
        self._known = frozenset(words)
        self._forward = sorted(words)
        self._backward = sorted(w[::-1] for w in words)
        self._frequency = frequency

    def __contains__(self, term: object) -> bool:
        return term in self._known

    @staticmethod
    def _starting(sorted_words: list[str], head: str) -> list[str]:
        start = bisect.bisect_left(sorted_words, head)
        end = bisect.bisect_left(sorted_words, head + "\x7f")
        return sorted_words[start:end]

    def holding(self, word: str, per_word: int) -> list[str]:
        """Terms that are ``word`` joined to another term (either side), most frequent first."""
        found = [t for t in self._starting(self._forward, word)
                 if len(t) - len(word) >= _MIN_PART and t[len(word):] in self._known]
        found += [t[::-1] for t in self._starting(self._backward, word[::-1])
                  if len(t) - len(word) >= _MIN_PART and t[::-1][:-len(word)] in self._known]
        return sorted(dict.fromkeys(found), key=lambda t: (-self._frequency(t), t))[:per_word]


def compound_terms(words: Sequence[str], vocabulary: Vocabulary, *,
                   fold: Callable[[str], str] = lambda w: w,
                   skip: frozenset[str] = frozenset(), per_word: int = 3) -> list[str]:
    """Compound terms for the question ``words`` (lower-case, in question order), each
    once, none of them already a term of the question. ``fold`` maps a word to the
    engine's term (its stem for a stemmed engine); ``skip`` are words that bring none
    (stop words)."""
    asked = {fold(w) for w in words}
    out: list[str] = []
    for first, second in itertools.pairwise(words):
        if first in skip or second in skip or not (first.isalpha() and second.isalpha()):
            continue
        joined = fold(first + second)
        if joined in vocabulary and joined not in asked:
            out.append(joined)
    for word in dict.fromkeys(words):
        if word in skip or len(word) < _MIN_WORD or not word.isalpha():
            continue
        for term in vocabulary.holding(fold(word), per_word):
            if term not in asked:
                out.append(term)
    return list(dict.fromkeys(out))
