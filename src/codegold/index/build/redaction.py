"""The build's secret policy: secret values in a file are replaced before chunking (so no
chunk, token, symbol or embedding ever sees one), and a path that holds one is left out
under its redacted name."""

from __future__ import annotations

from codegold.model.languages import (
    DATA_TEXT_LANGUAGES,
    is_code_without_language,
    language_of,
)
from codegold.plumbing import secrets


def redact_blob(path: str, data: bytes) -> tuple[bytes, list[str]]:
    """``data`` (the file at ``path``) with secret values replaced, line count kept, and
    the kinds replaced; the same bytes when none was found."""
    text = data.decode("utf-8", "surrogateescape")
    # Every source file is read as code, with or without a grammar (a Pony parameter
    # ``token: String,`` is no secret); data and prose (YAML, .env, text) are not.
    code = language_of(path) not in DATA_TEXT_LANGUAGES or is_code_without_language(path)
    clean, kinds = secrets.redact(text, code=code)
    return (clean.encode("utf-8", "surrogateescape"), kinds) if kinds else (data, [])


def path_secret(path: str) -> tuple[str, str] | None:
    """``(redacted name, inventory reason)`` for a path that holds a secret value, else
    None: a credential in a file name would reach the inventory, chunk ids, symbols and
    search tokens, so the file is left out and listed under its redacted name."""
    hidden = secrets.find_secrets(path)
    if not hidden:
        return None
    shown, kinds = secrets.replace_spans(path, hidden)
    return shown, (f"policy: the path holds a secret value "
                   f"({', '.join(sorted(set(kinds)))}): not indexed")


def redaction_reason(kinds: list[str]) -> str:
    """The inventory reason added for the secret values replaced in a file."""
    return f"secrets redacted: {secrets.summary(kinds)}"
