"""Every secret kind the scrubber promises to remove, one planted example each: the value
is gone from the text, the placeholder names the kind, and ordinary text and commit shas
stay as they were."""

from __future__ import annotations

import pytest

from codegold.curate.scrub import Scrubber

# (kind in the placeholder, text, the secret value that must not survive)
KINDS: list[tuple[str, str, str]] = [
    ("aws_access_key", "key AKIAIOSFODNN7EXAMPLE in the log", "AKIAIOSFODNN7EXAMPLE"),
    ("password", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("github_token", "token ghp_16C7e42F292c6912E7710c838347Ae178B4a ok",
     "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github_token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
     "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF"),
    ("gitlab_token", "glpat-xxxxxxxxxxxxxxxxxxxx1234", "glpat-xxxxxxxxxxxxxxxxxxxx1234"),
    ("gitlab_token", "deploy with gldt-AbCdEfGhIjKlMnOpQrSt12", "gldt-AbCdEfGhIjKlMnOpQrSt12"),
    ("gitlab_token", "runner glrt-AbCdEfGhIjKlMnOpQrSt12 registered", "glrt-AbCdEfGhIjKlMnOpQrSt12"),
    ("slack_token", "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
     "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack_token", "app token xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef",
     "xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef"),
    ("jwt", "cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx4\n"
                    "-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEAx4"),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
                    "-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAA"),
    ("password", "password=hunter2hunter", "hunter2hunter"),
    ("password", 'password: "correct horse battery staple"', "horse battery"),
    ("password", "api_key: sk12345abcdef", "sk12345abcdef"),
    ("password", '{"apiKey": "abcd1234efgh5678"}', "abcd1234efgh5678"),
    ("bearer_token", "Authorization: Bearer abcdef1234567890abcdef", "abcdef1234567890abcdef"),
    ("bearer_token", "authorization: bearer abcdef1234567890abcdef", "abcdef1234567890abcdef"),
    ("basic_auth", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("authorization_header", "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
     "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"),
    ("url_credentials", "clone https://user:p4ssw0rd@example.com/x.git", "p4ssw0rd"),
    ("google_api_key", "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
     "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI"),
    ("stripe_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe_key", "rk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe_key", "whsec_4eC39HqLyjWDarjtT1zdp7dcAbCdEf12", "whsec_4eC39HqLyjWDarjtT1zdp7dcAbCdEf12"),
    ("password", "DB_TOKEN='Zx81kQ2mP9vL4rT7wY3nB6cF'", "Zx81kQ2mP9vL4rT7wY3nB6cF"),
    ("high_entropy", "my_secret_value: Zx81kQ2mP9vL4rT7wY3nB6cF", "Zx81kQ2mP9vL4rT7wY3nB6cF"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), KINDS,
                         ids=[f"{k}-{n}" for n, (k, _, _) in enumerate(KINDS)])
def test_each_secret_kind_is_removed(kind: str, text: str, secret: str) -> None:
    clean, found = Scrubber(use_detect_secrets=False).scrub(text)
    assert secret not in clean, clean
    assert f"<SECRET:{kind}>" in clean, clean
    assert found[f"SECRET:{kind}"] >= 1


@pytest.mark.parametrize("text", [
    "commit 64cf94f743b6c391bbdfd61ebebeda5d06377c57 fixed the retry",
    "the Authorization header is required for every call",
    "see docs about authorization: none here",
    "where is createSession defined in src/auth/session-service.ts?",
])
def test_ordinary_text_is_kept(text: str) -> None:
    assert Scrubber(use_detect_secrets=False).scrub(text)[0] == text
