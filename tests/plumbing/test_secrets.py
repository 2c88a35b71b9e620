"""The shared secret detectors: each known format found and redacted, line count kept,
program text not mistaken for secrets."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.plumbing import secrets
from codegold.plumbing.secrets import find_secrets, redact, redact_bytes, redact_text, summary

AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
       "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx4Zq\nQ2VydGlmaWNhdGVCb2R5\n"
       "-----END RSA PRIVATE KEY-----")


@pytest.mark.parametrize(("kind", "text", "value"), [
    ("aws_access_key", f"key = {AWS}\n", AWS),
    ("github_token", f"GITHUB_TOKEN: {GH}", GH),
    ("jwt", f"cookie {JWT}", JWT),
    ("private_key", PEM, "MIIEpAIBAAKCAQEAx4Zq"),
    ("password", "DB_PASSWORD=hunter2hunter2", "hunter2hunter2"),
    ("url_credentials", "postgres://admin:s3cr3tpw@db.example.com/app", "s3cr3tpw"),
    ("password", 'const apiToken = "a1b2c3d4e5f6g7h8i9"', "a1b2c3d4e5f6g7h8i9"),
    ("password", '"private_key_id": "1a2b3c4d5e6f7a8b9c0d"', "1a2b3c4d5e6f7a8b9c0d"),
    ("shopify_token", "shpat_" + "1a2b3c4d" * 4, "1a2b3c4d" * 4),
    ("digitalocean_token", "DO=dop_v1_" + "a1" * 32, "a1" * 32),
    ("square_token", "sq0atp-" + "A1b2C3d4E5f6G7h8I9j0K1", "A1b2C3d4E5f6G7h8I9j0K1"),
    ("mailgun_key", "key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "3ax6xnjp29jd6fds4gc373sgvjxteol0"),
    ("telegram_bot_token", "BOT=123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawX", "HdqTcvCH1vGW"),
    ("discord_webhook", "https://discord.com/api/webhooks/123456789012345678/" + "aB3_" * 17,
     "aB3_" * 17),
    ("azure_sas_signature", "https://x.blob.core.windows.net/c?sv=2020&sig=abcdEFGH1234%2Babcd",
     "abcdEFGH1234"),
    ("registry_auth", '{"auths": {"r.io": {"auth": "dXNlcjpwYXNzd29yZA=="}}}',
     "dXNlcjpwYXNzd29yZA=="),
])
def test_each_kind_is_redacted(kind: str, text: str, value: str) -> None:
    clean, kinds = redact(text)
    assert value not in clean
    assert f"<SECRET:{kind}>" in clean
    assert kinds == [kind]
    assert clean.count("\n") == text.count("\n")


def test_private_key_keeps_line_numbers() -> None:
    text = f"a = 1\n{PEM}\nb = 2\n"
    clean, _ = redact(text)
    assert clean.splitlines()[5] == "b = 2"
    assert len(clean.splitlines()) == len(text.splitlines())


def test_code_mode_ignores_expressions_but_not_literals() -> None:
    code = ("token = get_token()\npassword = password\napi_key: Optional[str] = None\n"
            "url = f\"{base}?token={token}\"\ndef f(token: \"Token\"): pass\n"
            "kind = token = \"NAME\"\nsecret = self.secret\nif token == \"else\": pass\n")
    assert find_secrets(code, code=True) == []
    literal = 'password = "correct horse battery"\n'
    clean, kinds = redact(literal, code=True)
    assert "horse" not in clean and kinds == ["password"]
    # an unquoted value that is no expression is a secret even in program text
    assert redact("DB_PASSWORD = hunter2-plain!", code=True)[1] == ["password"]
    # unquoted assignment values count outside program text (.env, YAML)
    assert redact("password: hunter2hunter2", code=False)[1] == ["password"]


def test_basic_credentials_are_base64_of_a_user_and_password_not_prose() -> None:
    import base64

    for prose in ("Commands are the basic building block of interfaces",
                  "// type adapters for basic types", " * Basic container for information",
                  "A basic collector does the following"):
        assert find_secrets(prose) == [], prose
        assert find_secrets(prose, code=True) == [], prose
    token = base64.b64encode(b"alice:s3cret!").decode()
    assert redact(f"Authorization: Basic {token}")[1] == ["basic_auth"]
    assert redact("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA'")[1] == ["basic_auth"]
    # in an authorization header any value is the credential, base64 of a pair or not
    assert redact("Authorization: Basic opaqueValue1234abc")[1] == ["basic_auth"]
    assert redact('headers = {"Authorization": "Basic abcdefghijkl"}', code=True)[1] == [
        "basic_auth"]


def test_optional_and_unwrapped_type_annotations_are_code() -> None:
    # Swift, Kotlin and TypeScript mark an optional or force-unwrapped type after its name
    for annotation in ("    let credential: URLCredential?\n", "var password: String! = nil",
                       "private val token: Token?", "secret?: SecretRef;"):
        assert find_secrets(annotation, code=True) == [], annotation
    assert redact("password: hunter2secret!", code=True)[1] == ["password"]


def test_program_text_templates_are_code_but_a_key_with_symbols_is_not() -> None:
    for template in ('token = "${TOKEN}"', 'password = "{password}"', 'token = "$TOKEN"',
                     'password = "%s"', 'msg = "password: %(pw)s"', 'password = "{{ pw }}"',
                     'apiKey = "<your-api-key>"', 'dbPassword = self.password',
                     'const tokenType = "Bearer"', 'resetToken: "RESET_TOKEN"'):
        assert redact(template, code=True)[1] == [], template
    key = "SECRET_KEY = 'django-insecure-9x!k3@abc$def%ghi^jkl&mno*pqr(stu)vwx'"
    assert redact(key, code=True)[1] == ["password"]


def test_commit_shas_and_identifiers_left_alone() -> None:
    text = "fixed in 3f68565a1b2c3d4e5f60718293a4b5c6d7e8f901 by TokenRefreshHandler2024\n"
    assert find_secrets(text) == []


def test_bytes_round_trip_and_summary() -> None:
    data = b"caf\xe9 " + AWS.encode() + b"\n"
    out = redact_bytes(data)
    assert AWS.encode() not in out and out.startswith(b"caf\xe9 ")
    assert redact_bytes(b"plain \xff text") == b"plain \xff text"
    assert summary(["password", "jwt", "password"]) == "3 (jwt, password x2)"


_FRAGMENTS = ("password", "private_key_id", "dbPassword", "apiToken", "key-", "Client_Secret", "access-token", "api_key", "APIKEY", "mytoken",
              "pwd", "credentials", "://", "user:pa55word@", "http://", "Basic ", "basic ",
              "bearer ", "sk_live_", "whsec_", "sk-", "ask-", "SK", "AC", "xAC",
              "0123456789abcdef", "abcdEFGH1234wxyz", "=", ": ", ":\n  ", '"', "'", " ", "\n",
              "İ", "\u212a", "\u017fecret", "ı", "\udcff", "é", ";", "(x)")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40), st.booleans())
def test_anchored_matching_finds_what_a_full_scan_finds(parts: list[str], code: bool) -> None:
    # Some kinds are matched only near their hints; dropping the anchors makes every kind
    # scan the whole text, which must find exactly the same spans.
    text = "".join(parts)
    anchored = secrets.find_secrets(text, code=code)
    with patch.dict(secrets._ANCHORS, clear=True):
        scanned = secrets.find_secrets(text, code=code)
    assert anchored == scanned


@pytest.mark.parametrize("shown", [
    "&lt;SECRET:github_token&gt;",              # HTML
    "\\u003cSECRET:github_token\\u003e",        # JSON in a page
    "\\u0026lt;SECRET:github_token\\u0026gt;",  # escaped HTML in JSON
    "&lt;SECRET:github\\_token&gt;",            # Markdown's escaped underscore
])
def test_an_escaped_placeholder_survives_a_second_pass(shown: str) -> None:
    """Reports are redacted again once rendered, where a placeholder is escaped: the
    second pass leaves it whole (``SECRET:github_token&gt`` is not an assignment)."""
    for code in (False, True):
        text = f"retriever error: {shown}; rank 1 {shown}"
        assert redact(text, code=code) == (text, [])
    assert redact(f"&lt;b&gt;secret: {GH}")[1] == ["github_token"]  # escaping hides no value


@pytest.mark.parametrize("dressed", [
    "token <SECRET:a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0> here",   # a hex key
    "key <SECRET:ghp_" + "a1" * 18 + ">",                               # a GitHub token
    "password: <SECRET:hunter2hunter2>",
])
def test_a_secret_dressed_as_a_placeholder_is_still_redacted(dressed: str) -> None:
    """Only a kind name (known, or lower-case words without digits) makes a placeholder:
    ``<SECRET:…>`` around a key is scanned, and the key goes with its whole shell."""
    inner = dressed.split("<SECRET:", 1)[1].split(">", 1)[0]
    clean = redact_text(dressed)
    assert inner not in clean and "<SECRET:" in clean
    assert "SECRET:<SECRET" not in clean and "<SECRET:<" not in clean
    assert redact_text(clean) == clean


@pytest.mark.parametrize("kind", ["password", "github_token", "public_ip_ipv4", "api_key",
                                  "secret_keyword", "detected_secret"])
def test_real_placeholders_survive_a_second_pass(kind: str) -> None:
    for text in (f"password: <SECRET:{kind}>", f"x <SECRET:{kind}> y",
                 f"token &lt;SECRET:{kind.replace('_', chr(92) + '_')}&gt;"):
        assert redact_text(text) == text


def test_every_kind_codegold_or_detect_secrets_writes_is_a_placeholder() -> None:
    for kind in secrets.PLACEHOLDER_KINDS:
        assert secrets.PLACEHOLDER.fullmatch(f"<SECRET:{kind}>"), kind
        assert redact_text(f"token: <SECRET:{kind}>") == f"token: <SECRET:{kind}>", kind


@pytest.mark.parametrize(("text", "kind"), [
    ("owner_ghp_" + "a1" * 18, "github_token"),
    ("KEY_AKIAIOSFODNN7EXAMPLE", "aws_access_key"),
    ("x_hf_" + "a1" * 16, "huggingface_token"),
    ("ci_glpat-" + "a" * 20, "gitlab_token"),
    ("tok_xoxb-1234567890-abcdef", "slack_token"),
])
def test_a_prefixed_token_glued_to_a_word_by_an_underscore_is_found(text: str, kind: str) -> None:
    """An underscore joins a token to the name before it (``owner_ghp_…``); only a letter
    or digit before the prefix means the prefix is inside another word."""
    assert [found[2] for found in find_secrets(text)] == [kind]


@pytest.mark.parametrize("text", ["graph_ghp_short", "disk_live_" + "a" * 20,
                                  "aghp_" + "a1" * 18, "tasks_list"])
def test_a_prefix_inside_a_word_is_not_a_token(text: str) -> None:
    assert find_secrets(text) == []
