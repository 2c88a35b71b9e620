"""Two redaction holes: a secret in a typed declaration, and a key file read from its
middle.

``let password: String = "hunter2"`` was kept in program text (the detector read
``String`` as the value, a type, and stopped) and in data text (``String`` was redacted,
the literal kept); Go's ``var apiKey string = "…"`` and ``apiKey := "…"`` in both. And an
agent's ``sed -n 4,30p server.key`` showed a key's body without its BEGIN line, so no
detector saw a key and the body reached the attempts in clear.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import pytest

from codegold.index.build.redaction import redact_blob
from codegold.index.policy import PathPolicy
from codegold.model.attempts import Attempt, Chunk, redact_attempt
from codegold.plumbing.secrets import find_secrets, redact, redact_data
from hostilekit import import_swe_steps

FIXTURES = Path(__file__).resolve().parents[1] / "trajectories" / "fixtures"
CASES = FIXTURES / "cases.yaml"
TIMEOUT = 60

# --- typed declarations --------------------------------------------------------------

TYPED = [  # (language, declaration, the secret value in it)
    ("swift", 'let password: String = "hunter2"', "hunter2"),
    ("swift", 'var token: String? = "abcd1234efgh"', "abcd1234efgh"),
    ("rust", 'let api_key: &str = "sk_abcdefgh1234";', "sk_abcdefgh1234"),
    ("rust", "static API_KEY: &'static str = \"abcd1234efgh\";", "abcd1234efgh"),
    ("kotlin", 'val token: String = "ghp_notreally"', "ghp_notreally"),
    ("scala", 'val password: String = "hunter2"', "hunter2"),
    ("typescript", 'const secret: string = "s3cr3tvalue";', "s3cr3tvalue"),
    ("typescript", 'private token?: string = "s3cr3tvalue";', "s3cr3tvalue"),
    ("pony", 'let password: String val = "xyzw"', "xyzw"),
    ("python", 'password: str = "hunter2"', "hunter2"),
    ("go", 'var apiKey string = "abcd1234efgh"', "abcd1234efgh"),
    ("go", 'apiKey := "abcd1234efgh"', "abcd1234efgh"),
    ("kotlin", 'fun connect(token: String = "abcd1234efgh")', "abcd1234efgh"),
    # types before the name were already found: kept here so they stay found
    ("csharp", 'private const string Password = "hunter2";', "hunter2"),
    ("java", 'String password = "hunter2";', "hunter2"),
]

NOT_SECRETS = [  # program text with a secret-looking name and no literal value
    "  new create(env: Env, token: String, password: String) =>",
    'fun login(password: String, token: String = "") {',
    "var password: String",
    "let password: String\n",
    "val token: String = BuildConfig.TOKEN",
    "const token: string = `${TOKEN}`;",
    'if token != "abcd1234" {',
]


@pytest.mark.parametrize(("language", "line", "value"), TYPED)
@pytest.mark.parametrize("code", [True, False])
def test_a_typed_declaration_of_a_literal_is_redacted(language: str, line: str, value: str,
                                                      code: bool) -> None:
    clean, kinds = redact(line, code=code)
    assert value not in clean, (language, clean)
    assert "password" in kinds
    assert redact(clean, code=code)[0] == clean  # idempotent


@pytest.mark.parametrize("line", NOT_SECRETS)
def test_a_typed_name_without_a_literal_is_code(line: str) -> None:
    assert find_secrets(line, code=True) == [], line


@pytest.mark.parametrize(("path", "source"), [
    ("Sources/Config.swift", b'struct Config {\n  let password: String = "hunter2"\n}\n'),
    ("app/src/Config.kt", b'object Config {\n  val token: String = "hunter2"\n}\n'),
    ("cmd/main.go", b'package main\n\nvar apiKey string = "hunter2"\n'),
    ("src/lib.rs", b'pub const API_KEY: &str = "hunter2";\n'),
    ("src/config.ts", b'export const secret: string = "hunter2";\n'),
    ("actors/main.pony", b'actor Main\n  let password: String = "hunter2"\n'
                         b"  new create(env: Env, token: String,\n    api_key: String) =>\n"),
])
def test_the_index_build_redacts_typed_declarations(path: str, source: bytes) -> None:
    """With a grammar (Swift, Kotlin, Go, Rust, TypeScript) or without one (Pony)."""
    clean, kinds = redact_blob(path, source)
    assert b"hunter2" not in clean and kinds == ["password"], clean
    assert clean.count(b"\n") == source.count(b"\n")
    if path.endswith(".pony"):
        assert b"token: String," in clean and b"api_key: String)" in clean


# --- trajectories --------------------------------------------------------------------

def _import(tmp_path: Path, steps: list[tuple[str, str]]) -> tuple[str, list[dict[str, Any]]]:
    return import_swe_steps(tmp_path, steps, CASES, TIMEOUT)


def _key_body() -> list[str]:
    body = base64.b64encode(b"".join(hashlib.sha256(bytes([n])).digest()
                                     for n in range(40))).decode()
    return [body[i:i + 64] for i in range(0, len(body), 64)]


@pytest.mark.parametrize("name", ["server.key", "deploy/id_rsa", "certs/site.pem",
                                  "keys/id_ed25519", "secrets/client.p12", "SERVER.KEY"])
def test_a_key_file_read_from_its_middle_never_reaches_an_output(tmp_path: Path,
                                                                 name: str) -> None:
    """No earlier call showed the BEGIN line: the file's name marks it as a key."""
    body = _key_body()
    written, attempts = _import(tmp_path, [(f"sed -n '4,30p' {name}", "\n".join(body) + "\n")])
    for line in body:
        assert line[:40] not in written, line
    (attempt,) = attempts
    (chunk,) = attempt["ranked"]
    assert (chunk["start_line"], chunk["end_line"]) == (4, 3 + len(body))  # still placed
    assert set(chunk["excerpt"].split("\n")) == {"<SECRET:private_key>"}


def test_a_secret_file_read_from_its_middle_is_redacted_whole(tmp_path: Path) -> None:
    """``.pgpass`` lines (``host:port:db:user:password``) match no detector at all."""
    written, attempts = _import(tmp_path, [("sed -n 2,3p .pgpass",
                                            "db:5432:app:alice:Tr0ub4dor&3\n"
                                            "db:5432:ops:bob:correcthorse\n")])
    assert "Tr0ub4dor" not in written and "correcthorse" not in written
    assert attempts[0]["ranked"][0]["excerpt"] == "<SECRET:secret_file>\n<SECRET:secret_file>"


def test_a_public_key_and_a_typed_declaration_in_a_trajectory(tmp_path: Path) -> None:
    """``id_rsa.pub`` is shown as it is; a Swift file's typed literal is redacted."""
    public = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAbcdefghijklmnop alice@host"
    swift = "import Foundation\nlet password: String = \"hunter2\"\n"
    written, attempts = _import(tmp_path, [("cat keys/id_rsa.pub", public + "\n"),
                                           ("cat Sources/Config.swift", swift)])
    assert "hunter2" not in written
    excerpts = {c["file"]: c["excerpt"] for c in attempts[0]["ranked"]}
    assert excerpts["keys/id_rsa.pub"] == public
    assert excerpts["Sources/Config.swift"].startswith("import Foundation\nlet password")


# --- attempts another tool wrote, and the index policy ------------------------------

def test_an_attempt_excerpt_of_a_key_file_is_redacted_on_read() -> None:
    body = "\n".join(_key_body()[:3])
    attempt = Attempt(attempt_id="a", case_id="c", ranked=[
        Chunk(chunk_id="k", file="ops/server.key", excerpt=body),
        Chunk(chunk_id="s", file="src/app.py", excerpt="x = 1")])
    clean = redact_attempt(attempt)
    assert clean.ranked[0].excerpt == "\n".join(["<SECRET:private_key>"] * 3)
    assert clean.ranked[1].excerpt == "x = 1"
    extra = redact_data({"file": "id_rsa", "text": body})
    assert extra["text"] == clean.ranked[0].excerpt


@pytest.mark.parametrize("name", ["server.key", "a/b/id_rsa", "id_rsa.old", "site.PEM",
                                  "id_ecdsa", "id_dsa", "id_ed25519", "c.p12", "c.pfx",
                                  "c.jks", "c.keystore", "putty.ppk", ".pgpass", ".env"])
def test_key_files_are_not_indexed(name: str) -> None:
    reason = PathPolicy().exclusion(name, 100)
    assert reason is not None and reason.startswith("policy: secret-bearing file"), name
