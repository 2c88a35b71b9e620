"""A one-thread TCP server on 127.0.0.1 that answers each connection with a script:
whatever bytes (and pauses) a test wants, including ones no real HTTP server sends."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator

Handler = Callable[[socket.socket, bytes], None]


def read_request(conn: socket.socket) -> bytes:
    """Headers and body (by Content-Length) of one request."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


@contextlib.contextmanager
def serve(handler: Handler) -> Iterator[str]:
    """Yield ``http://127.0.0.1:PORT``; each connection gets ``handler(conn, request)``."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    stop = threading.Event()
    requests: list[bytes] = []

    def one(conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            request = read_request(conn)
            requests.append(request)
            handler(conn, request)

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=one, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=2)
        listener.close()


def answer(status: str = "200 OK", body: bytes = b"[]", *, headers: tuple[str, ...] = (),
           length: int | None = None) -> Handler:
    def handle(conn: socket.socket, _request: bytes) -> None:
        head = [f"HTTP/1.1 {status}", f"Content-Length: {len(body) if length is None else length}",
                "Connection: close", *headers]
        conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    return handle
