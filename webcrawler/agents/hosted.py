"""An agent process on an agent host, held to the same memory budget as a local agent.

A Dask worker runs its tasks in threads of one process: a Fetcher in each thread would
share that process's memory with every other agent of the host, unbounded (a DOCX bomb
grew a host to 3.5 GB). So each worker thread keeps one agent process of its own, the
agent loop every local agent runs (worker.agent_main, over a pipe), and watches it as the
engine's local pool does (engine/loop/pool.py): its memory with its browser's
(footprint.py) against `AgentConfig.memory_mb` twice a second, its time against the
engine's agent deadline. An agent past either is killed and the URL answered with the
pool's own reasons (AGENT_MEMORY, AGENT_HUNG, AGENT_DIED); the next URL starts a new one.
"""

from __future__ import annotations

import contextlib
import logging
import time
from multiprocessing.connection import Connection
from typing import Any

import psutil

from webcrawler.agents.footprint import with_descendants
from webcrawler.agents.worker import READY, agent_main
from webcrawler.processes import child_context, main_module_hidden
from webcrawler.protocol.messages import AgentConfig, Answer, Failure, Reason, Retrieve

log = logging.getLogger(__name__)

CHECK_EVERY = 0.5  # seconds between two measures of a busy agent's memory
START_TIMEOUT = 60.0  # seconds an agent process may take to say it is ready
GRACE = 15.0  # past the total timeout, for an AgentConfig made without a deadline


def warm_up() -> None:
    """Start the host's forkserver now, its agent code loaded (processes.PRELOADED): then an
    agent started for a crawl's first URL is a fork, not an interpreter importing the agent,
    and its start-up does not eat that URL's deadline."""
    import multiprocessing.forkserver

    child_context("forkserver")
    multiprocessing.forkserver.ensure_running()


class HostedAgent:
    """One agent process for one worker thread; `ask` it a `Retrieve`, `close` at the end."""

    def __init__(self, config: AgentConfig, robots_token: str) -> None:
        self.config = config
        self.robots_token = robots_token
        self.limit = config.memory_mb << 20
        self._process: Any = None
        self._conn: Connection | None = None
        self._ps: psutil.Process | None = None

    def ask(self, request: Retrieve) -> Answer:
        """The agent's answer to `request`, or the reason it was killed."""
        conn = self._ready()
        started = time.monotonic()
        try:
            conn.send(request)
        except OSError:
            return self._lost(request, Reason.AGENT_DIED, "agent process gone before the request")
        deadline = started + (self.config.deadline or self.config.total_timeout + GRACE)
        while time.monotonic() < deadline:
            try:
                if conn.poll(CHECK_EVERY):
                    answer: Answer = conn.recv()
                    return answer
            except (EOFError, OSError):
                return self._lost(request, Reason.AGENT_DIED, "agent process exited while retrieving")
            held = with_descendants(self._ps)
            if held > self.limit:
                return self._lost(request, Reason.AGENT_MEMORY, f"agent grew to {held >> 20} MB "
                                                                f"(limit {self.limit >> 20} MB)")
        return self._lost(request, Reason.AGENT_HUNG,
                          f"no answer within {deadline - started:.0f} s")

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.send(None)
        self._end()

    def _ready(self) -> Connection:
        """A live agent process, started now if need be."""
        if self._conn is not None and self._process.is_alive():
            return self._conn
        self._end()
        ctx = child_context("forkserver")
        parent, child = ctx.Pipe(duplex=True)
        self._process = ctx.Process(target=agent_main, args=(child, self.config, self.robots_token),
                                    name="webcrawler-hosted-agent", daemon=True)
        with main_module_hidden():  # the agent-host command is not imported again by each agent
            self._process.start()
        child.close()
        self._conn = parent
        if not (parent.poll(START_TIMEOUT) and parent.recv() == READY):
            log.warning("a hosted agent did not start properly")
        self._ps = psutil.Process(self._process.pid)
        return parent

    def _lost(self, request: Retrieve, reason: str, detail: str) -> Failure:
        """Kill the agent (the next request starts another): `request` failed with `reason`."""
        log.warning("%s: hosted agent replaced (%s)", request.url, detail)
        self._end()
        return Failure(request.job_id, request.url, reason, detail)

    def _end(self) -> None:
        """Kill the agent and its descendants (a browser), and reap it."""
        if self._process is None:
            return
        for process in _descendants(self._ps):
            with contextlib.suppress(psutil.Error):
                process.kill()
        self._process.kill()
        self._process.join(timeout=5)
        if self._conn is not None:
            self._conn.close()
        self._process = self._conn = self._ps = None


def _descendants(process: psutil.Process | None) -> list[psutil.Process]:
    if process is None:
        return []
    try:
        return list(process.children(recursive=True))
    except psutil.Error:
        return []
