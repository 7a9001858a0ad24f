"""Serving a `GenWeb`: one asyncio loop, one listening socket per server.

Ten thousand servers are ten thousand listening sockets in one process (the
open-file limit is raised to its hard limit), never ten thousand threads.
A request's server is the local address it arrived on. Keep-alive is
supported; idle connections are closed after `IDLE_TIMEOUT`.

    with GenWebServer(GenWeb(servers=5)) as web: ...      # a thread (tests)
    with GenWebProcess(GenWeb(servers=10_000)) as web: ...  # its own process (benchmarks)

Both yield the `GenWeb` with its real port. `python -m
tests.support.genweb_server '{"servers": 100}'` serves until killed and
prints ``READY <port>`` once listening. Only loopback addresses are bound.
"""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import json
import resource
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import TextIO

from tests.support.genweb import SLOW_SECONDS, GenWeb
from tests.support.replies import HUGE_BYTES, Reply

REPOSITORY = Path(__file__).resolve().parents[2]  # where `-m tests.support.genweb_server` is found

IDLE_TIMEOUT = 15.0
CHUNK = 64 * 1024
REASONS = {200: "OK", 302: "Found", 304: "Not Modified", 400: "Bad Request", 404: "Not Found",
           410: "Gone", 503: "Service Unavailable"}


def raise_file_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return hard
    return soft


def bind_all(web: GenWeb, attempts: int = 5) -> tuple[GenWeb, list[socket.socket]]:
    """A listening socket per server, all on one port (the first free one when port=0)."""
    for _ in range(attempts):
        sockets: list[socket.socket] = []
        port = web.port
        try:
            for server in range(web.total_servers):
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sockets.append(sock)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.bind((web.address(server), port))
                sock.listen(128)
                sock.setblocking(False)
                port = sock.getsockname()[1]
            return dataclasses.replace(web, port=port), sockets
        except OSError as error:
            for sock in sockets:
                sock.close()
            if error.errno != errno.EADDRINUSE or web.port:
                raise
    raise OSError(errno.EADDRINUSE, f"no port free on all {web.total_servers} addresses")


class Handler:
    """Answers HTTP/1.1 requests on any of the web's sockets."""

    def __init__(self, web: GenWeb, record: bool = False) -> None:
        self.web = web
        self.record = record
        self.hits: list[tuple[int, str, int]] = []  # (server, path, status) when recording
        self.requests: Counter[int] = Counter()  # server -> requests
        self.open: set[asyncio.StreamWriter] = set()
        log_path = getattr(web, "log_path", "")
        self.log: TextIO | None = open(log_path, "a", buffering=1) if log_path else None

    def _log(self, server: int, path: str, reply: Reply) -> None:
        """One line per request: time, URL, status, version served (a changing web's truth)."""
        assert self.log is not None
        version = dict(reply.headers).get("X-Version", "-")
        self.log.write(f"{time.time():.3f}\t{self.web.origin(server)}{path}\t{reply.status}\t{version}\n")

    async def client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server = self.web.server_of(writer.get_extra_info("sockname")[0])
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.open.add(writer)
        try:
            while server is not None:
                try:
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), IDLE_TIMEOUT)
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                parts = lines[0].split()
                if len(parts) != 3:
                    await self.send(reader, writer, "GET", Reply(400, b"bad request"), close=True)
                    return
                method, path, version = parts
                close = version == "HTTP/1.0" or any(
                    line.lower().startswith("connection:") and "close" in line.lower() for line in lines)
                reply = self.web.answer(server, path, _headers(lines[1:]))
                self.requests[server] += 1
                if self.record:
                    self.hits.append((server, path, reply.status))
                if self.log is not None:
                    self._log(server, path, reply)
                if not await self.send(reader, writer, method, reply, close):
                    return
        except (ConnectionError, OSError):
            return
        finally:
            self.open.discard(writer)
            writer.close()

    def close_all(self) -> None:
        """Close every open connection (their tasks then end on their own), and the log."""
        for writer in list(self.open):
            writer.close()
        if self.log is not None:
            self.log.close()
            self.log = None

    async def send(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, method: str,
                   reply: Reply, close: bool) -> bool:
        """Write the reply; True when the connection may serve another request."""
        if reply.stream == "stall":  # never answer; wait for the client to give up
            try:
                await asyncio.wait_for(reader.read(1), SLOW_SECONDS)
            except TimeoutError:
                pass
            return False
        streamed = bool(reply.stream)
        headers = [f"HTTP/1.1 {reply.status} {REASONS.get(reply.status, 'Unknown')}",
                   f"Content-Type: {reply.content_type}"]
        headers += [f"{name}: {value}" for name, value in reply.headers]
        if not streamed and reply.status != 304:  # a 304 has no body, and no length of its own
            headers.append(f"Content-Length: {len(reply.body)}")
        if streamed or close:
            headers.append("Connection: close")
        head = ("\r\n".join(headers) + "\r\n\r\n").encode("latin-1")
        if method == "HEAD" or streamed:
            writer.write(head)
        else:
            writer.write(head + reply.body)
        if streamed and method != "HEAD":
            await _stream(writer, reply.stream)
        await writer.drain()
        return not (streamed or close)


def _headers(lines: list[str]) -> dict[str, str]:
    """A request's header lines as a dict with lower-case names."""
    out = {}
    for line in lines:
        name, sep, value = line.partition(":")
        if sep:
            out[name.strip().lower()] = value.strip()
    return out


async def _stream(writer: asyncio.StreamWriter, kind: str) -> None:
    if kind == "trickle":
        writer.write(b"<html><head><title>Still loading</title></head><body>")
        end = time.monotonic() + SLOW_SECONDS
        while time.monotonic() < end and not writer.is_closing():
            writer.write(b"x")
            await writer.drain()
            await asyncio.sleep(0.2)
        return
    chunk = b"<p>" + b"all work and no play " * (CHUNK // 21) + b"</p>\n"
    sent = 0
    writer.write(b"<html><head><title>Huge</title></head><body>")
    while sent < HUGE_BYTES and not writer.is_closing():
        piece = chunk[: HUGE_BYTES - sent]
        writer.write(piece)
        sent += len(piece)
        await writer.drain()


async def _serve(handler: Handler, sockets: list[socket.socket], stop: asyncio.Event) -> None:
    servers = [await asyncio.start_server(handler.client, sock=sock, limit=64 * 1024) for sock in sockets]
    try:
        await stop.wait()
    finally:
        for server in servers:
            server.close()
        handler.close_all()
        for _ in range(50):  # let the connections' tasks see their end
            if not handler.open:
                break
            await asyncio.sleep(0.01)


class GenWebServer:
    """Serve a `GenWeb` from a background thread of this process (tests, small webs)."""

    def __init__(self, web: GenWeb, record: bool = True) -> None:
        self.web, self._sockets = bind_all(web)
        self.web.html(0, 0)  # build the vocabulary and the text pool before the first request
        self.handler = Handler(self.web, record=record)
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="genweb", daemon=True)

    def __enter__(self) -> GenWeb:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the generated web did not start")
        return self.web

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def main() -> None:
            self._stop = asyncio.Event()
            self._loop.call_soon(self._ready.set)
            await _serve(self.handler, self._sockets, self._stop)

        try:
            self._loop.run_until_complete(main())
        finally:
            self._loop.close()


class GenWebProcess:
    """Serve a `GenWeb` from a child process (benchmarks: its CPU is not the crawler's)."""

    def __init__(self, web: GenWeb, start_timeout: float = 120.0) -> None:
        self.web = web
        self.start_timeout = start_timeout
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> GenWeb:
        config = json.dumps(_config(self.web))
        self.process = subprocess.Popen([sys.executable, "-m", "tests.support.genweb_server", config],
                                        stdout=subprocess.PIPE, text=True, cwd=REPOSITORY)
        assert self.process.stdout is not None
        line = self.process.stdout.readline().split()  # the child exits on failure: EOF
        if len(line) != 2 or line[0] != "READY":
            self.__exit__()
            raise RuntimeError("the generated web's process did not start")
        self.web = dataclasses.replace(self.web, port=int(line[1]))
        return self.web

    def __exit__(self, *exc: object) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None


def _config(web: GenWeb) -> dict[str, object]:
    config = getattr(web, "config", None)
    return config() if config is not None else dataclasses.asdict(web)


def _build(settings: dict[str, object]) -> GenWeb:
    """A `GenWeb`, or a `ChangingWeb` when the settings have a clock."""
    settings["hostile"] = tuple(settings.get("hostile", ()))  # type: ignore[arg-type]
    if "day_seconds" in settings:
        from tests.support.changeweb import ChangingWeb

        return ChangingWeb(**settings)  # type: ignore[arg-type]
    return GenWeb(**settings)  # type: ignore[arg-type]


def main(argv: list[str]) -> None:
    settings = json.loads(argv[0]) if argv else {}
    raise_file_limit()
    web, sockets = bind_all(_build(settings))
    web.html(0, 0)  # build the vocabulary and the text pool before the first request
    print(f"READY {web.port}", flush=True)
    try:
        asyncio.run(_serve(Handler(web), sockets, asyncio.Event()))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main(sys.argv[1:])
