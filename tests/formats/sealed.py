"""What a rendering crawl sends that the crawl did not decide, seen from the network's side.

`Listeners` binds loopback sockets that record every datagram and every connection they
get: a DNS server, a STUN/TURN listener, servers a page's script aims at. `sealed_crawl`
runs `webcrawler index` in a private mount namespace whose /etc/resolv.conf names the
loopback DNS server, so that any name Chromium (or anything else in the crawl) resolves
through the system's resolver arrives there, and nowhere beyond loopback: the command
refuses to start when the bind mount did not take. Needs root (unshare, port 53).
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# The engine's CLI in a fresh interpreter, inside the namespace.
RUN_CLI = "import sys; from webcrawler.cli import main; sys.argv[0] = 'webcrawler'; main()"


@dataclass
class Seen:
    """One datagram or connection a listener got: where, and its first bytes."""

    listener: str
    data: bytes


@dataclass
class Listeners:
    """UDP and TCP sockets on loopback that record whatever reaches them (nothing answers)."""

    udp: tuple[tuple[str, int], ...] = ()
    tcp: tuple[tuple[str, int], ...] = ()
    seen: list[Seen] = field(default_factory=list)

    def __enter__(self) -> Listeners:
        self._sockets: dict[socket.socket, str] = {}
        for address in self.udp:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.bind(address)
            self._sockets[sock] = f"udp {address[0]}:{address[1]}"
        for address in self.tcp:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(16)
            self._sockets[sock] = f"tcp {address[0]}:{address[1]}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._record, daemon=True, name="listeners")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for sock in self._sockets:
            sock.close()

    def _record(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select(list(self._sockets), [], [], 0.05)
            for sock in ready:
                name = self._sockets[sock]
                if sock.type == socket.SOCK_DGRAM:
                    self.seen.append(Seen(name, sock.recvfrom(4096)[0][:200]))
                    continue
                conn, _ = sock.accept()
                conn.settimeout(0.5)
                try:
                    data = conn.recv(200)
                except OSError:
                    data = b""
                conn.close()
                self.seen.append(Seen(name, data))


def need_namespaces() -> None:
    """Skip unless this test can make a mount namespace and bind port 53 (root, unshare)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1): a private /etc/resolv.conf and port 53")


def sealed_crawl(tmp_path: Path, dns: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`webcrawler index ARGS` with /etc/resolv.conf naming only `dns` (a loopback address)."""
    resolv = tmp_path / "resolv.conf"
    resolv.write_text(f"nameserver {dns}\n")
    script = ('mount --bind "$0" /etc/resolv.conf && grep -qx "nameserver $1" /etc/resolv.conf '
              '&& shift && exec "$@"')
    command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
               str(resolv), dns, sys.executable, "-c", RUN_CLI, "index", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": _source_root()})


def _source_root() -> str:
    return str(Path(__file__).resolve().parents[2])
