"""A Dask cluster of agent hosts on loopback, for tests and benchmarks.

Starts the roles with their own commands (`webcrawler agent-scheduler`,
`webcrawler agent-host`), each in a process group of its own so a test can
kill a whole host at once, and reads the address each prints. Addresses must
be loopback ones: nothing here may listen elsewhere.
"""

from __future__ import annotations

import ipaddress
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

START_TIMEOUT = 90.0  # seconds for a role to print its address (the machine may be busy)


@dataclass
class Role:
    """One role's process and the address it serves on."""

    process: subprocess.Popen[str]
    address: str

    def kill(self) -> None:
        """Kill the whole host at once (every process of its group), as a power cut would."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM (the role leaves the cluster cleanly), SIGKILL after 10 s; reap."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.process.stdout:
            self.process.stdout.close()


@dataclass
class Cluster:
    """The scheduler and the agent hosts started so far."""

    scheduler: Role
    logs: Path
    hosts: list[Role] = field(default_factory=list)
    prefixes: Mapping[str, list[str]] = field(default_factory=dict)  # address -> command prefix
    flags: list[str] = field(default_factory=list)  # every role's extra options (--tls-...)

    def add_host(self, address: str, agents: int) -> Role:
        """Start an agent host bound to the loopback `address` with `agents` threads."""
        _check_loopback(address)
        host = start_role(["agent-host", "--scheduler", self.scheduler.address, "--host", address,
                           "--agents", str(agents), *self.flags], self.logs / f"host-{address}.log",
                          self.prefixes.get(address, []))
        self.hosts.append(host)
        return host

    def served(self, security: object = None) -> dict[str, int]:
        """URLs retrieved per live agent host, asked of the hosts themselves (with Dask's
        `security` on a TLS cluster)."""
        from distributed import Client

        from webcrawler.agents.remote import served

        with Client(self.scheduler.address, timeout="30s", set_as_default=False,
                    security=security) as client:
            return client.run(served)


def start_role(args: list[str], log: Path, prefix: list[str] | None = None) -> Role:
    """Run `webcrawler ARGS` in a new process group; wait for its "... at tcp://" (or tls://) line.

    `prefix` goes before the command (e.g. `ip netns exec NAME`: bench/netns.py).
    """
    with log.open("w") as err:
        process = subprocess.Popen([*(prefix or []), sys.executable, "-m", "webcrawler.cli", *args],
                                   stdout=subprocess.PIPE, stderr=err, text=True,
                                   start_new_session=True)
    assert process.stdout is not None
    end = time.monotonic() + START_TIMEOUT
    while time.monotonic() < end and process.poll() is None:
        if select.select([process.stdout], [], [], 0.5)[0]:
            line = process.stdout.readline()
            if " at tcp://" in line or " at tls://" in line:
                return Role(process, line.split()[-1])
    Role(process, "").stop()
    raise RuntimeError(f"{args[0]} did not start: {log.read_text()[-2000:]}")


@contextmanager
def agent_cluster(logs: Path, hosts: dict[str, int], scheduler_address: str = "127.0.9.1",
                  prefixes: Mapping[str, list[str]] | None = None,
                  flags: list[str] | None = None) -> Iterator[Cluster]:
    """A scheduler and one agent host per (loopback address -> agents); all stopped at the end.

    `prefixes` maps a role's address to its command prefix (its network namespace); `flags`
    go to every role (e.g. the --tls options of one certificate)."""
    _check_loopback(scheduler_address)
    logs.mkdir(parents=True, exist_ok=True)
    prefixes = prefixes or {}
    cluster = Cluster(start_role(["agent-scheduler", "--host", scheduler_address, "--port", "0",
                                  *(flags or [])], logs / "scheduler.log", prefixes.get(scheduler_address)),
                      logs, prefixes=prefixes, flags=list(flags or []))
    try:
        for address, agents in hosts.items():
            cluster.add_host(address, agents)
        yield cluster
    finally:
        for role in [*cluster.hosts, cluster.scheduler]:
            role.stop()


def _check_loopback(address: str) -> None:
    if not ipaddress.ip_address(address).is_loopback:
        raise ValueError(f"{address} is not a loopback address")
