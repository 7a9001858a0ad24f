"""Where the agent roles listen, and who may join: loopback unless told otherwise, nothing
beyond it without TLS or --insecure (and then a warning of what became reachable), and
agent hosts that always join, whatever address they share.

One plain scheduler for the module; the roles are the real commands. Addresses beyond
loopback are only ever given as ones this machine does not have (192.0.2.1, TEST-NET-1),
so nothing here listens beyond loopback even when a role accepts the address.
"""

from __future__ import annotations

import ipaddress
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.support.cluster import Role, start_role
from tests.support.tls import make_ca, sign

distributed = pytest.importorskip("distributed")

ELSEWHERE = "192.0.2.1"  # beyond loopback, and on no interface of this machine


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Role]:
    role = start_role(["agent-scheduler", "--host", "127.0.9.91", "--port", "0"],
                      tmp_path_factory.mktemp("roles") / "scheduler.log")
    yield role
    role.stop()


def webcrawler(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", *args], capture_output=True,
                          text=True, timeout=90)


def listening(role: Role) -> set[str]:
    """The addresses the role's processes listen on (TCP)."""
    processes = [psutil.Process(role.process.pid)]
    processes += processes[0].children(recursive=True)
    return {c.laddr.ip for p in processes for c in p.net_connections("inet")
            if c.status == psutil.CONN_LISTEN}


def test_agent_hosts_listen_on_loopback_and_all_join(scheduler: Role, tmp_path: Path) -> None:
    started: list[Role] = []
    try:
        for i, host in enumerate([[], [], ["--host", "127.0.9.92"], ["--host", "127.0.9.92"]]):
            started.append(start_role(["agent-host", "--scheduler", scheduler.address, "--agents", "1",
                                       *host], tmp_path / f"host-{i}.log"))
        with distributed.Client(scheduler.address, timeout="30s", set_as_default=False) as client:
            client.wait_for_workers(4, timeout=60)
            names = [w["name"] for w in client.scheduler_info(n_workers=-1)["workers"].values()]
        assert len(set(names)) == 4 and all(name.startswith("agents@") for name in names), names
        for role in [scheduler, *started]:
            addresses = listening(role)
            assert addresses and all(ipaddress.ip_address(a).is_loopback for a in addresses), addresses
    finally:
        for role in started:
            role.stop()


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "10.1.2.3", "example.org", ELSEWHERE])
@pytest.mark.parametrize("role", ["agent-scheduler", "agent-host"])
def test_beyond_loopback_without_tls_is_refused(role: str, host: str) -> None:
    args = ["--port", "0"] if role == "agent-scheduler" else ["--scheduler", "tcp://127.0.9.91:1"]
    result = webcrawler(role, "--host", host, *args)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert "without TLS" in lines[0] and "--insecure" in lines[0] and "--tls-cert" in lines[0]


def test_insecure_and_tls_say_what_becomes_reachable(scheduler: Role, tmp_path: Path) -> None:
    certificate = sign(make_ca(tmp_path), tmp_path, "role")
    runs = {"scheduler insecure": webcrawler("agent-scheduler", "--host", ELSEWHERE, "--port", "0",
                                             "--insecure"),
            "host insecure": webcrawler("agent-host", "--host", ELSEWHERE, "--insecure",
                                        "--scheduler", scheduler.address),
            "scheduler tls": webcrawler("agent-scheduler", "--host", ELSEWHERE, "--port", "0",
                                        *certificate.flags())}
    for name, result in runs.items():
        warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
        assert len(warnings) == 1, (name, result.stderr)
        assert f"listens on {ELSEWHERE}" in warnings[0]
        if "insecure" in name:
            assert "without TLS" in warnings[0] and "run any Python code" in warnings[0]
        else:
            assert f"certificate signed by {certificate.ca}" in warnings[0]
        # the address is on no interface here: the role then fails to listen, in one line
        assert result.returncode == 1 and "Traceback" not in result.stderr, (name, result.stderr)
        assert result.stderr.strip().splitlines()[-1].startswith("Error: ")


def test_tls_options_must_go_together(tmp_path: Path) -> None:
    certificate = sign(make_ca(tmp_path), tmp_path, "role")
    half = webcrawler("agent-scheduler", "--port", "0", "--tls-ca", str(certificate.ca))
    assert half.returncode == 1 and "--tls-cert, --tls-key missing" in half.stderr
    plain = webcrawler("agent-host", "--scheduler", "tcp://127.0.9.91:1", *certificate.flags())
    assert plain.returncode == 1 and "tls://" in plain.stderr and "Traceback" not in plain.stderr
