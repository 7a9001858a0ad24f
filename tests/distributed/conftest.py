"""A real Dask cluster on loopback for the agent-host tests: the roles' own commands.

`cluster` starts `webcrawler agent-scheduler` on 127.0.0.1 and agent hosts
bound to their own loopback addresses, each a separate process group so a
test can kill a whole host; every process is stopped and reaped at the end.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytest.importorskip("distributed")

START_TIMEOUT = 90.0  # seconds for a role to print its address (the machine may be busy)


@dataclass
class Role:
    process: subprocess.Popen[str]
    address: str

    def kill(self) -> None:
        """Kill the whole host at once (every process of its group), as a power cut would."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


@dataclass
class Cluster:
    scheduler: Role
    hosts: list[Role] = field(default_factory=list)

    def served(self) -> dict[str, int]:
        """URLs retrieved per live agent host, asked of the hosts themselves."""
        from distributed import Client

        from webcrawler.agents.remote import served

        with Client(self.scheduler.address, timeout="30s", set_as_default=False) as client:
            return client.run(served)


def _start(args: list[str], log: Path) -> Role:
    with log.open("w") as err:
        process = subprocess.Popen([sys.executable, "-m", "webcrawler.cli", *args],
                                   stdout=subprocess.PIPE, stderr=err, text=True,
                                   start_new_session=True)
    assert process.stdout is not None
    end = time.monotonic() + START_TIMEOUT
    while time.monotonic() < end and process.poll() is None:
        if select.select([process.stdout], [], [], 0.5)[0]:
            line = process.stdout.readline()
            if " at tcp://" in line:
                return Role(process, line.split()[-1])
    _stop(Role(process, ""))
    raise RuntimeError(f"{args[0]} did not start: {log.read_text()[-2000:]}")


def _stop(role: Role) -> None:
    if role.process.poll() is None:
        os.killpg(role.process.pid, signal.SIGTERM)
        try:
            role.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            role.kill()
    if role.process.stdout:
        role.process.stdout.close()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """The scheduler and two agent hosts (127.0.9.2 and 127.0.9.3, two agents each)."""
    scheduler = _start(["agent-scheduler", "--host", "127.0.9.1", "--port", "0"],
                       tmp_path / "scheduler.log")
    made = Cluster(scheduler)
    try:
        for number in (2, 3):
            made.hosts.append(_start(["agent-host", "--scheduler", scheduler.address, "--host",
                                      f"127.0.9.{number}", "--agents", "2"],
                                     tmp_path / f"host{number}.log"))
        yield made
    finally:
        for role in [*made.hosts, scheduler]:
            _stop(role)
