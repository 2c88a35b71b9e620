"""``http://…`` / ``https://…``: POST the JSON request, read the JSON response.

Connection failures, timeouts and 5xx/429 answers are retried with exponential backoff;
other 4xx answers are not (the request itself is wrong).
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request

from codegold.adapters.protocol import (
    RetrievalRequest,
    RetrievalResponse,
    decode_response,
    encode_request,
)
from codegold.errors import RetrieverError

_RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


class HttpRetriever:
    def __init__(self, url: str, *, timeout: float = 30.0, retries: int = 2,
                 backoff: float = 0.5) -> None:
        self.url = url
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        body = encode_request(request)
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * (2 ** (attempt - 1)))
            http_request = urllib.request.Request(
                self.url, data=body, method="POST",
                headers={"Content-Type": "application/json", "Accept": "application/json"})
            try:
                with urllib.request.urlopen(http_request, timeout=self.timeout) as answer:
                    payload = answer.read()
            except urllib.error.HTTPError as err:
                last = f"HTTP {err.code} {err.reason}"
                if err.code not in _RETRYABLE_STATUS:
                    break
                continue
            except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
                reason = getattr(err, "reason", err)
                last = "timed out" if isinstance(reason, TimeoutError) or "timed out" in str(reason) \
                    else f"connection failed: {reason}"
                continue
            return decode_response(payload, source=f"retriever at {self.url}")
        tries = "1 try" if self.retries == 0 else f"{self.retries + 1} tries"
        raise RetrieverError(f"retriever at {self.url} failed after {tries}: {last}")
