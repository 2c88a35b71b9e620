"""Redaction, fourth round: a value that is plainly code (a call, a subscript, a member
naming a secret) is where a secret comes from, not the secret, in data text too (a log, a
query, a config file), while literal values stay redacted in both readings."""

from __future__ import annotations

import pytest

from codegold.plumbing.secrets import redact_text

CODE_VALUES = [
    'password = request.form["password"]',
    "password = request.form['password']",
    'password = os.environ["PASSWORD"]',
    "password = getpass()",
    'password = getpass.getpass("Password: ")',
    'secret = os.environ.get("APP_SECRET")',
    'password = os.getenv("PW", default())',
    "password = config.password",
    "api_key = settings.API_KEY",
    "token = self.token",
    "token=get_token(user);",
    'token = request.headers.get("X-Token")',
    '$password = $_POST["password"];',
    "PASSWORD=$(cat /run/secrets/db_password)",
    'Authorization: request.headers["Authorization"]',
]


@pytest.mark.parametrize("code", [False, True], ids=["data", "code"])
@pytest.mark.parametrize("line", CODE_VALUES)
def test_a_value_that_is_code_is_kept(line: str, code: bool) -> None:
    assert redact_text(line, code=code) == line
    assert redact_text(f"some log\n  {line}\nmore", code=code) == f"some log\n  {line}\nmore"


LITERALS = [  # (text, the secret in it)
    ('password = "hunter2xyz"', "hunter2xyz"),
    ("password: s3cr3tValue", "s3cr3tValue"),
    ("PASSWORD=abc123def", "abc123def"),
    # shaped almost like code, but literals: no name called, a number's argument, a
    # member that names no secret, ``$`` inside a word
    ("password: hunter.two", "hunter.two"),
    ("password=Abc(1)", "Abc(1)"),
    ("password=abc(x)yz", "abc(x)yz"),
    ("password=Pa$$w0rd(x)", "Pa$$w0rd"),
    ('password: "config.password"', "config.password"),
    ('password = "request.form[1]"', "request.form[1]"),
]


@pytest.mark.parametrize(("text", "secret"), LITERALS)
def test_a_literal_stays_redacted_in_data(text: str, secret: str) -> None:
    redacted = redact_text(text)
    assert secret not in redacted and "<SECRET:password>" in redacted, redacted


@pytest.mark.parametrize(("text", "secret"), LITERALS[:3])
def test_a_literal_stays_redacted_in_code(text: str, secret: str) -> None:
    assert secret not in redact_text(text, code=True)
