"""Mutual TLS between the agent roles: a function sent from outside runs nowhere.

One real cluster for the module (scheduler and agent host started by their own
commands, with certificates `openssl` made for a CA of the test's own). A
function that would write a file is sent to the worker's own port and through
the scheduler, as an attacker on the network would, without a certificate,
with one of another CA, and in plain TCP: the file must never appear. The
engine's own certificate is the control: with it the same function runs, and
`webcrawler index --agents-at tls://...` crawls through the cluster.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cluster import Cluster, agent_cluster
from tests.support.tls import Certificate, make_ca, sign
from webcrawler.agenthosts.security import Tls
from webcrawler.demoweb.server import LoopbackWeb, Site, html

distributed = pytest.importorskip("distributed")

WEB = "127.0.9.85"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Certificate]:
    """The cluster's CA and a certificate for the roles and the engine; a stranger's CA and its own."""
    where = tmp_path_factory.mktemp("tls")
    ca, other = make_ca(where / "ca"), make_ca(where / "other")
    return {"roles": sign(ca, where / "ca", "roles"), "engine": sign(ca, where / "ca", "engine"),
            "stranger": sign(other, where / "other", "stranger")}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory,
            certificates: dict[str, Certificate]) -> Iterator[Cluster]:
    with agent_cluster(tmp_path_factory.mktemp("tls-cluster"), {"127.0.9.82": 2}, "127.0.9.81",
                       flags=certificates["roles"].flags()) as made:
        yield made


def security(certificate: Certificate) -> Any:
    return Tls(str(certificate.ca), str(certificate.cert), str(certificate.key)).security()


class _Context(distributed.security.Security):  # type: ignore[misc, name-defined]
    """A client that trusts the cluster's CA (so it gets as far as it can) but shows no certificate."""

    def __init__(self, ca: Path) -> None:
        super().__init__(require_encryption=True)
        self.context = ssl.create_default_context(cafile=str(ca))
        self.context.check_hostname = False

    def get_connection_args(self, role: str) -> dict[str, Any]:
        return {"ssl_context": self.context, "require_encryption": True, "extra_conn_args": {}}


def send_to_worker(address: str, function: Any, security: Any) -> Any:
    """The worker's own `run` handler, called over its port as any Dask peer could."""
    from distributed.core import rpc
    from distributed.protocol.pickle import dumps

    async def send() -> Any:
        args = security.get_connection_args("client") if security else {}
        async with rpc(address, connection_args=args, timeout=5) as worker:
            return await asyncio.wait_for(worker.run(function=dumps(function)), 15)

    return asyncio.run(send())


def submit(address: str, function: Any, security: Any) -> Any:
    """`Client.submit` through the scheduler."""
    with distributed.Client(address, security=security, timeout="5s", set_as_default=False) as client:
        return client.submit(function, pure=False).result(timeout=30)


def test_no_function_runs_for_a_peer_without_the_clusters_certificate(
        cluster: Cluster, certificates: dict[str, Certificate], tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    touch = functools.partial(Path.touch, marker)
    worker = cluster.hosts[0].address
    assert worker.startswith("tls://") and cluster.scheduler.address.startswith("tls://")
    no_certificate, stranger = _Context(certificates["roles"].ca), security(certificates["stranger"])
    attempts = {
        "worker, no certificate": lambda: send_to_worker(worker, touch, no_certificate),
        "worker, another CA's certificate": lambda: send_to_worker(worker, touch, stranger),
        "worker, plain TCP": lambda: send_to_worker(worker.replace("tls://", "tcp://"), touch, None),
        "scheduler, no certificate": lambda: submit(cluster.scheduler.address, touch, no_certificate),
        "scheduler, another CA's certificate": lambda: submit(cluster.scheduler.address, touch, stranger),
        "scheduler, plain TCP": lambda: submit(cluster.scheduler.address.replace("tls://", "tcp://"),
                                               touch, None),
    }
    ran = []
    for name, attempt in attempts.items():
        try:
            attempt()
            ran.append(name)
        except (OSError, TimeoutError, distributed.comm.CommClosedError):
            pass
        assert not marker.exists(), f"{name}: the function ran"
    assert ran == []
    engine = security(certificates["engine"])  # the controls: the same two paths, with a certificate
    send_to_worker(worker, touch, engine)
    assert marker.exists()
    marker.unlink()
    submit(cluster.scheduler.address, touch, engine)
    assert marker.exists()


def test_index_crawls_through_agent_hosts_over_mutual_tls(
        cluster: Cluster, certificates: dict[str, Certificate], tmp_path: Path) -> None:
    pages = {"/": html("Home", "tls crawl", [(f"/p{i}", f"page {i}") for i in range(1, 4)])}
    pages.update({f"/p{i}": html(f"Page {i}", f"encrypted page number{i}") for i in range(1, 4)})
    base = [sys.executable, "-m", "webcrawler.cli", "index", "--delay", "0", "--agents", "2",
            "--no-progress", "--agents-at", cluster.scheduler.address]
    with LoopbackWeb([Site(WEB, pages)]) as web:
        seed = ["--seed", web.url(WEB, "/")]
        refused = subprocess.run([*base, *seed, "--data-dir", str(tmp_path / "refused")],
                                 capture_output=True, text=True, timeout=120)
        crawled = subprocess.run([*base, *seed, "--data-dir", str(tmp_path / "data"),
                                  *certificates["engine"].flags()],
                                 capture_output=True, text=True, timeout=180)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "--tls-ca, --tls-cert and --tls-key" in refused.stderr.strip().splitlines()[-1]
    assert crawled.returncode == 0, crawled.stderr[-3000:]
    assert "documents retrieved  4" in crawled.stdout
    assert sum(cluster.served(security(certificates["engine"])).values()) >= 4
