"""The index's lexical fields: the fast word split is the regex's, on any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.index import tokens
from codegold.plumbing.memo import MissCache

# ASCII (every control character and separator included) with some non-ASCII letters,
# digits and spaces, so both paths of the split are taken.
_TEXT = st.text(alphabet=st.characters(max_codepoint=127) | st.sampled_from(
    "éßЖ٣\u00a0\u2028\u3000_"), max_size=60)


@settings(max_examples=3000, deadline=None)
@given(_TEXT)
def test_words_are_the_runs_the_word_regex_finds(text: str) -> None:
    assert tokens.words(text) == re.findall(r"\w+", text)


@settings(max_examples=1000, deadline=None)
@given(_TEXT)
def test_a_token_field_is_its_tokens_joined(text: str) -> None:
    assert tokens.code_token_field(text) == " ".join(tokens.code_tokens(text))


def test_the_field_cache_is_bounded() -> None:
    fields = MissCache(tokens._word_field, 3)
    for word in ("alphaBeta", "gamma", "delta_one", "epsilon", "zeta"):
        assert fields[word] == " ".join(tokens._word_tokens(word))
        assert len(fields) <= 3
    assert fields["zeta"] == "zeta"

