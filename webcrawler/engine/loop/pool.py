"""The agent pool: up to 15 agent subprocesses, each retrieving one URL at a time.

Agents run in separate processes, as in 1994, to isolate the engine from
their crashes, hangs and leaks. The pool hands a `Retrieve` to a free agent
and collects answers. When an agent dies, holds a URL past its deadline, or
grows past its memory limit, the pool kills it, answers the URL with a
`Failure` saying so, and starts a fresh agent; agents are also recycled after
a number of URLs, so slow leaks never accumulate.

Processes come from a "forkserver" context: cheap to start, and they inherit
nothing of the engine (no database handles, no index). One agent starts with the
pool; the others only when every started one is busy. The crawl asks one server
one thing at a time, so a crawl of a few servers never keeps fifteen busy, and
each agent started costs its fork, its start and its exit in every process of
the tree whether it fetches or not.
"""

from __future__ import annotations

import logging
import multiprocessing
import pickle
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

import psutil

from webcrawler.agents.footprint import with_descendants
from webcrawler.agents.render import require_renderer
from webcrawler.agents.worker import READY, agent_main
from webcrawler.config.agent_config import agent_config
from webcrawler.errors import SettingError
from webcrawler.processes import child_context, main_module_hidden
from webcrawler.protocol.messages import AgentConfig, Answer, Failure, Reason, Retrieve
from webcrawler.settings import Settings

log = logging.getLogger(__name__)

MEMORY_CHECK_INTERVAL = 1.0


@dataclass
class AgentProcess:
    """One agent subprocess, its end of the pipe, and the request it holds."""

    number: int
    process: multiprocessing.process.BaseProcess
    conn: Connection
    job: Retrieve | None = None
    since: float = 0.0
    served: int = 0
    ps: psutil.Process | None = field(default=None, repr=False)


class AgentPool:
    """Start agents, hand out `Retrieve`s, collect `(job, answer)` pairs."""

    def __init__(self, size: int, config: AgentConfig, robots_token: str, *,
                 deadline: float, max_urls: int = 500, memory_mb: int = 512,
                 start_method: str = "forkserver") -> None:
        if not 1 <= size <= 64:
            raise SettingError("the number of agents must be between 1 and 64")
        self.config = config
        self.robots_token = robots_token
        self.deadline = deadline
        self.max_urls = max_urls
        self.memory_bytes = memory_mb * 1024 * 1024
        self._ctx: Any = child_context(start_method)  # its Process, Pipe: any method's
        self._counter = 0
        self._last_memory_check = 0.0
        self.replaced: dict[str, int] = {}  # why agents were replaced -> how many
        self.size = size
        # one now (the forkserver running, an agent proven to start); the rest on demand
        self.agents = [self._start(wait=True)]

    # --- public -------------------------------------------------------
    def free(self) -> int:
        """Idle agents, and those not started yet (`submit` starts one when it must)."""
        return sum(1 for a in self.agents if a.job is None) + self.size - len(self.agents)

    def busy(self) -> int:
        return sum(1 for a in self.agents if a.job is not None)

    def submit(self, job: Retrieve) -> None:
        """Give `job` to a free agent (the caller checks `free()` first), starting one if
        every started agent is busy."""
        agent = next((a for a in self.agents if a.job is None), None)
        if agent is None:
            agent = self._start(wait=True)  # ready before its deadline's clock starts
            self.agents.append(agent)
        elif not agent.process.is_alive():  # died while idle: nobody's URL is lost
            self._replace(agent, "died", kill=True)
            agent = next(a for a in self.agents if a.job is None)
        agent.job, agent.since = job, time.monotonic()
        try:  # the bytes conn.send(job) writes, pickled without its ForkingPickler's set-up
            agent.conn.send_bytes(pickle.dumps(job))
        except (BrokenPipeError, OSError):
            pass  # found dead by the next poll, which answers the job

    def poll(self, timeout: float) -> list[tuple[Retrieve, Answer]]:
        """Wait up to `timeout` seconds; return the answers that arrived (maybe none)."""
        busy = [a for a in self.agents if a.job is not None]
        if not busy:
            time.sleep(max(0.0, timeout))
            return []
        waitables: dict[Any, AgentProcess] = {a.conn: a for a in busy}
        waitables |= {a.process.sentinel: a for a in busy}
        ready = wait(list(waitables), timeout=max(0.0, timeout))
        answers = []
        for agent in {id(waitables[r]): waitables[r] for r in ready}.values():
            answers.append(self._collect(agent, agent.conn in ready))
        answers.extend(self._check_health())
        return [a for a in answers if a is not None]

    def shutdown(self, grace: float = 2.0) -> None:
        """Ask every agent to exit; kill those that do not within `grace` seconds."""
        for agent in self.agents:
            try:
                agent.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        end = time.monotonic() + grace
        for agent in self.agents:
            agent.process.join(timeout=max(0.0, end - time.monotonic()))
            if agent.process.is_alive():
                agent.process.kill()
                agent.process.join(timeout=1)
            agent.conn.close()
        self.agents = []

    def in_flight(self) -> list[Retrieve]:
        return [a.job for a in self.agents if a.job is not None]

    # --- internals ------------------------------------------------------
    @staticmethod
    def _await_ready(agent: AgentProcess, timeout: float = 60.0) -> None:
        """Wait for the agent's READY, so its start-up never counts against a deadline.

        An agent that never says it is ready is left to the health checks.
        """
        try:
            if agent.conn.poll(timeout) and agent.conn.recv() == READY:
                return
        except (EOFError, OSError):
            pass
        log.warning("agent %d did not start properly", agent.number)

    def _start(self, wait: bool = False) -> AgentProcess:
        self._counter += 1
        parent, child = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(
            target=agent_main, args=(child, self.config, self.robots_token),
            name=f"webcrawler-agent-{self._counter}", daemon=True,
        )
        # Never named to the agent, which would import it again: a crawler script without a
        # __main__ guard would crawl there, and the `webcrawler` script costs each agent its
        # command line's imports (processes.py)
        with main_module_hidden():
            process.start()
        child.close()
        agent = AgentProcess(self._counter, process, parent)
        if wait:
            self._await_ready(agent)
        try:
            agent.ps = psutil.Process(process.pid)
        except psutil.Error:
            agent.ps = None
        return agent

    def _collect(self, agent: AgentProcess, readable: bool) -> tuple[Retrieve, Answer] | None:
        """The agent's answer, if it sent one (`readable`: its pipe was among those `wait`
        found ready, so it is not asked again: a `poll()` is another selector's set-up), or
        its job's failure if it died."""
        job = agent.job
        assert job is not None
        try:
            if readable or agent.conn.poll():
                answer = agent.conn.recv()
                agent.job = None
                agent.served += 1
                if agent.served >= self.max_urls:
                    self._replace(agent, "recycled", kill=False)
                return job, answer
        except (EOFError, OSError, ValueError, TypeError) as exc:  # died mid-message
            log.debug("agent %d: broken answer: %s", agent.number, exc)
        else:
            if agent.process.is_alive():
                return None
        code = agent.process.exitcode
        self._replace(agent, "died", kill=True)
        return job, Failure(job.job_id, job.url, Reason.AGENT_DIED,
                            f"agent process exited with code {code} while retrieving")

    def _check_health(self) -> list[tuple[Retrieve, Answer]]:
        now = time.monotonic()
        out: list[tuple[Retrieve, Answer]] = []
        check_memory = now - self._last_memory_check >= MEMORY_CHECK_INTERVAL
        if check_memory:
            self._last_memory_check = now
        for agent in list(self.agents):
            job = agent.job
            if job is None:
                continue
            if now - agent.since > self.deadline:
                self._replace(agent, "hung", kill=True)
                out.append((job, Failure(job.job_id, job.url, Reason.AGENT_HUNG,
                                         f"no answer within {self.deadline:.0f} s")))
            elif check_memory and self._rss(agent) > self.memory_bytes:
                rss = self._rss(agent) // (1024 * 1024)
                self._replace(agent, "memory", kill=True)
                out.append((job, Failure(job.job_id, job.url, Reason.AGENT_MEMORY,
                                         f"agent grew to {rss} MB (limit "
                                         f"{self.memory_bytes // (1024 * 1024)} MB)")))
        return out

    def _rss(self, agent: AgentProcess) -> int:
        """The agent's memory; under --render its browser's too (agents/footprint.py)."""
        if self.config.render != "never":
            return with_descendants(agent.ps)
        try:
            return agent.ps.memory_info().rss if agent.ps else 0
        except psutil.Error:
            return 0

    def _replace(self, agent: AgentProcess, why: str, kill: bool) -> None:
        self.replaced[why] = self.replaced.get(why, 0) + 1
        if why != "recycled":
            log.warning("agent %d %s; starting a new one", agent.number, why)
        if kill:
            agent.process.kill()
        else:
            try:
                agent.conn.send(None)
            except (BrokenPipeError, OSError):
                agent.process.kill()
        agent.process.join(timeout=2)
        if agent.process.is_alive():
            agent.process.kill()
            agent.process.join(timeout=1)
        agent.conn.close()
        index = self.agents.index(agent)
        self.agents[index] = self._start(wait=True)


def start_agents(settings: Settings, credentials: bool = True) -> AgentPool:
    """The local agents of a crawl under `settings` (their number, timeouts, User-Agent).
    Refuses, in one line, a --render the agents could not do (render.require_renderer).
    `credentials`: the agents get the data directory's [[credentials]] (config/agent_config.py)."""
    require_renderer(settings.render)
    return AgentPool(settings.agents, agent_config(settings, credentials), settings.robots_token,
                     deadline=settings.deadline(), max_urls=settings.agent_max_urls,
                     memory_mb=settings.agent_memory_mb)
