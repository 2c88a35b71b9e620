"""Texts that made the secret scan quadratic: a line of many ``mysql`` words (each tried
to the line's end for a ``-p`` password), and many values hidden by percent-encoding or
invisible characters (each span mapped back by a walk over every hidden place). Each at
two sizes, eight times apart, in a child with a timeout, as tests/hostile's other
linear-time checks are."""

from __future__ import annotations

import subprocess
import sys

import pytest

from codegold.plumbing.secrets import find_secrets, redact

TIMEOUT = 60

_HOSTILE = """
import sys
from codegold.plumbing.secrets import find_secrets
make = {
    "mysql-words": lambda n: "mysql " * n,
    "client-words": lambda n: "mysqldump --opts mariadb " * n + "-pS3cretX",
    "encoded-values": lambda n: "password=ab%41cdef " * n,
    "invisible-values": lambda n: "password=ab\\u200bcdef " * n,
}[sys.argv[1]]
for size in (int(sys.argv[2]), 8 * int(sys.argv[2])):
    find_secrets(make(size))
    find_secrets(make(size), code=True)
"""


@pytest.mark.parametrize(("name", "size"), [
    # 5,000 words (30 kB) took 4.8 s, 20,000 over a minute
    ("mysql-words", 20_000), ("client-words", 5_000),
    # 20,000 values (380 kB) took 80 s
    ("encoded-values", 4_000), ("invisible-values", 4_000),
])
def test_hostile_text_is_scanned_in_linear_time(name: str, size: int) -> None:
    done = subprocess.run([sys.executable, "-c", _HOSTILE, name, str(size)],
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize(("text", "value"), [
    ("mysql mysql -uroot -pS3cretX db", "S3cretX"),
    ("mysqldump mysql --all -pS3cretX > dump.sql", "S3cretX"),
    ("mysql -h db mariadb -P 3306 mysql -pS3cretX", "S3cretX"),
])
def test_a_client_password_after_several_client_names_is_still_found(text: str,
                                                                     value: str) -> None:
    clean, kinds = redact(text)
    assert value not in clean and kinds == ["cli_password"], clean


def test_many_hidden_values_are_each_redacted_where_they_are() -> None:
    text = "".join(f"password=ab%4{n}cdef{n} x\u200b password=q\u200bwerty{n}\n"
                   for n in range(10))
    spans = find_secrets(text)
    assert len(spans) == 20
    clean = redact(text)[0]
    assert "cdef" not in clean and "werty" not in clean, clean
    assert clean.count("\n") == 10 and clean.count(" x\u200b ") == 10


# --- a netrc value in double quotes (curl and Python's netrc read it whole) ------------

@pytest.mark.parametrize(("text", "values"), [
    ('machine api.example.com login alice password "correct horse battery"',
     ["correct", "horse", "battery"]),
    ('machine h\n  login "alice smith"\n  password "pa ss\\" zq9x"\n  account "acct 42"\n',
     ["pa ss", "zq9x", "acct 42"]),
    ('default login bob password "unclosed pass phrase\nmachine k password pw2secret',
     ["unclosed", "phrase", "pw2secret"]),
])
def test_a_quoted_netrc_value_is_redacted_whole(text: str, values: list[str]) -> None:
    for code in (False, True):
        clean, kinds = redact(text, code=code)
        for value in values:
            assert value not in clean, (value, clean)
        assert set(kinds) == {"netrc_password"}, kinds
        assert clean.count("\n") == text.count("\n")
        assert redact(clean, code=code) == (clean, [])
        assert "alice" in clean or "bob" in clean  # the login stays


def test_an_empty_quoted_netrc_value_hides_nothing() -> None:
    assert find_secrets('machine h login bob password ""') == []


# --- a word after "bearer" in prose is no token ---------------------------------------

@pytest.mark.parametrize("text", [
    "The token to use as HTTP bearer authorization for remote files.",
    "# supports bearer authentication and basic auth",
    "token_type: Bearer\nexpires_in: 3600",
])
def test_a_word_after_bearer_in_prose_is_kept(text: str) -> None:
    """Docstrings and comments an agent reads ("HTTP bearer authorization") lost their
    next word to a <SECRET:bearer_token> (four times in 3,000 files of site-packages)."""
    for code in (False, True):
        assert redact(text, code=code) == (text, [])


@pytest.mark.parametrize(("text", "value"), [
    ("Authorization: Bearer sometoken", "sometoken"),
    ('headers = {"Authorization": "Bearer plainword"}', "plainword"),
    ("Bearer 9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c", "9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c"),
    ("bearer eyJhbGciOiJIUzI1NiJ9xyz", "eyJhbGciOiJIUzI1NiJ9xyz"),
])
def test_a_bearer_token_is_still_redacted(text: str, value: str) -> None:
    clean, kinds = redact(text)
    assert value not in clean and kinds, clean


@pytest.mark.parametrize("text", [
    'url = f"http://{self.username}:{self.password}@{self.host}/api"',
    "# connect with postgresql://<username>:<password>@localhost/db",
    'DSN = "mysql://${DB_USER}:${DB_PASSWORD}@db:3306/app"',
])
def test_a_template_in_a_urls_credentials_is_code(text: str) -> None:
    """In program text the user and password of a URL that are placeholders are no
    secret (six of the url_credentials found in 3,000 files of site-packages)."""
    assert redact(text, code=True) == (text, [])


def test_literal_credentials_in_a_url_are_still_redacted() -> None:
    for code in (False, True):
        clean, kinds = redact('engine = create_engine("postgresql://scott:t1ger99@db/app")',
                              code=code)
        assert "t1ger99" not in clean and kinds == ["url_credentials"], clean
