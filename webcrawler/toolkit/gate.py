"""The one way a toolkit crawl reaches the network: the agent pool, behind the request policy.

Every request of a personal crawl (documents and robots.txt alike) is handed
to `PolicedPool.submit`, which asks the `RequestPolicy` first and audits the
decision; a refused request never reaches an agent and is answered here, as
data, like any failure (`Failure` / `RobotsFile` with reason "policy"). The
crawler's callbacks hold no pool and no agent, so this is the path every
fetch takes (SPHINX section 5: the host's policy on relocated crawlers).

robots.txt redirects included: under a policy the agent follows none
(`Retrieve(kind="robots-hop")` answers a redirect as data), and each hop comes
back here to be decided and audited like the first request, up to RFC 9309's
five; the crawl sees one answer for the robots.txt it asked for, as before.
"""

from __future__ import annotations

import time
from dataclasses import replace

from webcrawler.engine.interfaces import Pool
from webcrawler.protocol.messages import (
    ROBOTS_HOP,
    Answer,
    Document,
    Failure,
    Reason,
    Redirect,
    Retrieve,
    RobotsFile,
)
from webcrawler.toolkit.policy import RequestPolicy

REFUSED = Reason.POLICY  # the Failure reason of a request the policy refused
MAX_ROBOTS_HOPS = 5  # robots.txt redirects followed, as the agent would (RFC 9309 section 2.3.1.2)


class PolicedPool:
    """A `Pool` (any: local agents, agent hosts, in-process) whose every request passes
    the policy."""

    def __init__(self, pool: Pool, policy: RequestPolicy | None) -> None:
        self.pool = pool
        self.policy = policy
        self._refused: list[tuple[Retrieve, Answer]] = []
        self._robots: dict[int, tuple[Retrieve, int]] = {}  # job id -> (robots.txt job, hops so far)
        self._hops: list[Retrieve] = []  # redirects to follow, waiting for an agent or the rate
        self.sent = 0

    def free(self) -> int:
        return max(0, self.pool.free() - len(self._hops))

    def busy(self) -> int:
        return self.pool.busy() + len(self._refused) + len(self._hops)

    def wait(self, now: float) -> float:
        """Seconds before the policy's rate lets the next request out."""
        return self.policy.wait(now) if self.policy else 0.0

    def submit(self, job: Retrieve) -> bool:
        """Send `job` to an agent if the policy allows it (True), else answer it as refused."""
        if self.policy is not None:
            reason = self.policy.decide(job.url, job.kind, time.monotonic())
            if reason is not None:
                self._refused.append((job, _refusal(job, reason)))
                return False
            if job.kind == "robots":  # its redirects come back here (_hopped), not followed
                self._robots[job.job_id] = (job, 0)
                job = replace(job, kind=ROBOTS_HOP)
        self.sent += 1
        self.pool.submit(job)
        return True

    def poll(self, timeout: float) -> list[tuple[Retrieve, Answer]]:
        """Answers that arrived (refusals first, without waiting)."""
        self._send_hops()
        if self._refused:
            refused, self._refused = self._refused, []
            return refused + self._answers(0.0)
        if self._hops and self.policy is not None:
            timeout = min(timeout, max(self.policy.wait(time.monotonic()), 0.005))
        return self._answers(timeout)

    def _answers(self, timeout: float) -> list[tuple[Retrieve, Answer]]:
        answers = [pair for pair in map(self._hopped, self.pool.poll(timeout)) if pair is not None]
        if self.policy is not None:
            for _, answer in answers:
                if isinstance(answer, Document):
                    self.policy.received(answer.length)
                elif isinstance(answer, RobotsFile):
                    self.policy.received(len(answer.body.encode("utf-8", "replace")))
        return answers

    def shutdown(self) -> None:
        self.pool.shutdown()

    def _hopped(self, pair: tuple[Retrieve, Answer]) -> tuple[Retrieve, Answer] | None:
        """A robots.txt hop's answer: its redirect queued as the next hop (None: no answer
        yet), or the answer to the robots.txt job that was asked for. Others pass through."""
        job, answer = pair
        if job.kind != ROBOTS_HOP or job.job_id not in self._robots:
            return pair
        asked, hops = self._robots.pop(job.job_id)
        if not isinstance(answer, Redirect):
            return asked, replace(answer, url=asked.url)
        if hops >= MAX_ROBOTS_HOPS:
            return asked, RobotsFile(asked.job_id, asked.url, None, reason=Reason.TOO_MANY_REDIRECTS,
                                     detail=f"more than {MAX_ROBOTS_HOPS} redirects")
        self._robots[job.job_id] = (asked, hops + 1)
        self._hops.append(replace(job, url=answer.location))  # the runtime's request, one hop on
        return None

    def _send_hops(self) -> None:
        """Each waiting hop the policy allows to an agent, as a request of its own (audited);
        one it refuses answers its robots.txt job as refused."""
        while self._hops and self.policy is not None and self.pool.free():
            now = time.monotonic()
            if self.policy.wait(now) > 0:
                return
            hop = self._hops.pop(0)
            reason = self.policy.decide(hop.url, "robots", now)
            if reason is None:
                self.sent += 1
                self.pool.submit(hop)
                continue
            asked, _ = self._robots.pop(hop.job_id)
            self._refused.append((asked, RobotsFile(asked.job_id, asked.url, None, reason=REFUSED,
                                                    detail=f"redirect to {hop.url}: {reason}")))


def _refusal(job: Retrieve, reason: str) -> Answer:
    if job.kind == "robots":
        return RobotsFile(job.job_id, job.url, None, reason=REFUSED, detail=reason)
    return Failure(job.job_id, job.url, REFUSED, reason)
