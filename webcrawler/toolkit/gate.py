"""The one way a toolkit crawl reaches the network: the agent pool, behind the request policy.

Every request of a personal crawl (documents and robots.txt alike) is handed
to `PolicedPool.submit`, which asks the `RequestPolicy` first and audits the
decision; a refused request never reaches an agent and is answered here, as
data, like any failure (`Failure` / `RobotsFile` with reason "policy"). The
crawler's callbacks hold no pool and no agent, so this is the path every
fetch takes (SPHINX section 5: the host's policy on relocated crawlers).
"""

from __future__ import annotations

import time

from webcrawler.engine.interfaces import Pool
from webcrawler.messages import Answer, Document, Failure, Reason, Retrieve, RobotsFile
from webcrawler.toolkit.policy import RequestPolicy

REFUSED = Reason.POLICY  # the Failure reason of a request the policy refused


class PolicedPool:
    """A `Pool` (any: local agents, agent hosts, in-process) whose every request passes
    the policy."""

    def __init__(self, pool: Pool, policy: RequestPolicy | None) -> None:
        self.pool = pool
        self.policy = policy
        self._refused: list[tuple[Retrieve, Answer]] = []
        self.sent = 0

    def free(self) -> int:
        return self.pool.free()

    def busy(self) -> int:
        return self.pool.busy() + len(self._refused)

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
        self.sent += 1
        self.pool.submit(job)
        return True

    def poll(self, timeout: float) -> list[tuple[Retrieve, Answer]]:
        """Answers that arrived (refusals first, without waiting)."""
        if self._refused:
            refused, self._refused = self._refused, []
            return refused + self.pool.poll(0.0)
        answers = self.pool.poll(timeout)
        if self.policy is not None:
            for _, answer in answers:
                if isinstance(answer, Document):
                    self.policy.received(answer.length)
                elif isinstance(answer, RobotsFile):
                    self.policy.received(len(answer.body.encode("utf-8", "replace")))
        return answers

    def shutdown(self) -> None:
        self.pool.shutdown()


def _refusal(job: Retrieve, reason: str) -> Answer:
    if job.kind == "robots":
        return RobotsFile(job.job_id, job.url, None, reason=REFUSED, detail=reason)
    return Failure(job.job_id, job.url, REFUSED, reason)
