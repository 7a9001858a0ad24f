"""The total timeout cuts every phase of a fetch, by the agent itself (deadline.py's watchdog).

The servers here drip their answer one byte per 0.3 s: never slow enough
for a 0.5 s read timeout, and finished after about 5-7 s, so that a fetch
not cut at FAST's 2 s total timeout comes back as a document (and the test
fails) rather than hanging. Elapsed bounds are correctness bounds: the
engine's own hang watchdog fires only at total_timeout + 15 s.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from webcrawler.agents.deadline import Watchdog
from webcrawler.agents.fetch import Fetcher
from webcrawler.agents.worker import READY
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.protocol.messages import Document, Failure, Reason, Retrieve, RobotsFile

from .conftest import FAST, agent_process
from .rawserver import RawServer, at_once, drip

ADDRESS = "127.0.2.20"
PAUSE = 0.3  # below FAST.read_timeout: no single read ever times out
BOUND = FAST.total_timeout + 3  # "well before total_timeout + 15"
STATUS = b"HTTP/1.1 200 OK\r\n"
REST = b"Content-Type: text/html\r\nContent-Length: 21\r\n\r\n<title>late</title>\r\n"

pytestmark = pytest.mark.wallclock  # deadlines and timeouts on the wall clock


def drip_status(head: bytes):
    yield from drip(STATUS, PAUSE)  # 17 bytes: 5.1 s
    yield from at_once(REST)


def drip_headers(head: bytes):
    yield from at_once(STATUS)
    yield from drip(b"X-Slow: " + b"a" * 12 + b"\r\n", PAUSE)  # 22 bytes: 6.6 s
    yield from at_once(REST)


def endless_continue(head: bytes):
    for _ in range(20):  # one interim "100 Continue" every 0.3 s: 6 s in all
        yield PAUSE, b"HTTP/1.1 100 Continue\r\n\r\n"
    yield from at_once(STATUS + REST)


def robots_redirect_then_drip(head: bytes):
    if head.startswith(b"GET /robots.txt "):
        yield from at_once(b"HTTP/1.1 301 Moved\r\nLocation: /elsewhere.txt\r\n"
                           b"Content-Length: 0\r\n\r\n")
        return
    yield from at_once(STATUS + b"Content-Type: text/plain\r\n")
    yield from drip(b"X-Slow: " + b"a" * 12 + b"\r\n", PAUSE)
    yield from at_once(b"Content-Length: 0\r\n\r\n")


@pytest.mark.parametrize("script", [drip_status, drip_headers, endless_continue],
                         ids=["status", "headers", "100-continue"])
def test_dripping_status_line_or_headers_is_cut_at_the_total_timeout(script) -> None:
    with RawServer(ADDRESS, script) as server, Fetcher(FAST) as fetcher:
        started = time.monotonic()
        answer = fetcher.retrieve(Retrieve(1, server.url("/")))
        elapsed = time.monotonic() - started
    assert isinstance(answer, Failure), answer
    assert answer.reason == Reason.TIMEOUT and "2 s" in answer.detail
    assert elapsed < BOUND


def test_robots_redirect_chain_is_cut_at_the_total_timeout() -> None:
    with RawServer(ADDRESS, robots_redirect_then_drip) as server, Fetcher(FAST) as fetcher:
        started = time.monotonic()
        answer = fetcher.retrieve(Retrieve(2, server.url("/robots.txt"), "robots"))
        elapsed = time.monotonic() - started
        assert len(server.requests) == 2  # the redirect was followed, then cut
    assert isinstance(answer, RobotsFile)
    assert (answer.status, answer.reason) == (None, Reason.TIMEOUT)
    assert elapsed < BOUND


def test_a_cut_fetch_leaves_the_next_one_alone() -> None:
    routes = {"/": html("Fine", "after a cut")}
    with RawServer(ADDRESS, drip_headers) as server, \
            LoopbackWeb([Site("127.0.2.21", routes)]) as web, Fetcher(FAST) as fetcher:
        first = fetcher.retrieve(Retrieve(1, web.url("127.0.2.21", "/")))
        cut = fetcher.retrieve(Retrieve(2, server.url("/")))
        again = fetcher.retrieve(Retrieve(3, web.url("127.0.2.21", "/")))  # kept-alive socket
    assert isinstance(first, Document) and isinstance(again, Document)
    assert isinstance(cut, Failure) and cut.reason == Reason.TIMEOUT


def test_a_kept_alive_connection_is_cut_too() -> None:
    def script(head: bytes):
        if head.startswith(b"GET /fast "):
            return at_once(STATUS + REST)
        return drip_headers(head)

    with RawServer(ADDRESS, script) as server, Fetcher(FAST) as fetcher:
        fast = fetcher.retrieve(Retrieve(1, server.url("/fast")))
        started = time.monotonic()
        slow = fetcher.retrieve(Retrieve(2, server.url("/slow")))
        elapsed = time.monotonic() - started
        assert server.connections == 1  # the second request reused the first one's socket
    assert isinstance(fast, Document) and fast.title == "late"
    assert isinstance(slow, Failure) and slow.reason == Reason.TIMEOUT and elapsed < BOUND


def test_agent_process_cuts_dripping_headers_itself() -> None:
    with RawServer(ADDRESS, drip_headers) as server, agent_process(FAST) as (parent, process):
        assert parent.poll(10) and parent.recv() == READY
        started = time.monotonic()
        parent.send(Retrieve(5, server.url("/slow")))
        assert parent.poll(BOUND)
        answer = parent.recv()
        elapsed = time.monotonic() - started
    assert isinstance(answer, Failure) and answer.reason == Reason.TIMEOUT
    assert elapsed < BOUND and process.exitcode == 0


def test_watchdog_wakes_a_blocked_recv_only_after_its_deadline() -> None:
    watchdog = Watchdog()
    left, right = socket.socketpair()
    try:
        watchdog.arm(time.monotonic() + 60)
        watchdog.watch(left)
        right.sendall(b"x")
        assert left.recv(1) == b"x"  # not cut before the deadline
        assert watchdog.disarm() is False
        watchdog.arm(time.monotonic() + 0.2)
        watchdog.watch(left)
        left.settimeout(10)
        assert left.recv(1) == b""  # woken by the shutdown, not by the 10 s timeout
        assert watchdog.disarm() is True
    finally:
        left.close()
        right.close()
        watchdog.close()


def test_a_later_deadline_armed_while_the_watchdog_sleeps_towards_an_earlier_one_still_cuts() -> None:
    """`arm` does not wake a thread asleep towards an earlier deadline: it wakes then, finds the
    later one and waits on for it, neither cutting at the earlier one nor forgetting the later."""
    watchdog = Watchdog()
    left, right = socket.socketpair()
    try:
        watchdog.arm(time.monotonic() + 0.2)  # the thread sleeps towards this one
        assert watchdog.disarm() is False
        watchdog.arm(time.monotonic() + 0.8)
        watchdog.watch(left)
        time.sleep(0.4)  # past the first deadline: the thread woke and went back to sleep
        right.sendall(b"x")
        assert left.recv(1) == b"x"  # not cut at the earlier deadline
        left.settimeout(10)
        assert left.recv(1) == b""  # cut at the later one, not by the 10 s timeout
        assert watchdog.disarm() is True
    finally:
        left.close()
        right.close()
        watchdog.close()


# Run in a process of its own: the watchdog takes the process's SIGALRM and its timer, which
# pytest-timeout uses in this one.
_ALARM = """
import signal, socket, threading, time
from webcrawler.agents.deadline import AlarmWatchdog
watchdog = AlarmWatchdog()
left, right = socket.socketpair()
watchdog.arm(time.monotonic() + 60)
watchdog.watch(left)
right.sendall(b"x")
print(left.recv(1), watchdog.disarm())  # not cut before the deadline
watchdog.arm(time.monotonic() + 0.2)
assert watchdog.disarm() is False  # disarmed in time: its alarm never cuts
time.sleep(0.4)
watchdog.arm(time.monotonic() + 0.2)
watchdog.watch(left)
left.settimeout(10)
print(left.recv(1), watchdog.disarm())  # woken by the shutdown, not by the 10 s timeout
watchdog.arm(time.monotonic() - 1)  # armed past its deadline: a socket registered is cut at once
watchdog.watch(left)
print(left.recv(1), watchdog.disarm())
watchdog.close()
print(threading.active_count(), signal.getsignal(signal.SIGALRM) is signal.SIG_DFL)
"""


def test_the_alarm_watchdog_cuts_a_blocked_recv_at_its_deadline_without_a_thread() -> None:
    done = subprocess.run([sys.executable, "-c", _ALARM], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split("\n") == [
        "b'x' False", "b'' True", "b'' True", "1 True", ""]


def test_a_fetcher_cut_by_alarm_starts_no_thread() -> None:
    """An agent's deadlines are cut by SIGALRM (`Fetcher(alarm=True)`): a process that never
    starts a thread keeps glibc's malloc off its locked path (docs/measurements.md)."""
    with Fetcher(FAST, alarm=False) as fetcher:
        assert isinstance(fetcher.watchdog, Watchdog)
    script = ("import threading\n"
              "from webcrawler.agents.fetch import Fetcher\n"
              "from webcrawler.agents.deadline import AlarmWatchdog\n"
              "from webcrawler.protocol.messages import AgentConfig\n"
              "with Fetcher(AgentConfig(), alarm=True) as fetcher:\n"
              "    print(type(fetcher.watchdog) is AlarmWatchdog, threading.active_count())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout == "True 1\n"
