"""The one JSON-over-HTTP client: POST bytes, get bytes back, or one clear error.

Used by the ``http://`` retriever adapter and the OpenAI-compatible embedder. Each try
has a *total* deadline (a server dripping one byte a second is cut off when it passes,
not only a silent one), the answer is capped in size, redirects are an error unless
allowed and then only to the same origin, and every failure a socket or a broken
server can produce (bad status line, truncated body, too many headers, reset, TLS) is
one :class:`~codegold.errors.RetrieverError`. Connection failures, timeouts and
429/5xx answers are retried with exponential backoff; other answers are not.
"""

from __future__ import annotations

import contextlib
import http.client
import re
import socket
import threading
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from codegold.errors import InputError, RetrieverError

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_MAX_REDIRECTS = 5
_CHUNK = 64 * 1024


MAX_BACKOFF = 8.0
"""Longest wait between two tries (the doubling stops here: 6 retries wait 0.5+1+2+4+8+8 s)."""


@dataclass(frozen=True)
class HttpPolicy:
    """How hard to try. ``timeout`` is the total seconds one try may take, connect to
    last byte; ``retries`` more tries follow a retryable failure after ``backoff``,
    doubling each time up to :data:`MAX_BACKOFF`."""

    timeout: float = 30.0
    retries: int = 2
    backoff: float = 0.5
    max_bytes: int = DEFAULT_MAX_BYTES
    follow_redirects: bool = False


class _Failure(Exception):
    def __init__(self, message: str, *, retry: bool) -> None:
        super().__init__(message)
        self.message = message
        self.retry = retry


def _origin(url: urllib.parse.SplitResult) -> tuple[str, str, int | None]:
    default = 443 if url.scheme == "https" else 80
    return url.scheme, (url.hostname or "").lower(), url.port or default


_USERINFO = re.compile(r"(?<=://)[^\s/@?#]+@")
_SECRET_PARAM = re.compile(
    r"(?i)([?&;](?:[\w.-]*(?:token|key|secret|password|passwd|pwd|auth|signature|sig|"
    r"credential|session)[\w.-]*)=)[^&#\s]*")
REDACTED = "<redacted>"


def redact_url(text: str) -> str:
    """``text`` with every URL's ``user:password@`` and the values of secret-looking query
    parameters (``?token=``, ``&api_key=``, ``&sig=``…) replaced: what may be written to
    attempts, errors and logs about an address."""
    return _SECRET_PARAM.sub(rf"\1{REDACTED}", _USERINFO.sub(f"{REDACTED}@", text))


def _redact_values(message: str, headers: Mapping[str, str]) -> str:
    """``message`` without any request header value codegold sent (a server may echo the
    request, Authorization included, into its error page)."""
    for name, value in headers.items():
        if name.lower() in ("content-type", "accept") or len(value) < 4:
            continue
        message = message.replace(value, REDACTED)
        scheme, _, token = value.partition(" ")
        if token and len(token) >= 4 and scheme.isalpha():
            message = message.replace(token, REDACTED)
    return redact_url(message)


def parse_url(url: str) -> urllib.parse.SplitResult:
    """``url`` split, or :class:`InputError` when it is not an ``http(s)://host[:port]/path``
    URL without spaces or control characters."""
    problem = None
    try:
        parsed = urllib.parse.urlsplit(url)
        parsed.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as err:
        problem = str(err)
    else:
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            problem = "expected http://HOST[:PORT]/PATH or https://…"
        elif any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
            problem = "it contains whitespace or control characters"
    if problem is not None:
        raise InputError(f"{redact_url(url)!r} is not a usable URL: {problem}")
    return parsed


def post_json(url: str, body: bytes, *, policy: HttpPolicy | None = None,
              headers: Mapping[str, str] | None = None, what: str | None = None) -> bytes:
    """POST ``body`` (JSON) to ``url`` and return the answer's bytes (2xx only).

    Raises :class:`RetrieverError` naming ``what`` (default: ``server at URL``) and the
    last failure once the tries are spent; :class:`InputError` for a URL that is not one.
    """
    policy = policy or HttpPolicy()
    who = what or f"server at {redact_url(url)}"
    parsed = parse_url(url)
    all_headers = {"Content-Type": "application/json", "Accept": "application/json",
                   **(headers or {})}
    last = ""
    for attempt in range(policy.retries + 1):
        if attempt:
            time.sleep(min(policy.backoff * (2 ** (attempt - 1)), MAX_BACKOFF))
        try:
            return _try(parsed, body, all_headers, policy)
        except _Failure as failure:
            last = failure.message
            if not failure.retry:
                break
    tries = "1 try" if attempt == 0 else f"{attempt + 1} tries"
    raise RetrieverError(f"{who} failed after {tries}: {_redact_values(last, all_headers)}")


def _try(url: urllib.parse.SplitResult, body: bytes, headers: Mapping[str, str],
         policy: HttpPolicy) -> bytes:
    deadline = time.monotonic() + policy.timeout
    start = url
    for _ in range(_MAX_REDIRECTS + 1):
        status, location, payload = _exchange(url, body, headers, policy, deadline)
        if status not in _REDIRECTS:
            return _accept(status, payload)
        if not location:
            raise _Failure(f"HTTP {status} redirect without a Location header", retry=False)
        try:
            target = parse_url(urllib.parse.urljoin(url.geturl(), location))
        except (InputError, ValueError):
            raise _Failure(f"HTTP {status} redirect to an unusable address {location[:200]!r}",
                           retry=False) from None
        if not policy.follow_redirects:
            raise _Failure(f"HTTP {status} redirect to {target.geturl()}; codegold does not "
                           "follow redirects (point the URL at the final address)", retry=False)
        if _origin(target) != _origin(start):
            raise _Failure(f"HTTP {status} redirect to another origin ({target.geturl()}); "
                           "only same-origin redirects are followed", retry=False)
        if status in (301, 302, 303):
            raise _Failure(f"HTTP {status} redirect to {target.geturl()} would turn the POST "
                           "into a GET; only 307/308 are followed", retry=False)
        url = target
    raise _Failure(f"more than {_MAX_REDIRECTS} redirects", retry=False)


def _accept(status: int, payload: bytes) -> bytes:
    if 200 <= status < 300:
        return payload
    reason = http.client.responses.get(status, "")
    snippet = payload[:200].decode("utf-8", "replace").strip()
    message = f"HTTP {status} {reason}".rstrip() + (f": {snippet}" if snippet else "")
    raise _Failure(message, retry=status in RETRYABLE_STATUS)


def _exchange(url: urllib.parse.SplitResult, body: bytes, headers: Mapping[str, str],
              policy: HttpPolicy, deadline: float) -> tuple[int, str | None, bytes]:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _Failure(f"timed out after {policy.timeout:g}s", retry=True)
    host = url.hostname or ""
    conn: http.client.HTTPConnection
    if url.scheme == "https":
        conn = http.client.HTTPSConnection(host, url.port, timeout=remaining)
    else:
        conn = http.client.HTTPConnection(host, url.port, timeout=remaining)
    expired = threading.Event()

    def cut_off() -> None:
        # A socket timeout bounds one read; this bounds the whole exchange.
        expired.set()
        sock = conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(remaining, cut_off)
    timer.daemon = True
    timer.start()
    path = url.path or "/"
    if url.query:
        path += "?" + url.query
    try:
        conn.request("POST", path, body=body, headers=dict(headers))
        answer = conn.getresponse()
        length = answer.getheader("Content-Length")
        if length is not None and length.strip().isdigit() and int(length) > policy.max_bytes:
            raise _Failure(f"answer of {int(length)} bytes is larger than the "
                           f"{policy.max_bytes}-byte limit", retry=False)
        data = bytearray()
        while chunk := answer.read(_CHUNK):
            data.extend(chunk)
            if len(data) > policy.max_bytes:
                raise _Failure(f"answer is larger than the {policy.max_bytes}-byte limit",
                               retry=False)
        if expired.is_set():
            raise _Failure(f"timed out after {policy.timeout:g}s", retry=True)
        if length is not None and length.strip().isdigit() and len(data) != int(length):
            # http.client returns a short body quietly when the peer hangs up early.
            raise _Failure(f"broken HTTP answer (IncompleteRead: {len(data)} of {int(length)} "
                           "bytes before the connection closed)", retry=True)
        return answer.status, answer.getheader("Location"), bytes(data)
    except _Failure:
        raise
    except TimeoutError:
        raise _Failure(f"timed out after {policy.timeout:g}s", retry=True) from None
    except (http.client.HTTPException, OSError, ValueError) as err:
        if expired.is_set():
            raise _Failure(f"timed out after {policy.timeout:g}s", retry=True) from None
        kind = type(err).__name__
        detail = str(err).strip() or kind
        if isinstance(err, http.client.HTTPException):
            # The server broke the protocol (bad status line, truncated body, too many
            # headers): retrying a broken peer rarely helps, but a dropped connection may.
            retry = isinstance(err, (http.client.IncompleteRead, http.client.RemoteDisconnected))
            raise _Failure(f"broken HTTP answer ({kind}: {detail[:200]})", retry=retry) from None
        raise _Failure(f"connection failed ({kind}: {detail[:200]})", retry=True) from None
    finally:
        timer.cancel()
        conn.close()
