"""The lean HTTP/1.1 transport against a raw socket server that answers with exact bytes: how a response is
framed (length, chunks, the connection's close), keep-alive reuse and its failures, broken responses."""

from __future__ import annotations

import asyncio

import pytest

from yoke.providers.base import ProviderError
from yoke.providers.http1 import Http1Transport, request_head
from yoke.providers.transport import ConnectionFailure, HttpRequest, StreamInterrupted

SSE = b'event: a\ndata: {"n": 1}\n\nevent: b\ndata: {"n": 2}\n\n'


def chunked(*pieces: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


class RawServer:
    """Answers the n-th request with `answers[n]`: bytes (sent whole), a list of bytes (sent apart, a pause
    between), or a callable given the writer. After `close_after` requests on one connection it closes it."""

    def __init__(self, answers: list, close_after: int | None = None, tls: object = None):
        self.answers = answers
        self.close_after = close_after
        self.tls = tls  # an ssl.SSLContext: serve https
        self.requests: list[bytes] = []
        self.connections = 0
        self.handlers: set[asyncio.Task] = set()

    async def __aenter__(self) -> RawServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)  # type: ignore[arg-type]
        scheme = "https" if self.tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1/messages"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()
        if self.handlers:  # let each connection see its client's close before the loop ends
            await asyncio.wait(self.handlers, timeout=1)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.handlers.add(asyncio.current_task())  # type: ignore[arg-type]
        self.connections += 1
        self.last = (reader, writer)
        served = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":")[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                self.requests.append(head + await reader.readexactly(length))
                answer = self.answers[len(self.requests) - 1]
                if callable(answer):
                    await answer(writer)
                else:
                    for piece in answer if isinstance(answer, list) else [answer]:
                        writer.write(piece)
                        await writer.drain()
                        await asyncio.sleep(0.01)
                served += 1
                if self.close_after is not None and served >= self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


def post(url: str, stream: bool = False, headers: dict[str, str] | None = None) -> HttpRequest:
    return HttpRequest(url, headers or {"x-api-key": "k"}, {"q": 1}, stream=stream)


async def read_events(transport: Http1Transport, request: HttpRequest) -> list[tuple[str, str]]:
    response = await transport.send(request)
    assert response.events is not None
    return [(e.event, e.data) async for e in response.events]


OK_JSON = b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 8\r\n\r\n{"a": 1}'


async def test_a_kept_alive_connection_serves_the_next_request() -> None:
    async with RawServer([OK_JSON, OK_JSON, OK_JSON]) as srv:
        transport = Http1Transport()
        for _ in range(3):
            response = await transport.send(post(srv.url))
            assert response.status == 200 and response.json() == {"a": 1}
        await transport.aclose()
    assert srv.connections == 1
    first = srv.requests[0]
    assert first.startswith(b"POST /v1/messages HTTP/1.1\r\n")
    assert b"\r\ncontent-length: 8\r\n" in first and first.endswith(b'\r\n\r\n{"q": 1}')


@pytest.mark.parametrize(
    "answer",
    [
        OK_JSON,
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + chunked(b'{"a"', b": 1}"),
        [b"HTTP/1.1 100 Continue\r\n\r\n", OK_JSON],
        [b"HTTP/1.1 200 OK\r\ncontent-le", b"ngth: 8\r\n\r\n{", b'"a": 1}'],
    ],
    ids=["length", "chunked", "continue-first", "split-anywhere"],
)
async def test_a_framed_body_arrives_whole_and_keeps_the_connection(answer: bytes | list) -> None:
    async with RawServer([answer, OK_JSON]) as srv:
        transport = Http1Transport()
        assert (await transport.send(post(srv.url))).json() == {"a": 1}
        assert (await transport.send(post(srv.url))).json() == {"a": 1}
        await transport.aclose()
    assert srv.connections == 1


@pytest.mark.parametrize(
    "answer",
    [
        b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"a": 1}',  # ends with the connection
        b'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 8\r\n\r\n{"a": 1}',
        b'HTTP/1.0 200 OK\r\ncontent-length: 8\r\n\r\n{"a": 1}',
        OK_JSON + b"trailing junk",
    ],
    ids=["to-the-close", "connection-close", "http-1.0", "junk-after"],
)
async def test_a_connection_that_cannot_carry_another_response_is_not_reused(answer: bytes) -> None:
    async with RawServer([answer, OK_JSON], close_after=1) as srv:
        transport = Http1Transport()
        assert (await transport.send(post(srv.url))).json() == {"a": 1}
        assert (await transport.send(post(srv.url))).json() == {"a": 1}
        await transport.aclose()
    assert srv.connections == 2


async def test_a_kept_alive_connection_the_server_dropped_is_replaced_once() -> None:
    # The server closes after each response without saying so: the second request finds a dead connection.
    async with RawServer([OK_JSON, OK_JSON], close_after=1) as srv:
        transport = Http1Transport()
        await transport.send(post(srv.url))
        await asyncio.sleep(0.05)
        assert (await transport.send(post(srv.url))).json() == {"a": 1}
        await transport.aclose()
    assert srv.connections == 2 and len(srv.requests) == 2


async def test_a_fresh_connection_closed_without_an_answer_is_a_connection_failure() -> None:
    async def hang_up(writer: asyncio.StreamWriter) -> None:
        writer.close()

    async with RawServer([hang_up]) as srv:
        with pytest.raises(ConnectionFailure, match="closed the connection without answering"):
            await Http1Transport().send(post(srv.url))


@pytest.mark.parametrize(
    "answer",
    [b"hello there\r\n\r\n", b"HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n", b"HTTP/1.1 200 OK\r\ncontent-"],
    ids=["not-http", "bad-length", "head-cut"],
)
async def test_a_broken_response_head_is_a_connection_failure(answer: bytes) -> None:
    async with RawServer([answer], close_after=1) as srv:
        with pytest.raises(ConnectionFailure):
            await Http1Transport().send(post(srv.url))


async def test_events_split_at_every_position_parse_the_same() -> None:
    body = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        + chunked(SSE[:20], SSE[20:])
    )
    expected = [("a", '{"n": 1}'), ("b", '{"n": 2}')]
    for cut in range(1, len(body), 7):
        async with RawServer([[body[:cut], body[cut:]]]) as srv:
            assert await read_events(Http1Transport(), post(srv.url, stream=True)) == expected


async def test_a_stream_that_ends_with_the_connection_is_whole() -> None:
    answer = [b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n", SSE[:25], SSE[25:]]
    async with RawServer([answer], close_after=1) as srv:
        assert await read_events(Http1Transport(), post(srv.url, stream=True)) == [
            ("a", '{"n": 1}'),
            ("b", '{"n": 2}'),
        ]


@pytest.mark.parametrize(
    "answer",
    [
        [
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
            b"40\r\n" + SSE[:30],
        ],
        [
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
            b"zz\r\nabc\r\n",
        ],
    ],
    ids=["cut", "bad-chunk"],
)
async def test_a_stream_broken_midway_is_interrupted(answer: list) -> None:
    async with RawServer([answer], close_after=1) as srv:
        transport = Http1Transport()
        with pytest.raises(StreamInterrupted):
            await read_events(transport, post(srv.url, stream=True))
        assert not transport._idle  # never reused after a broken response


async def test_an_idle_stream_raises_timeout_and_a_silent_server_the_read_timeout() -> None:
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"

    async def stall(writer: asyncio.StreamWriter) -> None:
        writer.write(head + chunked(SSE)[:-5])
        await asyncio.sleep(0.6)

    async with RawServer([stall]) as srv:
        request = HttpRequest(srv.url, {}, {}, stream=True, idle_timeout=0.2)
        with pytest.raises(TimeoutError):
            await read_events(Http1Transport(), request)
    async with RawServer([lambda writer: asyncio.sleep(0.6)]) as srv:
        with pytest.raises(ConnectionFailure, match="ReadTimeout"):
            await Http1Transport(read_timeout=0.2).send(post(srv.url))


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("x-note", "fine\r\nx-injected: 1", "control characters"),
        ("x-note", "nul\x00", "control characters"),
        ("bad name", "v", "header name"),
        ("x-note", "snow ☃", "Latin-1"),
    ],
)
async def test_a_header_that_is_not_one_field_is_a_config_error(name: str, value: str, words: str) -> None:
    async with RawServer([OK_JSON]) as srv:
        with pytest.raises(ProviderError, match=words) as info:
            await Http1Transport().send(post(srv.url, headers={name: value}))
    assert info.value.kind == "config" and srv.requests == []


def test_the_request_head_is_exact() -> None:
    head = request_head("POST", "/v1/messages?beta=true", [("host", "h:1"), ("x-a", " padded\t")])
    assert head == b"POST /v1/messages?beta=true HTTP/1.1\r\nhost: h:1\r\nx-a: padded\r\n\r\n"
    with pytest.raises(ProviderError):
        request_head("POST", "/a b", [])


@pytest.fixture
def tls_files(tmp_path):
    """A self-signed certificate for 127.0.0.1, made by the openssl command."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command (make system-deps installs it)")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


async def test_https_is_spoken_through_the_standard_library_and_checks_the_certificate(
    tls_files, monkeypatch
) -> None:
    import ssl

    cert, key = tls_files
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    async with RawServer([OK_JSON, OK_JSON], tls=context) as srv:
        with pytest.raises(ConnectionFailure, match="CERTIFICATE_VERIFY_FAILED"):
            await Http1Transport().send(post(srv.url))  # not trusted: refused
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trusted, as the system's store would be
        transport = Http1Transport()
        for _ in range(2):
            assert (await transport.send(post(srv.url))).json() == {"a": 1}
        await transport.aclose()
    assert srv.connections == 1 and len(srv.requests) == 2  # one kept-alive connection for both requests


async def test_an_interrupt_while_waiting_for_the_answer_closes_the_connection() -> None:
    async def never_answer(writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(0.6)

    async with RawServer([never_answer]) as srv:
        sending = asyncio.ensure_future(Http1Transport().send(post(srv.url)))
        await asyncio.sleep(0.1)
        sending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await sending
        reader, _ = srv.last
        assert await asyncio.wait_for(reader.read(), timeout=0.3) == b""  # the server sees the client go
