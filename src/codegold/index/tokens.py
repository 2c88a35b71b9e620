"""Lexical tokens shared by the index (FTS columns) and the retriever (queries).

Identifiers split on camelCase, snake_case and digit boundaries; each piece is
lower-cased and a multi-piece identifier also keeps its compound, so ``createSession``
yields ``create``, ``session`` and ``createsession``. Index and query use the same
functions, so a query for ``create_session`` meets ``createSession`` on every piece.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import chain

import Stemmer  # type: ignore[import-not-found]  # PyStemmer: no type hints

from codegold.plumbing.memo import MissCache

# Words of English prose that say nothing about where code is: never a search term of a
# question (the retriever) nor a word a target is expected to hold (diagnosis).
STOPWORDS = frozenset(["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "get", "got", "like", "use", "using", "used", "want", "wants", "seems", "seem", "think", "way", "make", "makes", "made", "one", "two", "also", "e", "g", "eg", "ie", "etc", "thanks", "thank", "please", "hi", "hello", "would", "could", "should"])

_WORD = re.compile(r"\w+")
# An acronym before a capitalised word (HTTPServer → HTTP, Server), a capitalised or
# lower-case run, a bare upper-case run, or digits.
_PIECE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@lru_cache(maxsize=200_000)
def _word_tokens(word: str) -> tuple[str, ...]:
    # Identifiers repeat heavily within a repository, so splitting is cached per word.
    if not word.isascii():
        return (word.lower(),)
    pieces = _PIECE.findall(word)
    if not pieces:
        return ()
    lowered = tuple(piece.lower() for piece in pieces)
    if len(lowered) > 1:
        return (*lowered, "".join(lowered))
    return lowered


# Every ASCII character that is not a word character (``\w``: letters, digits and ``_``)
# as a space: an ASCII text translated through it splits on whitespace into exactly the
# runs ``_WORD`` finds, at less than half the cost of the regex (the index build's
# hottest loop). Other text goes through the regex.
_NOT_WORD = str.maketrans({chr(i): " " for i in range(128)
                           if not (chr(i).isalnum() or chr(i) == "_")})


def words(text: str) -> list[str]:
    """The runs of word characters of ``text``: what ``_WORD.findall(text)`` gives."""
    return text.translate(_NOT_WORD).split() if text.isascii() else _WORD.findall(text)


def _word_field(word: str) -> str:
    return " ".join(_word_tokens(word))


# Word → its tokens joined by spaces (the index's hottest lookup).
_FIELDS: MissCache[str, str] = MissCache(_word_field, 200_000)


def code_tokens(text: str) -> list[str]:
    """Tokens of source text or a query, in order, duplicates kept (BM25 counts them)."""
    return list(iter_code_tokens(text))


def iter_code_tokens(text: str) -> Iterator[str]:
    """:func:`code_tokens` as an iterator (what a join needs, without the list)."""
    # map + chain keep the per-word loop in C; this is the hot path of an index build.
    return chain.from_iterable(map(_word_tokens, words(text)))


def code_token_field(text: str) -> str:
    """``" ".join(code_tokens(text))``, one cached string per distinct word (an index
    stores every chunk's tokens in this form)."""
    return " ".join(filter(None, map(_FIELDS.__getitem__, words(text))))


def path_tokens(path: str) -> list[str]:
    """Tokens of a repository path; hyphenated names also keep their compound.

    ``src/auth/session-service.ts`` → ``src auth session service sessionservice ts``.
    """
    return code_tokens(path.replace("-", "_"))


def symbol_tokens(symbols: tuple[str, ...] | list[str]) -> list[str]:
    """Tokens of qualified symbol names (``SessionService.createSession``)."""
    out: list[str] = []
    for symbol in symbols:
        out.extend(code_tokens(symbol))
    return out


# PyStemmer: the Snowball English (Porter2) stemmer compiled to C. The pure-Python build of
# the same algorithm (snowballstemmer) gave the same stem for each of 158,572 distinct words
# and took 19x as long: in a fresh process every distinct word of a repository is stemmed
# once (0.47 s of pytest's index build).
_STEMMER = Stemmer.Stemmer("english")
# Which stemmer build made a stem (part of the key of caches that hold stems).
STEMMER_KIND: str = type(_STEMMER).__module__


@lru_cache(maxsize=200_000)
def stem(token: str) -> str:
    """English stem of a lower-case word token (``redirects`` → ``redirect``, ``removed`` →
    ``remov``); short, numeric and non-ASCII tokens are kept as they are. The retriever's
    stemmed BM25 and diagnosis's word comparison share it."""
    if len(token) <= 3 or not token.isascii() or not token.isalpha():
        return token
    return str(_STEMMER.stemWord(token))
