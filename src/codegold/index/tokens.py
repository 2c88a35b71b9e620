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


def code_tokens(text: str) -> list[str]:
    """Tokens of source text or a query, in order, duplicates kept (BM25 counts them)."""
    return list(iter_code_tokens(text))


def iter_code_tokens(text: str) -> Iterator[str]:
    """:func:`code_tokens` as an iterator (what a join needs, without the list)."""
    # map + chain keep the per-word loop in C; this is the hot path of an index build.
    return chain.from_iterable(map(_word_tokens, _WORD.findall(text)))


@lru_cache(maxsize=200_000)
def _word_field(word: str) -> str:
    return " ".join(_word_tokens(word))


def code_token_field(text: str) -> str:
    """``" ".join(code_tokens(text))``, one cached string per distinct word (an index
    stores every chunk's tokens in this form)."""
    return " ".join(filter(None, map(_word_field, _WORD.findall(text))))


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
