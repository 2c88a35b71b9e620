"""Finding and redacting secret values (credentials, tokens, private keys) in text.

One home for the detectors every part uses: the index redacts chunk text at build time,
adapters redact excerpts and error text a retriever sends back, reports and diagnosis
bundles redact again on the way out, and ``cases from-log`` scrubs logs with them.

Each value found is replaced with a typed placeholder (``<SECRET:aws_access_key>``); what
is reported is the kind and the count, never the value. A multi-line value (a private key
block) is replaced by the placeholder followed by as many line breaks as it spanned, so
line numbers after it hold.

``code=True`` is for program text: a ``password = …`` assignment whose value is an
expression (``password = get_password()``, ``token = self.token``) is code, not a secret. This is best
effort over known formats, not a guarantee.
"""

from __future__ import annotations

import bisect
import fnmatch
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any, TypeVar

import msgspec

from codegold.errors import InputError
from codegold.plumbing.text import mend_surrogates

T = TypeVar("T")

Span = tuple[int, int, str]  # start, end, kind

# The names an assigned value is a secret under (matched case-insensitively).
_SECRET_NAMES = (r"(?:password|passwd|pwd|passphrase|secret|client_secret|"
                 r"api[_-]?key|apikey|access[_-]?key|secret[_-]?key|auth[_-]?token|"
                 r"access[_-]?token|token|credentials?|private[_-]?key[_-]?id)")

# A netrc value: a double-quoted one may hold spaces and backslash escapes (as curl and
# Python's netrc read it), to its closing quote or its line's end; any other is a word.
_NETRC_VALUE = r'(?:"(?:[^"\\\n]|\\[^\n])*(?:"|(?=\n|\Z))|\S+)'

SECRET_PATTERNS: tuple[tuple[str, str], ...] = (
    ("private_key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END[A-Z0-9 ]*"
                    r"PRIVATE KEY( BLOCK)?-----|\Z)"),
    ("url_credentials", r"(?<=://)[^\s/@:]+:[^\s/@]+(?=@)"),
    ("jwt", r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"),
    ("aws_access_key", r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
    ("google_api_key", r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}\b"),
    ("github_token", r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("gitlab_token", r"(?<![A-Za-z0-9])gl(?:pat|dt|rt|ptt|ft|imt|soat|cbt|oas|agent)-[A-Za-z0-9_-]{20,}"),
    ("slack_token", r"(?<![A-Za-z0-9])(?:xox[abposre]-|xapp-\d-)[A-Za-z0-9-]{10,}"),
    ("slack_webhook", r"hooks\.slack\.com/services/[A-Za-z0-9/_-]+"),
    ("stripe_key", r"(?<![A-Za-z0-9])(?:(?:sk|rk|pk)_(?:live|test)_|whsec_)[0-9A-Za-z]{16,}"),
    ("anthropic_key", r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("huggingface_token", r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}"),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi_token", r"(?<![A-Za-z0-9])pypi-[A-Za-z0-9_-]{50,}"),
    ("sendgrid_key", r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    ("twilio_key", r"\b(?:SK|AC)[0-9a-f]{32}\b"),
    ("azure_storage_key", r"(?<=AccountKey=)[A-Za-z0-9+/=]{40,}"),
    ("azure_sas_signature", r"(?<=[?&;]sig=)[A-Za-z0-9%+/=]{16,}"),
    ("shopify_token", r"(?<![A-Za-z0-9])shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
    ("digitalocean_token", r"(?<![A-Za-z0-9])do[opr]_v1_[a-f0-9]{64}\b"),
    ("square_token", r"\bsq0(?:atp|csp|idp)-[0-9A-Za-z_-]{22,}"),
    ("mailgun_key", r"\bkey-[0-9a-z]{32}\b"),
    ("telegram_bot_token", r"\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}\b"),
    ("discord_webhook", r"(?<=/api/webhooks/)[0-9]{17,20}/[A-Za-z0-9_-]{60,}"),
    # a Docker or container registry config.json: base64 of user:password
    ("registry_auth", r"(?<=\"auth\")\s*:\s*\"(?P<value>[A-Za-z0-9+/]{12,}={0,2})\""),
    ("bearer_token", r"(?i:(?<=bearer )|(?<=bearer\t))[A-Za-z0-9._~+/=-]{8,}"),
    ("basic_auth", r"(?i:(?<=basic ))[A-Za-z0-9+/]{8,}={0,2}"),
    # any other scheme, or none: ``Authorization: Token abc…``, ``authorization=abc…``
    ("authorization_header", r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
                             r"(?:(?!bearer\b|basic\b)[a-z-]+\s+)?(?P<value>[^\s\"',;<]{8,})"),
    # ``curl -u user:pass``, ``--user user:pass``; ``mysql -pPASS`` (the value joined to -p)
    ("cli_password", r"(?<=\s)(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"']+:(?P<value>[^\s\"'@]{3,})"),
    # (the words between stop at the next client name: each name is tried to the next
    # one, not to the line's end, which was quadratic in a line of many)
    ("cli_password", r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mysqlsh)\b"
                     r"(?:(?!\b(?:mysql|mysqldump|mysqladmin|mariadb|mysqlsh)\b)[^\n])*?[ \t]-p"
                     r"(?P<value>[^\s\"'-][^\s\"']{2,})"),
    # a kubeconfig's client key (base64 of a private key block)
    ("kubeconfig_key", r"(?i)\bclient-key-data[\"']?\s*:\s*[\"']?(?P<value>[A-Za-z0-9+/=]{16,})"),
    # a YAML block scalar under a secret-looking key: ``password: |`` and its indented lines
    ("secret_block", r"(?im)^(?P<indent>[ \t]*)(?:-[ \t]+)?[\"']?[a-z0-9_.-]*(?:password|passwd|"
                 r"passphrase|secret|token|api[_-]?key|private[_-]?key|client-key-data)[\"']?"
                 r"[ \t]*:[ \t]*[|>][-+0-9]*[ \t]*(?:#[^\n]*)?\n"
                 r"(?P<value>(?:(?P=indent)[ \t]+\S[^\n]*(?:\n|\Z))+)"),
    # the keyword starts a word: after a non-letter, or at a camelCase boundary
    # (``dbPassword``, ``apiToken``)
    ("password", r"(?i)(?:(?<![a-z])|(?-i:(?<=[a-z])(?=[A-Z])))"
                 + _SECRET_NAMES + r"[\"']?\s*[:=]\s*[\"']?"
                 # a quoted value is taken whole, spaces and all (a passphrase)
                 r"(?P<value>(?<=\")[^\"\n]{4,}(?=\")|(?<=')[^'\n]{4,}(?=')|[^\s\"',;]{4,})"),
    # a typed declaration whose value is a string literal: a type between the name and
    # ``=`` or ``:=`` (``let password: String = "…"``, ``api_key: &'static str = "…"``,
    # Go's ``var apiKey string = "…"``); a name with a type and no value (a parameter
    # ``token: String,``) is not one. Types before the name (``String password = "…"``)
    # need no rule: the name is followed by ``=``.
    ("password", r"(?i)(?:(?<![a-z])|(?-i:(?<=[a-z])(?=[A-Z])))" + _SECRET_NAMES
                 + r"[\"']?\??(?:[ \t]*:[ \t]*(?:[A-Za-z0-9_&*.'\[\]<>|?! \t]|::){0,60}?"
                 r"|[ \t]+[A-Za-z_][A-Za-z0-9_.]{0,40}[ \t]*)"
                 r":?=[ \t]*[\"'`](?P<value>(?<=\")[^\"\n]{4,}(?=\")|(?<=')[^'\n]{4,}(?=')|"
                 r"(?<=`)[^`\n]{4,}(?=`))"),
    # a netrc entry (``cat ~/.netrc``): ``machine HOST`` or ``default``, then keyword and
    # value pairs; the ``password`` and ``account`` values are taken (see _netrc_values,
    # which also asks for a netrc line's shape, so that prose is left alone). A value
    # is never ``machine`` or ``default``: they open the next entry.
    ("netrc_password", r"(?<![^\s\"'])(?:machine\s+(?!default(?!\S))\S+|default)"
                       r"(?:\s+(?:login|password|account|port)\s+"
                       r"(?!(?:machine|default)(?![^\s\"']))" + _NETRC_VALUE + r")+"),
    # a .pgpass line, on its own: ``host:port:database:user:password`` (``\:`` escapes a
    # colon); a port number or ``*`` second, no white space in the first four fields, no
    # bare colon in the password, and a host that is not a number (a time, a MAC address)
    ("pgpass_password", r"(?m)^[ \t]*(?![0-9]+:)(?:\*|/[^\s:]*|(?:[A-Za-z0-9_.%-]|\\[:\\])+)"
                        r":(?:\*|[1-9][0-9]{0,4})(?::(?:\*|(?:[A-Za-z0-9_.$@+-]|\\[:\\])+)){2}"
                        r":(?P<value>(?:[^\s:\\]|\\[^\n])(?:[^\n\r:\\]|\\[^\n])*)\r?$"),
    # a key pasted into prose after the word for it: ``the token wJalrXUtn…``, ``secret
    # key is …`` (only when the value looks random, see _keylike); last, so that a kind
    # above names a value both find
    ("high_entropy", r"(?i)(?<![a-z])(?:token|secret|key|password|passphrase|credentials?)s?"
                     r"[^\S\n]+(?:(?:is|was|of|=|:)[^\S\n]+)?[\"'`]?"
                     r"(?P<value>[A-Za-z0-9+/_=-]{20,})"),
)

# Literal text one of which a match must hold (checked in the lowered text when the kind
# is matched case-insensitively): most files hold none, and a substring test is far
# cheaper than a regular expression scan.
_HINTS: dict[str, tuple[bool, tuple[str, ...]]] = {
    "private_key": (False, ("PRIVATE KEY",)),
    "url_credentials": (False, ("://",)),
    "jwt": (False, ("eyJ",)),
    "aws_access_key": (False, ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA")),
    "google_api_key": (False, ("AIza",)),
    "github_token": (False, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    "gitlab_token": (False, ("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glimt-",
                             "glsoat-", "glcbt-", "gloas-", "glagent-")),
    "slack_token": (False, ("xox", "xapp-")),
    "slack_webhook": (False, ("hooks.slack.com",)),
    "stripe_key": (False, ("_live_", "_test_", "whsec_")),
    "anthropic_key": (False, ("sk-ant-",)),
    "openai_key": (False, ("sk-",)),
    "huggingface_token": (False, ("hf_",)),
    "npm_token": (False, ("npm_",)),
    "pypi_token": (False, ("pypi-",)),
    "sendgrid_key": (False, ("SG.",)),
    "twilio_key": (False, ("SK", "AC")),
    "azure_storage_key": (False, ("AccountKey=",)),
    "azure_sas_signature": (False, ("sig=",)),
    "shopify_token": (False, ("shpat_", "shpss_", "shpca_", "shppa_")),
    "digitalocean_token": (False, ("_v1_",)),
    "square_token": (False, ("sq0",)),
    "mailgun_key": (False, ("key-",)),
    "telegram_bot_token": (False, (":AA",)),
    "discord_webhook": (False, ("/api/webhooks/",)),
    "registry_auth": (False, ('"auth"',)),
    "bearer_token": (True, ("bearer",)),
    "basic_auth": (True, ("basic ",)),
    "authorization_header": (True, ("authorization",)),
    "password": (True, ("pass", "pwd", "secret", "key", "token", "credential")),
    "cli_password": (False, ("-u", "mysql", "mariadb")),
    "kubeconfig_key": (True, ("client-key-data",)),
    "secret_block": (False, (": |", ": >", ":|", ":>")),
    "high_entropy": (True, ("token", "secret", "key", "pass", "credential")),
}

# A .pgpass line's start: a superset of the pattern's first two fields (a field, then a
# port or ``*``) after a line break, that never backtracks.
_PGPASS_LINE = re.compile(r"\n[ \t]*+(?:[^\s:\\]++|\\.)++:(?:\*|[1-9][0-9]{0,4}):")


def _pgpass_starts(text: str) -> Iterator[int]:
    return itertools.chain([0], (found.start() + 1 for found in _PGPASS_LINE.finditer(text)))


def _netrc_starts(text: str) -> Iterator[int]:
    for word in ("machine", "default"):
        at = text.find(word)
        while at >= 0:
            yield at
            at = text.find(word, at + 1)


# Kinds matched only where a finder says a match may start, in a text that holds one of
# their words (a substring test first): a .pgpass line holds no literal rare enough for
# a hint (a scan tries its ``^`` at every position), and a netrc entry's first word is a
# common one (``default`` is on every line of some logs) that its ``password`` or
# ``account`` is not.
_STARTS: dict[str, tuple[tuple[str, ...], Callable[[str], Iterable[int]]]] = {
    "pgpass_password": ((":",), _pgpass_starts),
    "netrc_password": (("password", "account"), _netrc_starts),
}

# Whether some kind is matched without a hint (none is today): then every text is scanned.
_UNHINTED = any(not _HINTS.get(kind, (False, ()))[1] and kind not in _STARTS
                for kind, _ in SECRET_PATTERNS)

# Kinds whose match starts at a fixed distance from one of its hints: (first, last)
# offset of the match start relative to where a hint occurs. They are matched only at
# those positions (anchored), which finds what a scan of the whole text finds, in a small
# share of the time: a case-insensitive scan for ``password|token|key…`` visits every
# character of every file, and most lines hold no hint.
_ANCHORS: dict[str, tuple[int, int]] = {
    "password": (-8, 0),        # ``private_key_id``: the hint ``key`` is 8 in
    "twilio_key": (0, 0),
    "stripe_key": (-2, 0),      # ``sk_live_``
    "url_credentials": (3, 3),  # just after ``://``
    "basic_auth": (6, 6),       # just after ``basic ``
    "openai_key": (0, 0),
    "cli_password": (-1, 0),    # at ``-u``, ``--user`` (the hint ``-u`` is 1 in) or ``mysql``
    "high_entropy": (0, 0),     # at the word ``token``, ``key``…
}

_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{20,}(?![A-Za-z0-9+/_=-])")
# What a placeholder may name: this module's detectors, the detect-secrets plugin types
# that `cases from-log` also scrubs with (as it spells them; another detect-secrets type is
# written ``detected_secret``), or any other name of lower-case words without digits
# (``api_key``). A placeholder protects the text it spans from a second pass, so
# ``<SECRET:…>`` around a key with digits (a hex token) is not one: it is scanned as text.
DETECT_SECRETS_KINDS = frozenset((
    "artifactory_credentials", "aws_access_key", "azure_storage_account_access_key",
    "base64_high_entropy_string", "basic_auth_credentials", "cloudant_credentials",
    "discord_bot_token", "github_token", "gitlab_token", "hex_high_entropy_string",
    "ibm_cloud_iam_key", "ibm_cos_hmac_credentials", "json_web_token", "mailchimp_access_key",
    "npm_tokens", "openai_token", "private_key", "public_ip_ipv4", "pypi_token",
    "secret_keyword", "sendgrid_api_key", "slack_token", "softlayer_credentials",
    "square_oauth_secret", "stripe_access_key", "telegram_bot_token", "twilio_api_key",
    "detected_secret"))
# armored_key: base64 lines in a key's shape, found by _key_bodies rather than a pattern
PLACEHOLDER_KINDS = frozenset({kind for kind, _ in SECRET_PATTERNS}) | {"armored_key"} \
    | DETECT_SECRETS_KINDS


def _kind_pattern(underscore: str) -> str:
    """The kinds a placeholder may name, as a regex (``underscore`` spells ``_``): the
    known kinds with a digit (``public_ip_ipv4``) by name, every other by its shape."""
    named = sorted((kind for kind in PLACEHOLDER_KINDS if not re.fullmatch(r"[a-z_]+", kind)),
                   key=lambda k: (-len(k), k))
    known = "".join(re.escape(kind).replace("_", underscore) + "|" for kind in named)
    return rf"(?:{known}[a-z]{{1,40}}(?:{underscore}[a-z]{{1,40}}){{0,7}})"


PLACEHOLDER = re.compile(rf"<(?:SECRET:{_kind_pattern('_')}|EMAIL|IP|PHONE|CARD|USER|HOME)>")
# Assignment values in program text that are code, not secrets: format strings and
# templates when quoted (``{name}``, ``${VAR}``, ``$VAR``, ``%s``, ``%(name)s``, ``<name>``,
# ``{{ x }}``; a lone ``$`` or ``%`` in a pasted key is not one); calls, subscripts and names (letters, ``_`` and ``.`` only:
# ``password = password``, ``token = self.token``) when not.
_CODE_VALUE = re.compile(r"\{[^{}\s]*\}|\$\{|\$[A-Z_][A-Z0-9_]*(?![A-Za-z0-9_])|%\(\w+\)[sd]|"
                         r"%[-0-9.]*[sdrfi](?![A-Za-z0-9])|<[A-Za-z_][A-Za-z0-9_ -]*>|\{\{|^\s*$")
_TYPE_NAME = re.compile(r"[A-Z][A-Za-z_.]*")
# A name may end in Swift's, Kotlin's or TypeScript's optional or unwrapping mark
# (``credential: URLCredential?``, ``password: String!``): a type annotation, not a value.
_CODE_EXPRESSION = re.compile(r"[()\[\]{}$%<>]|^&?[A-Za-z_][A-Za-z_.]*[?!]?[:,;]?$")


# An assigned value that is plainly code in any text, data files included: a call or a
# subscript on a name (``getpass()``, ``request.form["password"]``, ``os.environ["PW"]``),
# whole on its line, or a member that names a secret (``config.password``,
# ``settings.API_KEY``): where the secret comes from, not the secret. A literal
# (``hunter2xyz``, ``abc(1)``, ``hunter.two``) is none of these.
# (``$`` only opens a name, as in PHP's ``$_POST[...]``: ``Pa$$w0rd(x)`` is a literal;
# a shell's ``$(cat /run/secrets/pw)`` is a command.)
_CALL_OR_SUBSCRIPT = re.compile(
    r"(?:(?:\$?[A-Za-z_]\w*\.)*\$?[A-Za-z_]\w*"
    r"(?:\([ \t]*(?:\)|[\"'A-Za-z_*](?:[^()\n]|\([^()\n]*\))*\))"
    r"|\[[ \t]*(?:\"[^\"\n]*\"|'[^'\n]*'|\$?[A-Za-z_][\w.]*)[ \t]*\])"
    r"|\$\([^()\n]*\))(?=[\s.\[\](){},;:]|\Z)")
_MEMBER = re.compile(r"(?:\$?[A-Za-z_]\w*\.)+(?P<last>[A-Za-z_]\w*)")
_NAMES_SECRET = re.compile(_SECRET_NAMES, re.IGNORECASE)


def _code_reference(text: str, start: int, end: int) -> bool:
    """Whether the unquoted value at ``text[start:end]`` is a call, subscript or member
    (see :data:`_CALL_OR_SUBSCRIPT`)."""
    if _CALL_OR_SUBSCRIPT.match(text, start):
        return True
    member = _MEMBER.fullmatch(text, start, end)
    return member is not None and bool(_NAMES_SECRET.search(member.group("last")))


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((kind, re.compile(pattern)) for kind, pattern in SECRET_PATTERNS)


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def looks_random(token: str) -> bool:
    """A pasted key rather than an identifier, path or commit sha."""
    if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{7,12}", token):
        return False  # a git commit sha: a revision, not a secret
    digits = sum(c.isdigit() for c in token)
    letters = sum(c.isalpha() for c in token)
    if digits < 2 or letters < 2:
        return False
    if re.fullmatch(r"[0-9a-f]+", token.lower()) and len(token) >= 32:
        return _entropy(token) >= 3.0
    # Identifiers (TokenRefreshHandler2024) switch between upper, lower and digits at word
    # boundaries only; keys switch every few characters.
    classes = ["u" if c.isupper() else "l" if c.islower() else "d" if c.isdigit() else "o"
               for c in token]
    switches = sum(a != b for a, b in itertools.pairwise(classes))
    return switches / len(token) >= 0.3 and _entropy(token) >= 3.7


def _quoted(text: str, start: int, end: int) -> bool:
    return start > 0 and end < len(text) and text[start - 1] in "\"'" \
        and text[end] == text[start - 1]


def _code_value(value: str, *, quoted: bool) -> bool:
    """Whether an assignment's value in program text is code rather than a secret: for a
    quoted one, a template or a type or token name (``token: "Token"``, ``token = "NAME"``)."""
    if quoted:
        return bool(_CODE_VALUE.search(value) or _TYPE_NAME.fullmatch(value))
    return bool(_CODE_EXPRESSION.search(value))


def find_secrets(text: str, *, code: bool = False, _deep: bool = True) -> list[Span]:
    """Spans of secret values in ``text`` by known formats, as ``(start, end, kind)``,
    sorted and not overlapping (where two overlap, they are merged under the first kind).

    With ``code=True`` (program text) an assignment-style value (``password``, ``token``,
    ``api_key`` …) counts when it is a quoted literal that is not a template, or an
    unquoted value that is not an expression (a name, a call, a subscript)."""
    spans: list[Span] = []
    lowered = text.lower()
    if not text.isascii():
        # A case-insensitive pattern matches the long s and the dotless i as ASCII
        # letters, which ``str.lower`` leaves alone: fold them so the hints see them too.
        lowered = lowered.replace("\u017f", "s").replace("\u0131", "i")
    exact, folded_text = _hint_positions(text, lowered)
    lined = {kind for kind, (words, _) in _STARTS.items()
             if any(word in text for word in words)}
    # A text that holds no hint at all (most queries and symbols) can match no pattern.
    for kind, pattern in _compiled() if exact or folded_text or lined or _UNHINTED else ():
        folded, hints = _HINTS.get(kind, (False, ()))
        where = folded_text if folded else exact
        present = [where[hint] for hint in hints if hint in where]
        if hints and not present:
            continue  # a match must hold one of its hints: most files hold none
        if kind in _STARTS and kind not in lined:
            continue
        if code and kind == "secret_block":
            continue  # YAML's block scalars: data files only
        anchors = _ANCHORS.get(kind)
        if anchors is not None and len(lowered) == len(text):
            matches: Iterable[re.Match[str]] = _anchored(pattern, text, present, anchors)
        elif kind in _STARTS:
            matches = _at_starts(pattern, text, _STARTS[kind][1](text))
        else:
            matches = pattern.finditer(text)
        for match in matches:
            if kind == "netrc_password":
                spans.extend(_netrc_values(text, match, code))
                continue
            start, end = match.span("value") if "value" in pattern.groupindex else match.span()
            if end <= start:
                continue
            if code and kind in ("password", "authorization_header") and _code_value(
                    text[start:end], quoted=_quoted(text, start, end)):
                continue
            if (kind in ("password", "authorization_header") and not _quoted(text, start, end)
                    and _code_reference(text, start, end)):
                continue
            if code and kind == "url_credentials" and _CODE_VALUE.search(text[start:end]):
                continue  # ``f"http://{user}:{password}@…"``, ``<user>:<password>``
            if PLACEHOLDER.fullmatch(text[start:end]):
                continue
            if kind == "high_entropy" and not _keylike(text[start:end]):
                continue
            if (kind == "basic_auth" and not _basic_credentials(text[start:end])
                    and not _HEADER_BEFORE["basic"].search(text[max(0, start - 40):start])):
                continue
            if (kind == "bearer_token" and _WORD.fullmatch(text[start:end])
                    and not _HEADER_BEFORE["bearer"].search(text[max(0, start - 40):start])):
                continue  # prose ("HTTP bearer authorization"), not a token
            spans.append((start, end, kind))
    if "password" in text or "account" in text:
        spans.extend(_netrc_lines(text, code))
    if "\n" in text:
        spans.extend(_key_bodies(text, "PRIVATE KEY" in exact))
    if _deep:
        spans.extend(_hidden(text, code, exact))
    return merge_spans(_outside_placeholders(text, spans))


# What may stand right before a netrc entry's first keyword on its line (indentation, a
# quote opening ``echo "machine …"``), and the end of a line after an entry's last value.
_NETRC_LEAD = re.compile(r"(?:\A|\n)[ \t]*[\"']?\Z")
_LINE_END = re.compile(r"[ \t]*\r?(?:\n|\Z)")
_NETRC_TOKEN = re.compile(_NETRC_VALUE)


def _netrc_values(text: str, match: re.Match[str], code: bool) -> list[Span]:
    """The ``password`` and ``account`` values of a netrc entry ``match`` found. Only in
    a netrc file's shape: the entry opens its line (or a quoted string), or its last
    value ends its line; prose ("by default login and password are…") does neither."""
    start, end = match.span()
    # a bounded look back: entries on one long line must not each scan it to its start
    opens = bool(_NETRC_LEAD.search(text, max(0, start - 200), start)) \
        or (start > 0 and text[start - 1] in "\"'")
    if not opens and not _LINE_END.match(text, end):
        return []
    tokens = list(_NETRC_TOKEN.finditer(text, start, end))
    first = 2 if tokens[0].group() == "machine" else 1
    spans: list[Span] = []
    for keyword, value in zip(tokens[first::2], tokens[first + 1::2], strict=False):
        at, to = value.span()
        if text[at] == '"':  # a quoted value: what is inside its quotes
            at, to = at + 1, to - (to - at > 1 and text[to - 1] == '"')
        shown = text[at:to]
        if keyword.group() not in ("password", "account") or not shown \
                or PLACEHOLDER.fullmatch(shown):
            continue
        if code and _CODE_VALUE.search(shown):
            continue  # a template (``password {pw}``, ``password $PW``) in program text
        spans.append((at, to, "netrc_password"))
    return spans


# A line's number as a viewer prints it before the line: ``     3\t`` (cat -n, nl),
# ``3:`` (grep -n on one file, an agent's file window), ``3-`` (grep's context lines),
# ``     3→`` (Claude Code's Read).
_NUMBER = r"[ \t]*\d{1,7}(?:\t|:|-(?=\S)|\u2192)"

# netrc lines that show no ``machine`` where the entry rule can see it: what ``grep
# password ~/.netrc`` prints (``~/.netrc:3:password …``, ``3:  password …``) and an
# entry's ``login`` and ``password`` lines without their ``machine`` line. A line counts
# only when it is nothing but netrc keyword and value pairs, after what grep or a viewer
# puts before it: a file name and line number (``PATH:12:``, ``PATH-12-``, ``PATH:``), or
# a line number alone (``12:``, ``     12\t``).
_NETRC_CANDIDATE = re.compile(r"(?<![^\s:\-\"'\u2192])(?:password|account)[ \t]+\S")
_NETRC_PREFIX = re.compile(rf"{_NUMBER}"
                           r"|(?P<path>(?:[A-Za-z]:[\\/])?[^\s:]+?)(?::\d{1,7}[:-]|-\d{1,7}[:-]|:)")
_NETRC_FILE = re.compile(r"(?i)[._]netrc\Z")
_NETRC_PAIRED = frozenset(("machine", "login", "password", "account", "port"))
# A value that may be a password when nothing but the line's shape says it is one: not
# a word or a dotted name (``password string`` in a Go struct, ``password reset``), a
# number, a version or a sized type; no brackets, quotes, operators or templates, and
# not a pointer, a flag or a path (``*string``, ``--stdin``, ``/dev/tty``).
_PLAIN_VALUE = re.compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+)*|v?[0-9]+(?:\.[0-9]+)*"
                          r"|(?:u?int|float|complex)[0-9]+")
_CODE_CHARS = re.compile(r"[()\[\]{}<>=;,\"'`$\\]|^[*&/.#-]")


def _password_like(value: str) -> bool:
    return len(value) >= 4 and not _PLAIN_VALUE.fullmatch(value) \
        and not _CODE_CHARS.search(value)


def _netrc_line(text: str, start: int, end: int
                ) -> tuple[bool, bool, list[tuple[str, re.Match[str] | None]]] | None:
    """The line ``text[start:end]`` read as netrc: whether a file name or line number
    opens it, whether that name is a netrc file's, and its keyword and value pairs; None
    when it holds anything else (a netrc file's line is read whatever it holds)."""
    prefix = _NETRC_PREFIX.match(text, start, end)
    netrc = False
    if prefix is not None:
        path = prefix.group("path")
        netrc = path is not None and _NETRC_FILE.search(path) is not None
        start = prefix.end()
    pairs: list[tuple[str, re.Match[str] | None]] = []
    tokens = _NETRC_TOKEN.finditer(text, start, end)
    for token in tokens:  # read lazily: most lines stop at their first word
        word = token.group()
        if word == "default":
            pairs.append((word, None))
        elif word in _NETRC_PAIRED:
            value = next(tokens, None)
            if value is None:
                return None if not netrc else (True, True, pairs)
            pairs.append((word, value))
        elif not netrc:
            return None
    return prefix is not None, netrc, pairs


def _netrc_lines(text: str, code: bool) -> list[Span]:
    """``password`` and ``account`` values of netrc lines the entry rule cannot place:
    any value on a netrc file's line (by the name grep shows) or after a ``machine`` or
    ``default`` on the line or the line above; a value that looks like a password
    (:func:`_password_like`) after a ``login`` on the line or the line above, or on a
    line a file name or line number opens."""
    spans: list[Span] = []
    end = -1
    for candidate in _NETRC_CANDIDATE.finditer(text):
        if candidate.start() < end:
            continue  # on the line just read
        start = text.rfind("\n", 0, candidate.start()) + 1
        end = text.find("\n", candidate.start())
        end = len(text) if end < 0 else end
        line = _netrc_line(text, start, end)
        if line is None:
            continue
        shown, netrc, pairs = line
        words = {word for word, _ in pairs}
        if start > 0:
            above = _netrc_line(text, text.rfind("\n", 0, start - 1) + 1, start - 1)
            if above is not None:
                words |= {word for word, _ in above[2]}
        sure = netrc or bool(words & {"machine", "default"})
        if not (sure or shown or "login" in words):
            continue
        for keyword, value in pairs:
            if keyword not in ("password", "account") or value is None:
                continue
            at, to = value.span()
            if sure and text[at] == '"':  # a quoted value: what is inside its quotes
                at, to = at + 1, to - (to - at > 1 and text[to - 1] == '"')
            found = text[at:to].rstrip("\r")
            if not found or PLACEHOLDER.fullmatch(found) \
                    or (code and _CODE_VALUE.search(found)) \
                    or not (sure or _password_like(found)):
                continue
            spans.append((at, at + len(found), "netrc_password"))
    return spans


def _at_starts(pattern: re.Pattern[str], text: str,
               starts: Iterable[int]) -> Iterator[re.Match[str]]:
    """The matches ``pattern.finditer(text)`` yields, trying only ``starts`` (every place
    a match can start): left to right, never overlapping, as a scan would."""
    end = 0
    for start in sorted(set(starts)):
        if start < end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            yield match
            end = max(match.end(), start + 1)


# Armoured key text read from its middle (``tail``, ``sed -n`` of a ``.asc`` or ``.pem``):
# no BEGIN line for the private_key pattern to see. A line of the body: base64, the last
# one padded, or an OpenPGP checksum line (``=h8jr``).
_END_PRIVATE = re.compile(r"-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----")
_BODY_LINE = re.compile(r"[ \t]*(?:[A-Za-z0-9+/]+={0,2}|=[A-Za-z0-9+/]{4})[ \t]*\r?")
# A full line of a body: 64 characters (PEM, OpenPGP) or 70 (OpenSSH), at a line's start.
_FULL_LINE = re.compile(r"(?:\A|\n)[ \t]*(?P<body>[A-Za-z0-9+/]{70}|[A-Za-z0-9+/]{64})[ \t]*\r?"
                        r"(?=\n|\Z)")
_LAST_LINE = re.compile(r"\n[ \t]*(?P<body>[A-Za-z0-9+/]{1,70}={0,2}|=[A-Za-z0-9+/]{4})[ \t]*\r?(?=\n|\Z)")
_MARKER = re.compile(r"-----(BEGIN|END) ([A-Z0-9 ]{1,60})-----")
_UPPER, _LOWER, _DIGIT = re.compile("[A-Z]"), re.compile("[a-z]"), re.compile("[0-9]")
# Full lines in a row that make a body: a few (a certificate's or a key's lines are many;
# what else is base64 is seldom wrapped at these widths).
BODY_LINES = 3


def _key_bodies(text: str, end_marker: bool) -> list[Span]:
    """Key bodies with no BEGIN line: the base64 lines right above an ``-----END … PRIVATE
    KEY-----`` line (``private_key``, the END line included), and a run of full base64
    lines (``armored_key``) that no visible BEGIN or END marks as a certificate's, a
    public key's or a signature's."""
    spans: list[Span] = []
    if end_marker and "-----END" in text:
        for match in _END_PRIVATE.finditer(text):
            top = _body_above(text, match.start())
            if top is not None:
                spans.append((top, match.end(), "private_key"))
    if len(text) < 64 * BODY_LINES:
        return spans
    runs = _full_runs(text)
    if not runs:
        return spans
    markers = [(m.start(), m.group(1), m.group(2)) for m in _MARKER.finditer(text)] \
        if "-----" in text else []
    places = [at for at, _, _ in markers]
    for start, end in runs:
        before = bisect.bisect_left(places, start) - 1
        after = bisect.bisect_left(places, end)
        if before >= 0 and markers[before][1] == "BEGIN" and "PRIVATE" not in markers[before][2]:
            continue  # inside a certificate, public key, signature or message
        if after < len(markers) and markers[after][1] == "END" \
                and "PRIVATE" not in markers[after][2]:
            continue
        spans.append((start, end, "armored_key"))
    return spans


def _body_above(text: str, marker: int) -> int | None:
    """Where the base64 lines right above the END line at ``marker`` start (their first
    character), or None when there are none (or the END line holds more than it)."""
    line = marker
    while line > 0 and marker - line < 100 and text[line - 1] in " \t":
        line -= 1
    if line > 0 and text[line - 1] != "\n":
        return None  # ``-----END`` inside other text (a string, a comment)
    top = None
    while line > 0:
        above = text.rfind("\n", 0, line - 1) + 1
        body = text[above:line - 1]
        if not body.strip() or not _BODY_LINE.fullmatch(body):
            break
        top = above + len(body) - len(body.lstrip())
        line = above
    return top


def _full_runs(text: str) -> list[tuple[int, int]]:
    """Spans of at least BODY_LINES full base64 lines in a row of one width, each with
    upper-case and lower-case letters and digits (hex digests, words and numbers are not
    base64 bodies), with the shorter last line and the checksum line that may follow."""
    lines: list[tuple[int, int, int, int]] = []  # match start, body start, body end, match end
    for match in _FULL_LINE.finditer(text):
        body = match.group("body")
        if _UPPER.search(body) and _LOWER.search(body) and _DIGIT.search(body):
            lines.append((match.start(), match.start("body"), match.end("body"), match.end()))
    runs: list[tuple[int, int]] = []
    at = 0
    while at < len(lines):
        width = lines[at][2] - lines[at][1]
        nxt = at + 1
        # the next line of the text (its match starts at this line's break), as wide
        while nxt < len(lines) and lines[nxt][0] == lines[nxt - 1][3] \
                and lines[nxt][2] - lines[nxt][1] == width:
            nxt += 1
        if nxt - at >= BODY_LINES:
            end, after = lines[nxt - 1][2], lines[nxt - 1][3]
            for _ in range(2):  # the shorter last line, then the checksum line
                last = _LAST_LINE.match(text, after)
                if last is None:
                    break
                end, after = last.end("body"), last.end()
            runs.append((lines[at][1], end))
        at = nxt
    return runs


# An authorization header right before its scheme (``Basic``, ``Bearer``): whatever
# follows is the credential; elsewhere a word after ``Bearer`` is prose, not a token.
_HEADER_BEFORE = {scheme: re.compile(rf"(?i)authorization[\"']?\s*[:=]\s*[\"']?{scheme}\s+\Z")
                  for scheme in ("basic", "bearer")}
_WORD = re.compile(r"[A-Za-z][a-z]+")


def _basic_credentials(token: str) -> bool:
    """Whether the word after ``Basic`` is HTTP Basic credentials: base64 of ``user:pass``
    (printable, with a colon), not prose ("the basic building block", "basic types").
    After an ``Authorization:`` header any value is (the caller checks)."""
    import base64
    import binascii

    body = token.rstrip("=")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in raw and not any(byte < 32 or byte == 127 for byte in raw)


def _keylike(token: str) -> bool:
    """A value after the word ``token`` or ``secret`` in prose that is a pasted key
    (``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``), not a name (``TokenRefreshHandler2024``,
    ``getAccessTokenForUser``): it switches character class often and has high entropy."""
    if looks_random(token):
        return True
    classes = ["u" if c.isupper() else "l" if c.islower() else "d" if c.isdigit() else "o"
               for c in token]
    switches = sum(a != b for a, b in itertools.pairwise(classes))
    return switches / len(token) >= 0.3 and _entropy(token) >= 4.0


# A placeholder as an output escaped it: HTML (``&lt;SECRET:jwt&gt;``), JSON in a page
# (``\u003c…\u003e``, ``\u0026lt;…``), Markdown (``github\_token``).
_ESCAPED_UNDERSCORE = r"\\*_"  # Markdown escapes it (and JSON its backslash)
_SHELL = re.compile(r"<SECRET:[^<>\s]{1,200}>")  # placeholder-shaped, its kind not yet checked
_ESCAPED_PLACEHOLDER = re.compile(r"(?:&lt;|\\u003c|\\u0026lt;)SECRET:"
                                  + _kind_pattern(_ESCAPED_UNDERSCORE)
                                  + r"(?:&gt;|\\u003e|\\u0026gt;)")


def _outside_placeholders(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` less those that touch a placeholder already in ``text``: a second pass
    over redacted text leaves ``<SECRET:password>`` alone (the ``SECRET:password`` in it
    reads like an assignment), and so does one over a rendered report, where the
    placeholder is escaped (``&lt;SECRET:password&gt;``)."""
    if not spans or ("<" not in text and "SECRET:" not in text):
        return spans
    holders = [match.span() for match in PLACEHOLDER.finditer(text)] if "<" in text else []
    if "SECRET:" in text:
        holders += [match.span() for match in _ESCAPED_PLACEHOLDER.finditer(text)]
    shells = [match.span() for match in _SHELL.finditer(text)
              if not PLACEHOLDER.fullmatch(match.group())] if "<SECRET:" in text else []
    if shells:
        # A value found inside ``<SECRET:…>`` that is no placeholder (a key with digits
        # dressed as one) takes the whole shell with it, not to leave ``<SECRET:<SECRET:…``.
        def widened(span: Span) -> Span:
            for start, end in shells:
                if span[0] < end and start < span[1]:
                    return min(span[0], start), max(span[1], end), span[2]
            return span

        spans = [widened(span) for span in spans]
    if not holders:
        return spans
    return [span for span in spans
            if not any(span[0] < end and start < span[1] for start, end in holders)]


# Ways a value is hidden from the patterns: zero-width and other invisible characters
# inside it, percent-encoding, a line break inside a token.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]+")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2})*")
_WRAPPED = re.compile(r"(?<=[A-Za-z0-9_+/=-])\r?\n(?=[A-Za-z0-9_+/=-])")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_+/=.-]*")


def _hidden(text: str, code: bool, hints: dict[str, list[int]]) -> list[Span]:
    """Secrets the patterns find only once what hides them is undone: each hiding is
    undone in a view of ``text`` whose positions map back, and a span found there that
    covers an undone place is a span of ``text``."""
    found: list[Span] = []
    if not text.isascii() and _INVISIBLE.search(text):
        found += _in_view(text, _INVISIBLE, lambda match: "", code)
    if "%" in text and _PERCENT.search(text):
        found += _in_view(text, _PERCENT, _percent_decoded, code)
    if "\n" in text and hints:
        found += _wrapped(text, code, sorted({at for places in hints.values() for at in places}))
    if "\n" in text and _NUMBERED_TWICE.search(text):
        # A numbered view of a file (``cat -n``, ``grep -n``, an agent's ``12:`` window):
        # the rules that ask a line to open with its keyword (.netrc, .pgpass, a key
        # body's lines) see the file's own lines once the numbers are gone.
        found += _in_view(text, _LINE_NUMBER, lambda match: "", code, every=True)
    return found


_LINE_NUMBER = re.compile(rf"(?m)^{_NUMBER}")
_NUMBERED_TWICE = re.compile(rf"(?m)^{_NUMBER}[^\n]*\n[ \t]*\d{{1,7}}(?:\t|:|-|\u2192)")


def _percent_decoded(match: re.Match[str]) -> str:
    from urllib.parse import unquote

    try:
        decoded = unquote(match.group(), errors="strict")
    except UnicodeDecodeError:
        return match.group()
    # Only characters a token is made of are decoded: ``%20`` and ``%02d`` stay as they
    # are, so most texts need no second look.
    return decoded if _TOKEN_CHARS.fullmatch(decoded) else match.group()


def _in_view(text: str, pattern: re.Pattern[str], undo: Any, code: bool, *,
             every: bool = False) -> list[Span]:
    """Spans found in the view of ``text`` with ``pattern``'s places undone, mapped back:
    those that cover an undone place, or (``every``) all of them."""
    pieces: list[str] = []
    # (view start, view end, text start, text end) of each undone place
    places: list[tuple[int, int, int, int]] = []
    cursor = view = 0
    for match in pattern.finditer(text):
        kept = text[cursor:match.start()]
        pieces.append(kept)
        view += len(kept)
        replacement = undo(match)
        pieces.append(replacement)
        places.append((view, view + len(replacement), match.start(), match.end()))
        view += len(replacement)
        cursor = match.end()
    pieces.append(text[cursor:])
    shown = "".join(pieces)
    if shown == text:
        return []  # nothing was hidden (``%02d`` is not an encoded character)

    # The places never touch (a pattern's neighbouring matches are one match): each is
    # found by bisection, not by a walk over all of them per span (a text of thousands
    # of encoded values, each a span, took minutes).
    starts = [v_start for v_start, _, _, _ in places]
    ends = [v_end for _, v_end, _, _ in places]

    def back(position: int, *, end: bool) -> int:
        at = bisect.bisect_right(starts, position) - 1  # the last place not after it
        if at < 0:
            return position
        v_start, v_end, t_start, t_end = places[at]
        if not end and position == v_start == v_end:  # a start before an empty place
            return position + (places[at - 1][3] - places[at - 1][1] if at else 0)
        if position < v_end or (end and position == v_end):
            return t_end if end else t_start
        return position + t_end - v_end

    def covers(start: int, end: int) -> bool:
        """Whether a place starts in ``[start, end]``, or ends there and starts before
        ``end``."""
        first = bisect.bisect_left(starts, start)
        if first < len(places) and starts[first] <= end:
            return True
        last = bisect.bisect_left(ends, start)
        return last < len(places) and ends[last] <= end and starts[last] < end

    spans = []
    for start, end, kind in find_secrets(shown, code=code, _deep=False):
        if every or covers(start, end):
            spans.append((back(start, end=False), back(end, end=True), kind))
    return spans


def _wrapped(text: str, code: bool, hints: list[int]) -> list[Span]:
    """A token broken by a line break after a known prefix (``ghp_…`` at a line's end, its
    rest on the next line): tried joined, only where a prefix's token runs into a break."""
    spans: list[Span] = []
    done = -1
    for at in hints:
        if at < done:
            continue
        run = _TOKEN_CHARS.match(text, at)
        head_end = run.end() if run else at
        if head_end <= at:
            continue
        # every later hint inside this token runs to the same end: looked at once (a
        # token of 40,000 ``ghp_`` took 8 s when each hint read it to its end)
        done = head_end
        if not _WRAPPED.match(text, head_end):
            continue
        breaks = 2 if text.startswith("\r\n", head_end) else 1
        tail = _TOKEN_CHARS.match(text, head_end + breaks)
        head = text[at:head_end]
        joined = head + (tail.group() if tail else "")
        for start, end, kind in find_secrets(joined, code=code, _deep=False):
            if start < len(head) < end:
                spans.append((at + start, head_end + breaks + end - len(head), kind))
    return spans


@lru_cache(maxsize=1)
def _hint_finders() -> tuple[tuple[Any, list[str]], tuple[Any, list[str]]]:
    """Aho-Corasick automata over every hint: the exact ones and the lower-cased ones."""
    import ahocorasick_rs

    finders = []
    for folded in (False, True):
        hints = sorted({hint for fold, some in _HINTS.values() if fold is folded
                        for hint in some})
        finders.append((ahocorasick_rs.AhoCorasick(hints), hints))
    return finders[0], finders[1]


def _hint_positions(text: str, lowered: str) -> tuple[dict[str, list[int]],
                                                      dict[str, list[int]]]:
    """Where each hint occurs: exact hints in ``text``, folded ones in ``lowered``; one
    pass over each instead of one substring search per hint."""
    out = []
    for (finder, hints), haystack in zip(_hint_finders(), (text, lowered), strict=True):
        found: dict[str, list[int]] = {}
        try:
            matches = finder.find_matches_as_indexes(haystack, overlapping=True)
        except UnicodeEncodeError:  # undecodable bytes kept as lone surrogates
            matches = finder.find_matches_as_indexes(mend_surrogates(haystack),
                                                     overlapping=True)
        for number, start, _ in matches:
            found.setdefault(hints[number], []).append(start)
        out.append(found)
    return out[0], out[1]


def _anchored(pattern: re.Pattern[str], text: str, occurrences: list[list[int]],
              anchors: tuple[int, int]) -> Iterator[re.Match[str]]:
    """The matches ``pattern.finditer(text)`` yields, trying only the positions where a
    match can start (``anchors`` from each occurrence of a hint, in a haystack of
    ``text``'s length): left to right, never overlapping, as a scan would."""
    first, last = anchors
    starts: set[int] = set()
    for positions in occurrences:
        for at in positions:
            starts.update(range(max(0, at + first), at + last + 1))
    yield from _at_starts(pattern, text, starts)


def find_high_entropy(text: str) -> list[Span]:
    """Long unquoted tokens that mix letters and digits with high entropy (a key pasted
    into prose); git commit shas are left alone. Too eager for program text."""
    return [(*m.span(), "high_entropy") for m in _LONG_TOKEN.finditer(text)
            if not PLACEHOLDER.search(m.group()) and looks_random(m.group())]


def merge_spans(spans: list[Span]) -> list[Span]:
    """``spans`` sorted, overlapping ones merged (the earliest, then longest, names it)."""
    spans = sorted(spans, key=lambda s: (s[0], -(s[1] - s[0])))
    kept: list[Span] = []
    for start, end, kind in spans:
        if kept and start < kept[-1][1]:
            if end > kept[-1][1]:
                kept[-1] = (kept[-1][0], end, kept[-1][2])
            continue
        kept.append((start, end, kind))
    return kept


def replace_spans(text: str, spans: list[Span], placeholder: str = "<SECRET:{kind}>"
                  ) -> tuple[str, list[str]]:
    """``text`` with each span replaced by ``placeholder`` (and the line breaks the span
    held, so line count is kept), and the kinds replaced, one per span."""
    if not spans:
        return text, []
    out: list[str] = []
    kinds: list[str] = []
    cursor = 0
    for start, end, kind in merge_spans(spans):
        out.append(text[cursor:start])
        out.append(placeholder.format(kind=kind) + "\n" * text.count("\n", start, end))
        kinds.append(kind)
        cursor = end
    out.append(text[cursor:])
    return "".join(out), kinds


def redact(text: str, *, code: bool = False) -> tuple[str, list[str]]:
    """``text`` with every secret value found replaced by ``<SECRET:kind>``, and the kinds
    replaced (one per value, in order)."""
    return replace_spans(text, find_secrets(text, code=code))


def redact_text(text: str, *, code: bool = False) -> str:
    """``text`` with every secret value found replaced (the kinds dropped)."""
    return redact(text, code=code)[0]


def redact_bytes(data: bytes) -> bytes:
    """UTF-8 ``data`` with every secret value replaced; other bytes kept as they are. A
    binary OpenPGP secret key (``secring.gpg``, ``gpg --export-secret-keys``) holds no
    text a detector sees: it is replaced whole."""
    if _openpgp_secret_key(data):
        return b"<SECRET:private_key>" + b"\n" * data.count(b"\n")
    text = data.decode("utf-8", "surrogateescape")
    clean, kinds = redact(text)
    return clean.encode("utf-8", "surrogateescape") if kinds else data


def _openpgp_secret_key(data: bytes) -> bool:
    """Whether ``data`` starts with an OpenPGP secret-key packet (tag 5; RFC 4880 section
    4.2): its header, in the old format or the new, then a key version (3 to 6)."""
    if len(data) < 8 or not data[0] & 0x80:
        return False
    if data[0] & 0x40:  # new format: the tag in six bits, a one, two or five octet length
        tag, first = data[0] & 0x3F, data[1]
        length = 1 if first < 192 else 2 if first < 224 else 5 if first == 255 else 1
    else:  # old format: the tag in four bits, the length's size in two
        tag, length = (data[0] >> 2) & 0x0F, (1, 2, 4, 0)[data[0] & 0x03]
    return tag == 5 and data[1 + length] in (3, 4, 5, 6)


# Secret-bearing files: the index leaves them out whatever the include list says (unless
# the policy sets ``secrets: false``), and what a trajectory or an attempt shows of one is
# redacted whole. Matched against a file's name, case-insensitively. Templates
# (``.env.example``) are neither: they document settings and hold placeholders; any value
# that looks like a secret in them is still redacted.
SECRET_FILES: tuple[str, ...] = (
    ".env", ".env.*", "*.env", "*.pem", "*.key", "*.ppk", "id_rsa*", "id_dsa*", "id_ecdsa*",
    "id_ed25519*", "*.p12", "*.pfx", "*.keystore", "*.jks", "*.kdbx", ".netrc", "_netrc",
    ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".htpasswd", ".dockercfg",
    "credentials", "credentials.json", ".credentials", "secring.*",
)
SECRET_TEMPLATES: tuple[str, ...] = (".example", ".sample", ".template", ".dist", ".defaults")
# Of those, the ones that hold a private key (or a store of them): the placeholder's kind.
_KEY_FILES = frozenset(("*.pem", "*.key", "*.ppk", "id_rsa*", "id_dsa*", "id_ecdsa*",
                        "id_ed25519*", "*.p12", "*.pfx", "*.keystore", "*.jks", "secring.*"))

# One expression for every SECRET_FILES glob (fnmatchcase's own translation of each):
# most names match none, and one search says so.
_SECRET_UNION = re.compile("|".join(f"(?:{fnmatch.translate(glob)})" for glob in SECRET_FILES))


def secret_bearing(path: str) -> str | None:
    """The :data:`SECRET_FILES` pattern that marks ``path`` as a secret-bearing file."""
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith(SECRET_TEMPLATES) or _SECRET_UNION.match(name) is None:
        return None
    return next((glob for glob in SECRET_FILES if fnmatch.fnmatchcase(name, glob)), None)


def secret_file_kind(path: str) -> str | None:
    """The placeholder kind for text shown of the file at ``path`` when its name marks it
    as secret-bearing (``private_key`` for key files, ``secret_file`` for the others),
    else None. A key read from its middle (``sed -n 4,30p server.key``) shows no BEGIN
    line for a detector to see, so the name decides; a public key (``id_rsa.pub``) is not
    one. A path a tool printed may use either separator."""
    name = path.replace("\\", "/")
    glob = secret_bearing(name)
    if glob is None or name.lower().endswith(".pub"):
        return None
    return "private_key" if glob in _KEY_FILES else "secret_file"


def redact_whole(text: str, kind: str) -> str:
    """``text`` (lines of a secret-bearing file) with every line that holds more than
    white space replaced by ``<SECRET:kind>``: line breaks and blank lines are kept."""
    return "\n".join(f"<SECRET:{kind}>" if line.strip() else line
                     for line in text.split("\n"))


# Files whose text is data or prose, where ``password: value`` counts even unquoted; an
# excerpt of any other file is read as program text (``code=True``).
DATA_SUFFIXES = (".env", ".yaml", ".yml", ".json", ".toml", ".ini", ".cfg", ".conf", ".txt",
                 ".md", ".rst", ".properties", ".xml", ".sh", ".bash", ".zsh", ".tf",
                 ".tfvars", ".npmrc", ".netrc", ".pypirc")


def is_program_text(path: str) -> bool:
    """Whether the file at ``path`` holds program text (by its name)."""
    name = path.rsplit("/", 1)[-1].lower()
    return "." in name.lstrip(".") and not name.endswith(DATA_SUFFIXES) \
        and not name.startswith(".env")


_CACHED_CHARS = 4096  # longer texts (excerpts) are seldom met twice: scanned, not kept


@lru_cache(maxsize=65536)
def _redact_remembered(text: str, code: bool) -> tuple[str, tuple[str, ...]]:
    clean, kinds = redact(text, code=code)
    return clean, tuple(kinds)


def _redact_cached(text: str, code: bool) -> tuple[str, tuple[str, ...]]:
    if len(text) > _CACHED_CHARS:
        clean, kinds = redact(text, code=code)
        return clean, tuple(kinds)
    return _redact_remembered(text, code)


def redact_once(text: str, *, code: bool = False) -> str:
    """:func:`redact_text`, remembered by value: the same query, symbol or message met
    again (every chunk of a run names the same few) is scanned once."""
    if len(text) < 4:
        return text  # no detector matches fewer characters
    return _redact_cached(text, code)[0]


def redact_data(data: Any, kinds: list[str] | None = None, *, file: str | None = None) -> Any:
    """Plain data (dicts, lists, strings, as JSON decodes) with every string redacted,
    mapping keys included; the kinds replaced are appended to ``kinds``. A mapping with a
    ``file`` and an ``excerpt`` or ``text`` (a chunk, a quoted passage) has it read as
    that file's text (every line replaced when the file is secret-bearing); ``file``
    names the file of a top-level mapping that names none (a chunk's ``extra``). Walked without recursion limits mattering: input is bounded at 100
    levels where it enters."""
    found = kinds if kinds is not None else []
    if isinstance(data, str):
        if len(data) < 4:
            return data
        clean, more = _redact_cached(data, False)
        found.extend(more)
        return clean
    if isinstance(data, list | tuple):
        return [redact_data(item, found) for item in data]
    if isinstance(data, dict):
        out: dict[Any, Any] = {}
        named = data.get("file")
        of = named if isinstance(named, str) else file
        code = of is not None and is_program_text(of)
        whole = secret_file_kind(of) if of is not None else None
        for key, value in data.items():
            clean_key = redact_data(key, found) if isinstance(key, str) else key
            if clean_key in out:  # two keys redacted alike: keep both, told apart
                clean_key = f"{clean_key}#{len(out)}"
            if whole is not None and key in ("excerpt", "text") and isinstance(value, str):
                out[clean_key] = redact_whole(value, whole)
                if out[clean_key] != value:
                    found.append(whole)
            elif code and key in ("excerpt", "text") and isinstance(value, str):
                clean, more = _redact_cached(value, True)
                found.extend(more)
                out[clean_key] = clean
            else:
                out[clean_key] = redact_data(value, found)
        return out
    return data


def redact_struct(value: T) -> T:
    """``value`` (a msgspec Struct or dataclass, nested records included) with every
    string in it redacted; the same object when nothing was found."""
    kinds: list[str] = []
    data = redact_data(msgspec.to_builtins(value), kinds)
    if not kinds:
        return value
    try:
        return msgspec.convert(data, type(value))
    except msgspec.ValidationError as err:  # a placeholder where a field has a format
        raise InputError(f"a {type(value).__name__} holds a secret value ({summary(kinds)}) "
                         f"in a field that cannot hold a placeholder: {err}") from None


def summary(kinds: list[str]) -> str:
    """``3 (aws_access_key, password x2)``: how many values of which kinds (no values)."""
    counts = Counter(kinds)
    parts = [kind if n == 1 else f"{kind} x{n}" for kind, n in sorted(counts.items())]
    return f"{len(kinds)} ({', '.join(parts)})"


__all__ = ["DATA_SUFFIXES", "DETECT_SECRETS_KINDS", "PLACEHOLDER", "PLACEHOLDER_KINDS",
           "SECRET_FILES", "SECRET_PATTERNS", "SECRET_TEMPLATES", "Span", "find_high_entropy",
           "find_secrets", "is_program_text", "looks_random", "merge_spans", "redact",
           "redact_bytes", "redact_data", "redact_once", "redact_struct", "redact_text",
           "redact_whole", "replace_spans", "secret_bearing", "secret_file_kind",
           "summary"]
