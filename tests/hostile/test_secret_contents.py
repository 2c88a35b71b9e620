"""Secret files read without their names: what an agent's ``cat ~/.netrc``, ``sed -n
5,9p ~/.pgpass`` or ``tail -n 20 key.asc`` printed reaches a trajectory step or an
excerpt with no file name that marks it as secret, so the text itself must.

A netrc entry's ``password`` (and ``account``), a .pgpass line's password field, and an
armoured key's body seen from its middle (no BEGIN line: the base64 lines above an
``-----END … PRIVATE KEY-----`` line, or a run of full 64- or 70-character base64 lines)
were kept as they were. Each is redacted now, in its own shape only: prose about
passwords, times, IPv6 addresses, grep output, certificates and public keys are left
alone. A binary OpenPGP secret key (``secring.gpg``) is replaced whole by
``redact_bytes`` and marked by its name.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.plumbing import secrets
from codegold.plumbing.secrets import (
    find_secrets,
    redact,
    redact_bytes,
    redact_text,
    secret_file_kind,
)
from hostilekit import import_swe_steps

FIXTURES = Path(__file__).resolve().parents[1] / "trajectories" / "fixtures"
CASES = FIXTURES / "cases.yaml"
TIMEOUT = 60


def _redacted(text: str, kind: str, values: list[str]) -> str:
    """``text`` redacted in data and in program text alike: each value gone, ``kind`` named,
    line count kept, a second pass changing nothing."""
    for code in (False, True):
        clean, kinds = redact(text, code=code)
        for value in values:
            assert value not in clean, (value, clean)
        assert kind in kinds, (kinds, clean)
        assert clean.count("\n") == text.count("\n")
        assert redact(clean, code=code) == (clean, [])
    return redact_text(text)


# --- .netrc --------------------------------------------------------------------------

NETRC = [  # (text, the secret values in it)
    ("machine api.example.com login alice password s3cr3tV4lue", ["s3cr3tV4lue"]),
    ("machine api.example.com\n  login alice\n  password s3cr3tV4lue\n", ["s3cr3tV4lue"]),
    ("default login x password y", ["y"]),
    ("default\n    login anonymous\n    password user@example.com\n", ["user@example.com"]),
    ("machine ftp.example.com login u account acct9 password pw9", ["acct9", "pw9"]),
    ("machine a.example.com\tlogin\tbob\tpassword\tp4ss\nmachine b login c password d2\n",
     ["p4ss", "d2"]),
    ("$ cat ~/.netrc\nmachine api.heroku.com\n  login me@example.com\n"
     "  password 01234567-89ab-cdef\n$ echo done", ["01234567-89ab-cdef"]),
    ('echo "machine github.com login bob password ghpw123" >> ~/.netrc', ["ghpw123"]),
    ("machine h.example.com password pw-at-line-end\n", ["pw-at-line-end"]),
]


@pytest.mark.parametrize(("text", "values"), NETRC)
def test_a_netrc_entry_loses_its_password_and_account(text: str, values: list[str]) -> None:
    clean = _redacted(text, "netrc_password", values)
    assert "<SECRET:netrc_password>" in clean
    assert clean.count("login") == text.count("login")  # the user name may stay


NOT_NETRC = [
    "the password field of the default login form",
    "By default, login and password are read from the netrc file.",
    "use the default login and password for the machine you log in to",
    "machine learning models need a login and password to download them",
    "switch (x) {\n  default:\n    login(user, password);\n}",
    "def login(machine, password): pass",
    "parser.add_argument('--password', default=None)",
    "if the machine has no password: ask",
    'f.write(f"machine {host}\\nlogin {user}\\npassword {password}\\n")',
]


@pytest.mark.parametrize("text", NOT_NETRC)
def test_prose_and_code_about_passwords_are_not_netrc(text: str) -> None:
    for code in (False, True):
        assert find_secrets(text, code=code) == [], text


def test_a_template_in_program_text_is_not_a_netrc_password() -> None:
    line = 'NETRC = "machine {host} login {user} password {password}"\n'
    assert find_secrets(line, code=True) == []
    assert redact(line)[1] == ["netrc_password"]  # in a data file it is a value


# --- .pgpass -------------------------------------------------------------------------

PGPASS = [
    ("db.example.com:5432:app:alice:pgpw0rdX", ["pgpw0rdX"]),
    ("*:*:*:postgres:hunter2", ["hunter2"]),
    ("localhost:5432:app:alice:pa\\:ss word", ["pa\\:ss word", "ss word"]),
    ("/var/run/postgresql:5432:*:postgres:sockpw1", ["sockpw1"]),
    ("fe80\\:\\:1:5432:db:u:v6pass", ["v6pass"]),
    ("db:*:*:*:star1\r\nother:5433:x:y:z2zz\r\n", ["star1", "z2zz"]),
    ("# comment\n  10.0.0.1:6543:reporting:report_user:r3p0rt!\n", ["r3p0rt!"]),
    ("$ cat ~/.pgpass\nhost.example.com:5432:db:u:Tr0ub4dor&3\n$ ls", ["Tr0ub4dor&3"]),
]


@pytest.mark.parametrize(("text", "values"), PGPASS)
def test_a_pgpass_line_loses_its_password(text: str, values: list[str]) -> None:
    clean = _redacted(text, "pgpass_password", values)
    assert ":<SECRET:pgpass_password>" in clean


NOT_PGPASS = [
    "12:30:00", "meeting at 12:30:00 and 13:45:10", "01:02:03:04:05", "1:2:3:4:5",
    "2001:db8::1", "fe80:1234:5678:9abc:def0:1234:5678:9abc", "fe80::1:2:3:4",
    "a:b:c:d:e", "aa:11:22:33:44:55", "00:1a:2b:3c:4d:5e",
    "http://user@host:5432/db", "postgres://db.example.com:5432/app",
    "C:\\Users\\me\\file.txt", "std::string a::b::c::d", "key: value", "time: 12:30:00:00",
    "src/a.py:12:x = 1", "./db.py:12:a:b:c", "a.b:80:c:d e:f",
    "hostname:port:database:username:password", "root:x:0:0:root:/root:/bin/bash",
    "localhost:5432:db:user:pw:extra", "  - name: x\n    image: postgres:15\n",
    "x = {a:1:b:c:d}",
]


@pytest.mark.parametrize("text", NOT_PGPASS)
def test_text_with_colons_is_not_a_pgpass_line(text: str) -> None:
    for code in (False, True):
        assert find_secrets(text, code=code) == [], text


# --- the same files in a numbered view (cat -n, grep -n, an agent's file window) -------

NUMBERED = [
    ("     1\tmachine api.example.com\n     2\tlogin alice\n     3\tpassword s3cretPassw0rd\n",
     "s3cretPassw0rd"),
    ("1:localhost:5432:mydb:alice:s3cretpw\n2:*:*:*:bob:hunter2pass\n", "s3cretpw"),
    ("1:localhost:5432:mydb:alice:s3cretpw\n2:*:*:*:bob:hunter2pass\n", "hunter2pass"),
    ("41:machine example.com login bob password Tr0ub4dor\n42:\n", "Tr0ub4dor"),
    ("3-# replica\n4:replica.example.com:5432:app:ro:r3pl1caPw\n", "r3pl1caPw"),
    # Claude Code's Read prints "     3→" before each line.
    ("     1\u2192machine api.example.com\n     2\u2192login alice\n"
     "     3\u2192password s3cretPassw0rd\n", "s3cretPassw0rd"),
    ("     1\u2192localhost:5432:mydb:alice:s3cretpw\n     2\u2192*:*:*:bob:hunter2pass\n",
     "hunter2pass"),
]


@pytest.mark.parametrize(("text", "value"), NUMBERED)
def test_a_numbered_view_of_a_secret_file_loses_its_values(text: str, value: str) -> None:
    # A rule that asks a line to open with its keyword must see past the viewer's number.
    clean = redact_text(text)
    assert value not in clean, clean
    assert clean.count("\n") == text.count("\n")


def test_a_numbered_key_body_seen_from_the_middle_is_redacted() -> None:
    lines = [*_base64_lines("numbered", 400), "-----END OPENSSH PRIVATE KEY-----"]
    text = "".join(f"{number:6}\t{line}\n" for number, line in enumerate(lines, start=20))
    clean = redact_text(text)
    assert all(line not in clean for line in lines[:-1]), clean


def test_numbered_code_stays_as_it_is() -> None:
    text = "10:def connect(host, port):\n11:    return open_socket(host, port)\n" \
           "12:a:b:c:d:e\n     13\tx = {'k': 1}\n    14\u2192return build(host)\n"
    for code in (False, True):
        assert find_secrets(text, code=code) == [], text



# --- netrc lines grep shows without their machine line --------------------------------

GREPPED_NETRC = [  # (text, the secret values in it)
    # ``grep -n password ~/.netrc``: one numbered line, nothing else to go by
    ("3:  password hunter2xyz", ["hunter2xyz"]),
    ("     3\tpassword hunter2xyz\n", ["hunter2xyz"]),
    ("     3\u2192password hunter2xyz\n", ["hunter2xyz"]),  # Claude Code's Read, one line
    ("3\u2192  password hunter2xyz", ["hunter2xyz"]),
    # ``grep -n password ~/.netrc ~/other``: the file name says netrc; any value
    ("~/.netrc:3:password s3cr3tValue", ["s3cr3tValue"]),
    ("/home/me/.netrc:  password correcthorsebattery\n", ["correcthorsebattery"]),
    ("C:\\Users\\me\\_netrc:4:  password correct horse\n", ["correct"]),
    ("C:/Users/me/_netrc-5-  account acctvalue\n", ["acctvalue"]),
    ('/root/.netrc:2:password "pass with spaces"', ["pass with spaces"]),
    ("~/.netrc:1:machine h.example.com login u password pw1", ["pw1"]),
    ("41:machine example.com login bob password Tr0ub4dor", ["Tr0ub4dor"]),
    # an entry's lines without its machine line, numbered, named or bare
    ("login bob password s3cr3tValue", ["s3cr3tValue"]),
    ("  login bob\n  password s3cr3tValue\n", ["s3cr3tValue"]),
    ("2:  login bob\n3:  password hunter2xyz\n", ["hunter2xyz"]),
    ("notes/hosts.txt-2-  login bob\nnotes/hosts.txt:3:  password hunter2xyz\n",
     ["hunter2xyz"]),
    ("hosts.txt:1:machine h.example.com\nhosts.txt:2:  password plainwords\n",
     ["plainwords"]),
    ("$ grep -A1 login ~/notes\nlogin alice account acct-77\n$ ls", ["acct-77"]),
]


@pytest.mark.parametrize(("text", "values"), GREPPED_NETRC)
def test_a_netrc_line_grep_shows_loses_its_password(text: str, values: list[str]) -> None:
    clean = _redacted(text, "netrc_password", values)
    assert "password <SECRET:netrc_password>" in clean or "account <SECRET:" in clean \
        or 'password "<SECRET:netrc_password>"' in clean, clean


NOT_GREPPED_NETRC = [
    'password = request.form["password"]', "the password field is required",
    "def check_password(password):", "password: str", "login and password are required",
    "password hunter2xyz",  # one bare line: nothing says it is netrc
    # grep -n over program text and prose: a type, a word, a number, code
    "12:\tpassword string", "user.go:12:\tpassword  []byte", "user.go-13-\tpassword *string",
    'main.go:7:\tpassword    string `json:"password"`', "a.rs:4:    password: String,",
    "schema.sql:5:  password VARCHAR(255) NOT NULL,", "5:  password TEXT,",
    "3: password reset", "12: password int64", "9: password 1.2.3", "9: password 123456",
    "3:    password = get_password()", "x.hs:3:  password :: Text", "12:  account balance",
    "2026-01-02 12:00:07 password changed", "host all all 0.0.0.0/0 password",
    "  --password PASSWORD", "login USER password PASS", "Usage: password NEWPASS",
    "  login bob\n  password reset\n", "README.md:4:login and password are both required",
    "3\u2192password string", "12\u2192  password: String,",
    "3:password $PW", "3:password {pw}", "3:password %s", "foo:login bob password ${PASSWORD}",
]


@pytest.mark.parametrize("text", NOT_GREPPED_NETRC)
def test_grepped_code_and_prose_about_passwords_are_not_netrc(text: str) -> None:
    for code in (False, True):
        assert [kind for *_, kind in find_secrets(text, code=code)
                if kind == "netrc_password"] == [], text


# --- armoured key bodies seen from the middle ----------------------------------------

def _base64_lines(seed: str, size: int, width: int = 64) -> list[str]:
    """``size`` bytes that look random (sha256 chains) in base64, ``width`` a line."""
    raw = b"".join(hashlib.sha256(f"{seed}{n}".encode()).digest() for n in range(size // 32 + 1))
    body = base64.b64encode(raw[:size]).decode()
    return [body[i:i + width] for i in range(0, len(body), width)]


PGP = _base64_lines("pgp", 1300)  # a secret key's armour: 64-character lines
PGP_BLOCK = ["-----BEGIN PGP PRIVATE KEY BLOCK-----", "", *PGP, "=h8jr",
             "-----END PGP PRIVATE KEY BLOCK-----"]
PEM = _base64_lines("rsa", 1190)
PEM_BLOCK = ["-----BEGIN RSA PRIVATE KEY-----", *PEM, "-----END RSA PRIVATE KEY-----"]
SSH = _base64_lines("ssh", 390, width=70)  # OpenSSH writes 70 characters a line
SSH_BLOCK = ["-----BEGIN OPENSSH PRIVATE KEY-----", *SSH, "-----END OPENSSH PRIVATE KEY-----"]
CERT = _base64_lines("cert", 900)
CERT_BLOCK = ["-----BEGIN CERTIFICATE-----", *CERT, "-----END CERTIFICATE-----"]
PUBLIC = _base64_lines("public", 900)
PUBLIC_BLOCK = ["-----BEGIN PGP PUBLIC KEY BLOCK-----", "", *PUBLIC, "=AbCd",
                "-----END PGP PUBLIC KEY BLOCK-----"]


def _shown(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


MIDDLES = {  # what an agent's command showed: (text, kind, the body lines in it)
    "tail -n 3 secring.asc": (_shown(PGP_BLOCK[-3:]), "private_key", PGP_BLOCK[-3:-2]),
    "tail -n 20 key.asc": (_shown(PGP_BLOCK[-20:]), "private_key", PGP[-18:]),
    "sed -n 5,9p key.asc": (_shown(PGP_BLOCK[4:9]), "armored_key", PGP[2:7]),
    "tail -n 6 server.pem": (_shown(PEM_BLOCK[-6:]), "private_key", PEM[-5:]),
    "sed -n 4,9p server.pem": (_shown(PEM_BLOCK[3:9]), "armored_key", PEM[2:8]),
    "tail -n 4 deploy_key": (_shown(SSH_BLOCK[-4:]), "private_key", SSH[-3:]),
    "sed -n 2,5p deploy_key": (_shown(SSH_BLOCK[1:5]), "armored_key", SSH[0:4]),
    "an indented key in YAML": ("tls:\n  key: |\n" + "".join(
        f"    {line}\n" for line in PEM_BLOCK[5:]), "private_key", PEM[4:]),
    "CRLF line ends": ("\r\n".join(PEM_BLOCK[3:9]) + "\r\n", "armored_key", PEM[2:8]),
}


@pytest.mark.parametrize("name", sorted(MIDDLES))
def test_a_key_body_without_its_begin_line_is_redacted(name: str) -> None:
    text, kind, body = MIDDLES[name]
    _redacted(text, kind, [line[:40] if len(line) >= 40 else line for line in body])


def test_a_key_body_keeps_the_lines_around_it() -> None:
    text = "$ sed -n 4,9p server.pem\n" + "\n".join(PEM_BLOCK[3:9]) + "\n$ echo done\n"
    clean = redact_text(text)
    assert clean.split("\n")[0] == "$ sed -n 4,9p server.pem"
    assert clean.split("\n")[1] == "<SECRET:armored_key>"
    assert clean.split("\n")[7] == "$ echo done"


@pytest.mark.parametrize("text", [
    _shown(CERT_BLOCK), _shown(CERT_BLOCK[-6:]), _shown(CERT_BLOCK[:6]),
    _shown(PUBLIC_BLOCK), _shown(PUBLIC_BLOCK[-6:]), _shown(PUBLIC_BLOCK[:8]),
    _shown(["-----BEGIN PGP SIGNATURE-----", "", *PUBLIC[:5], "=AbCd",
            "-----END PGP SIGNATURE-----"]),
    _shown(CERT_BLOCK) + _shown(PUBLIC_BLOCK),
])
def test_certificates_public_keys_and_signatures_stay(text: str) -> None:
    """A visible BEGIN or END line that is not a private key's marks the lines as public."""
    assert find_secrets(text) == []


@pytest.mark.parametrize("text", [
    "\n".join(hashlib.sha256(str(n).encode()).hexdigest() for n in range(10)),  # digests
    "\n".join(hashlib.sha256(str(n).encode()).hexdigest().upper() for n in range(10)),
    "\n".join(base64.b64encode(bytes(48)).decode() for _ in range(6)),  # no digits
    ("The quick brown fox jumps over the lazy dog and keeps on running \n") * 5,
    _shown(PEM[:2]),  # two lines are not yet a body
    _shown(_base64_lines("mime", 600, width=76)),  # MIME's width, not a key's
    "The key ends with\n-----END RSA PRIVATE KEY-----\n",  # prose above an END line
    'PEM_END = "-----END RSA PRIVATE KEY-----"\n',
])
def test_other_base64_and_lone_markers_stay(text: str) -> None:
    assert find_secrets(text) == []


def test_a_full_key_block_is_still_one_private_key() -> None:
    text = "a = 1\n" + _shown(PGP_BLOCK) + "b = 2\n"
    clean, kinds = redact(text)
    assert kinds == ["private_key"]
    assert clean.split("\n")[len(PGP_BLOCK) + 1] == "b = 2"


# --- a binary OpenPGP secret key -----------------------------------------------------

# an old-format secret-key packet (tag 5, two-octet length), key version 4: the first
# bytes of ``gpg --export-secret-keys`` and of a ``secring.gpg``
SECRING = bytes([0x95, 0x03, 0x98, 0x04, 0x6B, 0x14, 0xCA, 0x51, 0x01, 0x08, 0x00]) \
    + hashlib.sha256(b"key").digest() * 30 + b"\n\x00\n"
NEW_FORMAT = bytes([0xC5, 0x58, 0x04]) + hashlib.sha256(b"ed").digest() * 3


def test_a_binary_secret_key_is_replaced_whole() -> None:
    out = redact_bytes(SECRING)
    assert out == b"<SECRET:private_key>" + b"\n" * SECRING.count(b"\n")
    assert redact_bytes(NEW_FORMAT) == b"<SECRET:private_key>"
    public = bytes([0x99, 0x01, 0x0D, 0x04]) + SECRING[4:]  # tag 6: a public key
    assert redact_bytes(public) == public
    assert redact_bytes(b"\x95\x03\x98\x09 not a key") == b"\x95\x03\x98\x09 not a key"


@pytest.mark.parametrize(("name", "kind"), [
    ("secring.gpg", "private_key"), ("home/.gnupg/secring.skr", "private_key"),
    ("secring.asc", "private_key"), ("pubring.gpg", None), ("pubring.kbx", None),
])
def test_a_secret_keyring_is_marked_by_its_name(name: str, kind: str | None) -> None:
    assert secret_file_kind(name) == kind


# --- a trajectory ----------------------------------------------------------------------

def _import(tmp_path: Path, steps: list[tuple[str, str]]) -> tuple[str, list[dict[str, Any]]]:
    return import_swe_steps(tmp_path, steps, CASES, TIMEOUT)


def test_secret_files_under_other_names_never_reach_an_attempt(tmp_path: Path) -> None:
    """Files whose names mark nothing: a netrc kept as notes, a .pgpass copied into a
    config folder, an armoured key under a backup name, each read in part."""
    written, attempts = _import(tmp_path, [
        ("cat notes/hosts.txt", "machine api.example.com\n  login alice\n"
                                "  password s3cr3tV4lue\n"),
        ("sed -n 2,3p config/pg.conf", "db:5432:app:alice:Tr0ub4dor&3\n"
                                       "db:5432:ops:bob:correcthorse\n"),
        ("sed -n 14,33p backup/key.asc", _shown(PGP_BLOCK[-20:])),
        ("sed -n 4,9p backup/server.crt.bak", _shown(PEM_BLOCK[3:9])),
    ])
    for value in ("s3cr3tV4lue", "Tr0ub4dor", "correcthorse", *(line[:40] for line in PGP[-18:]),
                  *(line[:40] for line in PEM[2:8])):
        assert value not in written, value
    excerpts = {c["file"]: c["excerpt"] for c in attempts[0]["ranked"]}
    assert excerpts["notes/hosts.txt"].split("\n")[1] == "  login alice"
    assert excerpts["config/pg.conf"] == ("db:5432:app:alice:<SECRET:pgpass_password>\n"
                                          "db:5432:ops:bob:<SECRET:pgpass_password>")
    assert excerpts["backup/key.asc"].startswith("<SECRET:private_key>")
    assert excerpts["backup/server.crt.bak"].startswith("<SECRET:armored_key>")


# --- matching where it can match, in linear time ---------------------------------------

_FRAGMENTS = ("machine", "default", "login", "password", "account", " ", "\n", "\t", '"',
              "h.example.com", "pw1", ":", "5432", "*", "\\:", "db", "12", "a")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40), st.booleans())
def test_anchored_matching_finds_what_a_full_scan_finds(parts: list[str], code: bool) -> None:
    """netrc entries are tried only at ``machine`` and ``default`` in a text that holds
    ``password`` or ``account``, .pgpass lines only at the starts of lines a finder picks:
    a scan of the whole text finds the same."""
    text = "".join(parts)
    anchored = find_secrets(text, code=code)
    with patch.dict(secrets._STARTS, clear=True), patch.object(secrets, "_UNHINTED", True):
        scanned = find_secrets(text, code=code)
    assert anchored == scanned


_HOSTILE = """
import sys
from codegold.plumbing.secrets import find_secrets
line = "A1b2" * 16
make = {
    "netrc-entries": lambda n: "password\\n" + "default login a password b " * n + "!",
    "netrc-pairs": lambda n: "machine a" + " login b" * n + " x password",
    "netrc-openers": lambda n: "password " + "machine " * n,
    "netrc-candidates": lambda n: "login a\\nx" + " password b" * n,
    "netrc-lines": lambda n: "a.netrc:1:login a password b\\nlogin c\\n" * n,
    "netrc-prefix": lambda n: "-1" * n + " password b2b2\\n" + "a" * n + ":password",
    "pgpass-colons": lambda n: "a:1:" * n,
    "pgpass-escapes": lambda n: "a\\\\:" * n + ":1:",
    "pgpass-lines": lambda n: ("h:1:d:u:" + "x" * 20 + ":\\n") * n,
    "body-lines": lambda n: (line + "\\n") * n,
    "body-above-end": lambda n: (line + "\\n") * n + "-----END RSA PRIVATE KEY-----\\n",
    "end-markers": lambda n: "-----END RSA PRIVATE KEY-----\\n" * n,
    "wide-lines": lambda n: (line + "A\\n") * n,
    "prefix-run": lambda n: "x\\n" + "ghp_" * n + " abc",
    # ordinary text: a log and code full of colons, ``default`` and base64-ish words
    "ordinary": lambda n: "".join(
        f"2026-01-02 12:{k % 60:02d}:07 INFO default worker {k} took 1:2{k % 10} ms\\n"
        f"    value = config.get('password', default=None)  # key: {line[:40]}\\n"
        for k in range(n)),
}[sys.argv[1]]
for size in (int(sys.argv[2]), 8 * int(sys.argv[2])):
    find_secrets(make(size))
    find_secrets(make(size), code=True)
"""


@pytest.mark.parametrize(("name", "size"), [
    ("netrc-entries", 2_000), ("netrc-pairs", 5_000), ("netrc-openers", 5_000),
    ("netrc-candidates", 5_000), ("netrc-lines", 2_000), ("netrc-prefix", 20_000),
    ("pgpass-colons", 5_000), ("pgpass-escapes", 5_000), ("pgpass-lines", 5_000),
    ("body-lines", 5_000), ("body-above-end", 5_000), ("end-markers", 2_000),
    ("wide-lines", 5_000),
    # 40,000 ``ghp_`` in one token took 8 s: a line-break check read the token from
    # each of its hints to its end
    ("prefix-run", 20_000), ("ordinary", 2_000),
])
def test_hostile_text_is_scanned_in_linear_time(name: str, size: int) -> None:
    """Each text at two sizes, eight times apart, in a child with a timeout: the larger
    one (up to 2.6 MB) takes a second or two; a quadratic scan, minutes."""
    done = subprocess.run([sys.executable, "-c", _HOSTILE, name, str(size)],
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
