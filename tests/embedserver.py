"""A local OpenAI-compatible embeddings endpoint for the dense and secrets suites."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def embeddings_endpoint(third: float = 0.0) -> Iterator[tuple[str, list[str]]]:
    """Serve ``POST /v1/embeddings`` on localhost while the block runs; yields the base URL
    and the request bodies received. A text's vector is (its length, 1, ``third``)."""
    bodies: list[str] = []

    class Embeddings(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            bodies.append(raw.decode("utf-8", "replace"))
            body = json.loads(raw)
            data = [{"index": i, "embedding": [float(len(t)), 1.0, third]}
                    for i, t in enumerate(body["input"])]
            payload = json.dumps({"data": data, "model": body["model"]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Embeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", bodies
    finally:
        server.shutdown()
        server.server_close()
