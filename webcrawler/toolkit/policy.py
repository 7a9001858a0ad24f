"""RequestPolicy: a host's rules for the requests a personal crawler may make.

SPHINX section 5 (relocatable crawlers): a crawler uploaded to a server runs
under that server's page-request policy, which decides which requests it may
make, how fast, and how many bytes it may pull. Here the policy is a filter
on every request of a crawl, robots.txt included: allowed and denied hosts
and URL patterns, a maximum request rate, a byte budget, and an audit log of
every request with the decision and its reason.

The policy only decides and records; `gate.PolicedPool` applies it in the
one path every request takes to the agents, so no crawler code can get round it.
"""

from __future__ import annotations

import fnmatch
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webcrawler.errors import ToolkitError
from webcrawler.toolkit.model import check_bounds
from webcrawler.toolkit.patterns import Pattern, Wildcard


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One request the policy saw: when, what, and whether it went out (and why not)."""

    time: float  # wall clock
    url: str
    kind: str  # "document" / "page" or "robots"
    allowed: bool
    reason: str  # "allowed", or why it was refused

    def as_dict(self) -> dict[str, Any]:
        return {"time": self.time, "url": self.url, "kind": self.kind,
                "allowed": self.allowed, "reason": self.reason}


@dataclass
class RequestPolicy:
    """Which requests a crawl may make. Hosts are names (`www.example.edu`, `127.0.0.1:8080`)
    or shell wildcards (`*.example.edu`); URL patterns are `Pattern`s or wildcard strings.
    An empty allow list allows everything the deny lists do not deny. `max_rate` is in
    requests per second over the whole crawl; `max_bytes` bounds the bytes received.
    `audit_path`, when given, receives the audit log as JSON lines."""

    allowed_hosts: Sequence[str] = ()
    denied_hosts: Sequence[str] = ()
    allowed_urls: Sequence[Pattern | str] = ()
    denied_urls: Sequence[Pattern | str] = ()
    max_rate: float | None = None
    max_bytes: int | None = None
    audit_path: Path | str | None = None
    audit: list[AuditEntry] = field(default_factory=list)
    bytes_received: int = 0
    _last_request: float = field(default=float("-inf"), repr=False)

    def __post_init__(self) -> None:
        """Bounds that are not numbers, or negative, and an audit log whose folder is missing
        are refused here in one line (they were a TypeError or an OSError mid-crawl, or a
        budget spent before the first request)."""
        check_bounds("RequestPolicy", {"max_rate": self.max_rate, "max_bytes": self.max_bytes})
        if self.audit_path is not None and not Path(self.audit_path).parent.is_dir():
            raise ToolkitError(f"RequestPolicy(audit_path={str(self.audit_path)!r}): its folder "
                               "does not exist")

    def why_refused(self, url: str) -> str | None:
        """None when a request for `url` may go out now (rate aside), else the reason."""
        host = urlsplit(url).netloc.lower()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if _any_host(self.denied_hosts, host, name):
            return f"host {host} is denied"
        if self.allowed_hosts and not _any_host(self.allowed_hosts, host, name):
            return f"host {host} is not allowed"
        if any(_pattern(p).matches(url) for p in self.denied_urls):
            return "URL matches a denied pattern"
        if self.allowed_urls and not any(_pattern(p).matches(url) for p in self.allowed_urls):
            return "URL matches no allowed pattern"
        if self.max_bytes is not None and self.bytes_received >= self.max_bytes:
            return f"byte budget of {self.max_bytes} spent"
        return None

    def wait(self, now: float) -> float:
        """Seconds before the next request may go out under `max_rate` (0: now)."""
        if not self.max_rate:
            return 0.0
        return max(0.0, self._last_request + 1.0 / self.max_rate - now)

    def decide(self, url: str, kind: str, now: float) -> str | None:
        """Decide on one request and audit it: None (it goes out now) or the refusal reason.
        The caller waits out `wait()` first; a request sent early is refused."""
        reason = self.why_refused(url)
        if reason is None and self.wait(now) > 0:
            reason = f"over the rate of {self.max_rate:g} requests per second"
        if reason is None:
            self._last_request = now
        self.record(url, kind, reason)
        return reason

    def received(self, length: int) -> None:
        """Bytes of an answer, counted against the budget."""
        self.bytes_received += max(0, length)

    def record(self, url: str, kind: str, reason: str | None) -> None:
        entry = AuditEntry(time.time(), url, kind, reason is None, reason or "allowed")
        self.audit.append(entry)
        if self.audit_path is not None:
            with Path(self.audit_path).open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry.as_dict()) + "\n")

    def refused(self) -> list[AuditEntry]:
        return [entry for entry in self.audit if not entry.allowed]


def _any_host(patterns: Iterable[str], host: str, name: str) -> bool:
    return any(fnmatch.fnmatchcase(host, p.lower()) or fnmatch.fnmatchcase(name, p.lower())
               for p in patterns)


def _pattern(pattern: Pattern | str) -> Pattern:
    return pattern if isinstance(pattern, Pattern) else Wildcard(pattern)
