"""Network namespaces joined by veth links, one per role, for the scale-out benchmarks (issue 15).

    with namespaces({"web": ["127.0.13.1", ...], "engine": ["127.0.14.1"]}) as ns:
        subprocess.run([*ns.run("engine"), "webcrawler", ...])

Each role gets a namespace `wc15-ROLE` with a veth link to a bridge in
`wc15-switch`, so its processes see the others only over that link, as hosts
on a LAN. The addresses stay in 127.0.0.0/16 (the house rule: our tests and
benchmarks never speak to a non-loopback address); `route_localnet` lets
the kernel carry them over the links, and each namespace's `lo` loses its
127.0.0.1/8, so only a role's own addresses are local to it. Needs root (`ip netns`); everything is
deleted on exit, the processes still inside included.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

PREFIX = "wc15-"
SWITCH = PREFIX + "switch"


@dataclass
class Namespaces:
    links: dict[str, str]  # role -> the name of its end of its veth link

    @staticmethod
    def run(role: str) -> list[str]:
        """The command prefix that runs a program inside `role`'s namespace."""
        return ["ip", "netns", "exec", PREFIX + role]

    def cut(self, role: str) -> None:
        """Cut `role` off the network (its link down): its processes live on, unheard."""
        _ip("link", "set", self.links[role], "down", netns=PREFIX + role)


def _ip(*args: str, netns: str | None = None) -> None:
    command = ["ip", *(["-n", netns] if netns else []), *args]
    subprocess.run(command, check=True, capture_output=True, timeout=30)


def _sysctl(netns: str, *settings: str) -> None:
    subprocess.run(["ip", "netns", "exec", netns, "sysctl", "-qw", *settings], check=True,
                   capture_output=True, timeout=30)


def _add_role(number: int, role: str, addresses: list[str]) -> None:
    netns, inside, outside = PREFIX + role, f"wc15v{number}a", f"wc15v{number}b"
    _ip("netns", "add", netns)
    _ip("link", "add", inside, "type", "veth", "peer", "name", outside)
    _ip("link", "set", inside, "netns", netns)
    _ip("link", "set", outside, "netns", SWITCH)
    _ip("link", "set", outside, "master", "br0", "up", netns=SWITCH)
    _sysctl(netns, "net.ipv4.conf.all.route_localnet=1", "net.ipv4.conf.default.route_localnet=1",
            f"net.ipv4.conf.{inside}.route_localnet=1")
    for address in addresses:
        _ip("addr", "add", f"{address}/16", "dev", inside, netns=netns)
    _ip("link", "set", inside, "up", netns=netns)
    _ip("link", "set", "lo", "up", netns=netns)  # local delivery (a role to itself) goes through lo
    subprocess.run(["ip", "-n", netns, "addr", "del", "127.0.0.1/8", "dev", "lo"],
                   capture_output=True, timeout=30)  # ... but 127/8 must not all be local


def _delete(netns: str) -> None:
    pids = subprocess.run(["ip", "netns", "pids", netns], capture_output=True, text=True,
                          timeout=30).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    subprocess.run(["ip", "netns", "del", netns], capture_output=True, timeout=30)


@contextmanager
def namespaces(roles: dict[str, list[str]]) -> Iterator[Namespaces]:
    """Create a namespace per role (role -> its addresses, all in 127.0.0.0/16); delete all at exit."""
    for address in (a for addresses in roles.values() for a in addresses):
        if not address.startswith("127.0."):
            raise ValueError(f"{address}: the benchmark's hosts stay in 127.0.0.0/16")
    made = [SWITCH]
    try:
        _ip("netns", "add", SWITCH)
        _ip("link", "add", "br0", "type", "bridge", netns=SWITCH)
        _ip("link", "set", "br0", "up", netns=SWITCH)
        for number, (role, addresses) in enumerate(roles.items()):
            made.append(PREFIX + role)
            _add_role(number, role, addresses)
        yield Namespaces({role: f"wc15v{n}a" for n, role in enumerate(roles)})
    finally:
        for netns in reversed(made):
            _delete(netns)
