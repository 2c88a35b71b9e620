"""A retriever wrapper that resolves every returned chunk's span (``run --resolve``)."""

from __future__ import annotations

import msgspec

from codegold.adapters.protocol import RetrievalRequest, RetrievalResponse, Retriever
from codegold.errors import RetrieverError
from codegold.resolve import AttemptResolver


class ResolvingRetriever:
    """Asks ``inner``, then records what the index of the request's revision says each
    returned chunk holds (:class:`codegold.model.Resolution`). A revision with no index
    to resolve against is this request's failure: judging it on reported metadata
    instead would silently change the rules the user asked for."""

    def __init__(self, inner: Retriever, resolver: AttemptResolver) -> None:
        self.inner = inner
        self.resolver = resolver

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        response = self.inner.retrieve(request)
        spans = self.resolver.for_revision(request.revision)
        if spans is None:
            raise RetrieverError(f"span resolution needs the index of revision "
                                 f"{request.revision}; none was given "
                                 f"(indexes for: {self.resolver.indexes.describe()})")
        candidates = response.candidates
        return msgspec.structs.replace(
            response, ranked=[spans.resolve(chunk) for chunk in response.ranked],
            candidates=None if candidates is None else [spans.resolve(c) for c in candidates])

    def close(self) -> None:
        self.resolver.close()
        closer = getattr(self.inner, "close", None)
        if callable(closer):
            closer()
