"""A raw TCP server on a loopback address, for playing servers no HTTP library would be.

Each request head is read (up to 64 KiB; several per kept-alive
connection), then `script` answers it as a sequence of (pause, bytes) pieces: the pause is waited out
first, so `drip` can send a status line one byte at a time. Every loop is
bounded by the script's length and by `stop()`, which wakes every pause;
a piece of None closes the connection.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable, Iterable, Iterator

Script = Callable[[bytes], Iterable[tuple[float, bytes | None]]]  # None: close


class RawServer:
    """Serve `script` on `address` (127.0.0.0/8 only) until `stop`; use as a context manager."""

    def __init__(self, address: str, script: Script, http: bool = True) -> None:
        assert ipaddress.ip_address(address).is_loopback, address
        self.script = script
        self.read = _read_head if http else _read_once  # not HTTP: answer whatever arrives
        self.listener = socket.create_server((address, 0))
        self.listener.settimeout(0.1)
        self.address, self.port = self.listener.getsockname()[:2]
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.requests: list[bytes] = []
        self.connections = 0

    def url(self, path: str = "/") -> str:
        return f"http://{self.address}:{self.port}{path}"

    def __enter__(self) -> RawServer:
        self._start(self._accept)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for thread in list(self.threads):
            thread.join(5)
        self.listener.close()

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self.threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.connections += 1
            self._start(self._serve, conn)

    def _serve(self, conn: socket.socket) -> None:
        """Answer the requests of one kept-alive connection until the client closes it."""
        with conn:
            conn.settimeout(2)
            while head := self.read(conn):
                self.requests.append(head)
                try:
                    for pause, data in self.script(head):
                        if self.stopping.wait(pause) or data is None:
                            return  # None: close the connection
                        conn.sendall(data)
                except OSError:
                    return  # the client went away


def _read_head(conn: socket.socket) -> bytes:
    head = b""
    while b"\r\n\r\n" not in head and len(head) < 65536:
        try:
            piece = conn.recv(4096)
        except OSError:
            break
        if not piece:
            break
        head += piece
    return head


def _read_once(conn: socket.socket) -> bytes:
    try:
        return conn.recv(65536)
    except OSError:
        return b""


def drip(data: bytes, pause: float) -> Iterator[tuple[float, bytes]]:
    """`data` one byte at a time, `pause` seconds apart."""
    return ((pause, data[i : i + 1]) for i in range(len(data)))


def at_once(data: bytes) -> list[tuple[float, bytes | None]]:
    return [(0.0, data)]


def then_close(data: bytes) -> list[tuple[float, bytes | None]]:
    """`data`, then the server closes the connection."""
    return [(0.0, data), (0.0, None)]
