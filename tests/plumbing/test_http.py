"""plumbing.http against scripted local servers: every way a peer can misbehave."""

from __future__ import annotations

import socket
import time

import pytest
from rawserver import answer, serve

from codegold.errors import InputError, RetrieverError
from codegold.plumbing.http import HttpPolicy, post_json

FAST = HttpPolicy(timeout=2.0, retries=0, backoff=0.01)


def test_ok_answer_is_returned_and_request_is_a_post() -> None:
    seen: list[bytes] = []

    def handle(conn: socket.socket, request: bytes) -> None:
        seen.append(request)
        answer(body=b'{"ranked": []}')(conn, request)

    with serve(handle) as url:
        assert post_json(url + "/search?x=1", b'{"q": 1}', policy=FAST) == b'{"ranked": []}'
    assert seen[0].startswith(b"POST /search?x=1 HTTP/1.1")
    assert seen[0].endswith(b'{"q": 1}')


def test_slow_drip_is_cut_at_the_total_deadline() -> None:
    def drip(conn: socket.socket, _request: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
        for _ in range(100):  # one byte every 0.1 s: each read is quick, the whole is not
            conn.sendall(b" ")
            time.sleep(0.1)

    started = time.monotonic()
    with serve(drip) as url, pytest.raises(RetrieverError, match="timed out after 1s"):
        post_json(url, b"{}", policy=HttpPolicy(timeout=1.0, retries=0))
    assert time.monotonic() - started < 4


def test_slow_drip_in_the_headers_is_cut_too() -> None:
    def drip(conn: socket.socket, _request: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        for i in range(100):
            conn.sendall(f"X-{i}: y\r\n".encode())
            time.sleep(0.1)

    started = time.monotonic()
    with serve(drip) as url, pytest.raises(RetrieverError, match="timed out"):
        post_json(url, b"{}", policy=HttpPolicy(timeout=1.0, retries=0))
    assert time.monotonic() - started < 4


def test_huge_body_fails_at_the_cap_without_reading_it_all() -> None:
    def flood(conn: socket.socket, _request: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
        block = b"x" * 65536
        for _ in range(10_000):  # 640 MB if nobody stops reading
            conn.sendall(block)

    with serve(flood) as url, pytest.raises(RetrieverError, match="larger than the 1000000-byte"):
        post_json(url, b"{}", policy=HttpPolicy(timeout=5, retries=0, max_bytes=1_000_000))


def test_declared_huge_length_fails_before_reading() -> None:
    with serve(answer(body=b"", length=10**12)) as url, \
            pytest.raises(RetrieverError, match="larger than"):
        post_json(url, b"{}", policy=FAST)


@pytest.mark.parametrize("status", ["302 Found", "307 Temporary Redirect", "301 Moved"])
def test_cross_origin_redirect_is_an_error(status: str) -> None:
    with serve(answer(status, b"", headers=("Location: http://127.0.0.2:1/steal",))) as url:
        with pytest.raises(RetrieverError, match="redirect"):
            post_json(url, b"{}", policy=FAST)
        with pytest.raises(RetrieverError, match="another origin"):
            post_json(url, b"{}", policy=HttpPolicy(timeout=2, retries=0, follow_redirects=True))


def test_same_origin_307_is_followed_only_when_allowed() -> None:
    def handle(conn: socket.socket, request: bytes) -> None:
        if request.startswith(b"POST /old"):
            answer("307 Temporary Redirect", b"", headers=("Location: /new",))(conn, request)
        else:
            answer(body=b'"moved"')(conn, request)

    with serve(handle) as url:
        with pytest.raises(RetrieverError, match="does not follow redirects"):
            post_json(url + "/old", b"{}", policy=FAST)
        allowed = HttpPolicy(timeout=2, retries=0, follow_redirects=True)
        assert post_json(url + "/old", b"{}", policy=allowed) == b'"moved"'


def test_bad_status_line() -> None:
    def handle(conn: socket.socket, _request: bytes) -> None:
        conn.sendall(b"SPAM 200 whatever\r\n\r\n")

    with serve(handle) as url, pytest.raises(RetrieverError, match="broken HTTP answer"):
        post_json(url, b"{}", policy=FAST)


def test_truncated_body() -> None:
    with serve(answer(body=b'{"ranked": [', length=500)) as url, \
            pytest.raises(RetrieverError, match="IncompleteRead"):
        post_json(url, b"{}", policy=FAST)


def test_too_many_headers() -> None:
    headers = tuple(f"X-H{i}: v" for i in range(500))
    with serve(answer(headers=headers)) as url, \
            pytest.raises(RetrieverError, match="broken HTTP answer"):
        post_json(url, b"{}", policy=FAST)


def test_connection_refused_is_retried_then_reported() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    with pytest.raises(RetrieverError, match=r"failed after 3 tries: connection failed"):
        post_json(f"http://127.0.0.1:{port}", b"{}",
                  policy=HttpPolicy(timeout=1, retries=2, backoff=0.01))


def test_5xx_is_retried_and_4xx_is_not() -> None:
    calls: list[int] = []

    def flaky(conn: socket.socket, request: bytes) -> None:
        calls.append(1)
        status = "503 Service Unavailable" if len(calls) < 3 else "200 OK"
        answer(status, b"[]")(conn, request)

    with serve(flaky) as url:
        assert post_json(url, b"{}", policy=HttpPolicy(timeout=2, retries=2, backoff=0.01)) == b"[]"
    assert len(calls) == 3
    calls.clear()
    with serve(lambda c, r: (calls.append(1), answer("404 Not Found", b"no")(c, r))) as url, \
            pytest.raises(RetrieverError, match=r"after 1 try: HTTP 404 Not Found: no"):
        post_json(url, b"{}", policy=HttpPolicy(timeout=2, retries=3, backoff=0.01))
    assert len(calls) == 1


@pytest.mark.parametrize("url", ["ftp://example.invalid/x", "http://[::1", "http://h:99999/",
                                 "http://h:abc/", "http://", "http://h/a b", "http://h/\r\nX: y"])
def test_unusable_url_is_an_input_error(url: str) -> None:
    with pytest.raises(InputError, match="not a usable URL"):
        post_json(url, b"{}", policy=FAST)


def test_redirect_to_an_unusable_address_is_an_error() -> None:
    with serve(answer("307 Temporary Redirect", b"", headers=("Location: http://[::1/x",))) as url, \
            pytest.raises(RetrieverError, match="unusable address"):
        post_json(url, b"{}", policy=HttpPolicy(timeout=2, retries=0, follow_redirects=True))
