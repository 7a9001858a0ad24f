"""The remote pool: the agent pool's interface over agents on other hosts (Dask distributed).

The engine's dispatch seam (engine/loop/crawl.py) asks a pool `free`, `busy`,
`submit`, `poll`, `in_flight` and `shutdown`; `AgentPool` answers with local
subprocesses, this class with tasks on a Dask cluster: "retrieve this URL"
becomes `agents.remote.retrieve` on whichever agent host has a free thread,
and the document or the reason comes back as the same message.

The engine stays the single decision-maker: the pool holds at most `size`
URLs in flight and only the engine submits, so politeness (one request in
flight per server) stays global across every host. Dask is the RPC, the
membership and the retry layer: a task whose worker dies is run again on
another one (the in-flight URL is fetched twice at most, never lost), and a
task that fails `allowed-failures` times comes back as `KilledWorker`. A task
that had finished on a host that died before its answer was read is `lost`:
Dask runs it again, and the pool waits for that answer as for any other. The
pool's own deadline, as in the local pool, answers a URL nobody answered in
time (a host cut off before the scheduler noticed) with AGENT_HUNG.
"""

from __future__ import annotations

import logging
import queue
import time
import uuid
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from distributed import Client, Future

from webcrawler.agenthosts.errors import NoAgentHosts
from webcrawler.agents.remote import retrieve
from webcrawler.protocol.messages import AgentConfig, Answer, Failure, Reason, Retrieve

log = logging.getLogger(__name__)


@dataclass
class _Flight:
    job: Retrieve
    since: float


class RemotePool:
    """Hand `Retrieve`s to agent hosts through a Dask scheduler; collect `(job, answer)` pairs."""

    def __init__(self, address: str, size: int, config: AgentConfig, robots_token: str, *,
                 deadline: float, connect_timeout: float = 30.0, security: Any = None) -> None:
        self.size = size
        self.config = config
        self.robots_token = robots_token
        self.deadline = deadline
        self.replaced: dict[str, int] = {}  # answers the pool made up -> how many (summary)
        self._prefix = f"retrieve-{uuid.uuid4().hex[:8]}"
        self._flights: dict[Hashable, _Flight] = {}  # future key -> job
        self._futures: dict[Hashable, Future] = {}
        self._done: queue.Queue[Future] = queue.Queue()
        self._lost: set[Hashable] = set()  # finished on a host that died before it was read
        self.client = _connect(address, connect_timeout, security)

    # --- the pool interface -------------------------------------------------
    def free(self) -> int:
        return self.size - len(self._flights)

    def busy(self) -> int:
        return len(self._flights)

    def in_flight(self) -> list[Retrieve]:
        return [f.job for f in self._flights.values()]

    def submit(self, job: Retrieve) -> None:
        """Send `job` to the cluster (the caller checks `free()` first)."""
        key = f"{self._prefix}-{job.job_id}"
        future = self.client.submit(retrieve, self.config, self.robots_token, job,
                                    key=key, pure=False)
        self._flights[key] = _Flight(job, time.monotonic())
        self._futures[key] = future
        future.add_done_callback(self._done.put)

    def poll(self, timeout: float) -> list[tuple[Retrieve, Answer]]:
        """Wait up to `timeout` seconds; return the answers that arrived (maybe none)."""
        answers: list[tuple[Retrieve, Answer]] = []
        try:
            finished = [self._done.get(timeout=max(0.0, timeout))] if self._flights else []
        except queue.Empty:
            finished = []
        if not self._flights:
            time.sleep(max(0.0, timeout))
        while True:
            try:
                finished.append(self._done.get_nowait())
            except queue.Empty:
                break
        finished += self._found_again()
        for future in finished:
            answer = self._collect(future)
            if answer is not None:
                answers.append(answer)
        answers.extend(self._overdue())
        return answers

    def shutdown(self, grace: float = 2.0) -> None:
        """Cancel what is still in flight and leave the cluster (agent hosts keep running)."""
        if self._futures:
            self.client.cancel(list(self._futures.values()))
        self._flights.clear()
        self._futures.clear()
        self._lost.clear()
        self.client.close(timeout=grace)

    # --- internals ----------------------------------------------------------
    def _collect(self, future: Future) -> tuple[Retrieve, Answer] | None:
        if future.key in self._flights and future.status in ("lost", "pending"):
            self._lost.add(future.key)  # its answer died with its host: Dask runs it again
            return None
        flight = self._flights.pop(future.key, None)
        self._futures.pop(future.key, None)
        if flight is None:  # answered already (overdue), or cancelled by us
            return None
        job = flight.job
        if future.status == "finished":
            try:
                return job, future.result()
            except Exception as exc:  # noqa: BLE001 - the answer was lost with its host: say so
                why = repr(exc)
        else:
            why = "cancelled (the scheduler was lost)" if future.cancelled() else repr(future.exception())
        self.replaced["died"] = self.replaced.get("died", 0) + 1
        log.warning("%s: no answer from the agent hosts: %s", job.url, why)
        return job, Failure(job.job_id, job.url, Reason.AGENT_DIED, f"agent host lost: {why}"[:2000])

    def _found_again(self) -> list[Future]:
        """The lost tasks Dask has run again (or given up on): their done callback fired
        already, when they first finished, so each poll looks at them."""
        again = []
        for key in list(self._lost):
            future = self._futures.get(key)
            if future is None or future.status not in ("lost", "pending"):
                self._lost.discard(key)
                if future is not None:
                    again.append(future)
        return again

    def _overdue(self) -> list[tuple[Retrieve, Answer]]:
        now = time.monotonic()
        late = [key for key, f in self._flights.items() if now - f.since > self.deadline]
        out: list[tuple[Retrieve, Answer]] = []
        for key in late:
            job = self._flights.pop(key).job
            self._futures.pop(key).cancel()
            self._lost.discard(key)
            self.replaced["hung"] = self.replaced.get("hung", 0) + 1
            out.append((job, Failure(job.job_id, job.url, Reason.AGENT_HUNG,
                                     f"no answer within {self.deadline:.0f} s")))
        return out


def _connect(address: str, timeout: float, security: Any) -> Client:
    """A client of the scheduler at `address` with at least one agent host, or NoAgentHosts.
    `security` (Dask's, agenthosts/security.py) is the engine's certificate for a tls:// one."""
    try:
        client = Client(address, timeout=f"{timeout}s", set_as_default=False, security=security)
    except OSError as exc:
        raise NoAgentHosts(f"no agent scheduler at {address} ({exc})") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        client.close()
        raise NoAgentHosts(f"no agent host joined the scheduler at {address} within "
                           f"{timeout:.0f} s: start one with `webcrawler agent-host`") from None
    return client
