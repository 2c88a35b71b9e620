"""``http://…`` / ``https://…``: POST the JSON request, read the JSON response.

The exchange itself (total deadline per try, retries with backoff on connection
failures, timeouts and 429/5xx, size cap, no redirects) is :mod:`codegold.plumbing.http`;
any failure becomes a :class:`~codegold.errors.RetrieverError`, so an error attempt.
"""

from __future__ import annotations

from codegold.adapters.protocol import (
    RetrievalRequest,
    RetrievalResponse,
    decode_response,
    encode_request,
)
from codegold.plumbing.http import DEFAULT_MAX_BYTES, HttpPolicy, parse_url, post_json, redact_url


class HttpRetriever:
    def __init__(self, url: str, *, timeout: float = 30.0, retries: int = 2,
                 backoff: float = 0.5, max_bytes: int = DEFAULT_MAX_BYTES,
                 follow_redirects: bool = False) -> None:
        parse_url(url)  # a bad URL is the user's input error, before any case runs
        self.url = url
        self.policy = HttpPolicy(timeout=timeout, retries=retries, backoff=backoff,
                                 max_bytes=max_bytes, follow_redirects=follow_redirects)

    @property
    def timeout(self) -> float:
        return self.policy.timeout

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        source = f"retriever at {redact_url(self.url)}"
        payload = post_json(self.url, encode_request(request), policy=self.policy, what=source)
        return decode_response(payload, source=source)
