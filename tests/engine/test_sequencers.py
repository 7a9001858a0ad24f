"""Sequencers and the server-first scheduler, on their own (no I/O, no clock)."""

from webcrawler.engine.records import ServerState
from webcrawler.engine.scheduling.scheduler import Scheduler
from webcrawler.engine.scheduling.sequencers import (
    FifoQueue,
    PriorityAggregator,
    PriorityQueue,
    RoundRobinAggregator,
)


def drain(seq):
    out = []
    while seq.has_next():
        out.append(seq.next())
    return out


def test_fifo_and_priority_queue_orders():
    fifo = FifoQueue()
    for x in "abc":
        fifo.push(x)
    assert fifo.backlog() == 3 and drain(fifo) == ["a", "b", "c"]
    pq = PriorityQueue()
    for key, x in [(3, "c"), (1, "a"), (2, "b"), (1, "a2")]:
        pq.push(x, key)
    assert drain(pq) == ["a", "a2", "b", "c"]


def test_priority_queue_discard_and_repush_is_lazy():
    pq = PriorityQueue()
    item = ["x"]
    pq.push(item, 5)
    pq.push(["y"], 3)
    pq.push(item, 1)  # re-push with a new key replaces the old entry
    assert pq.backlog() == 2
    assert pq.next() is item
    assert pq.next() == ["y"]
    assert not pq.has_next()


def test_round_robin_takes_in_turn():
    a, b = FifoQueue(), FifoQueue()
    for x in "a1 a2 a3".split():
        a.push(x)
    b.push("b1")
    assert drain(RoundRobinAggregator([a, b])) == ["a1", "b1", "a2", "a3"]


class Blocked(FifoQueue):
    """Holds work that is not ready."""

    def backlog(self):
        return 1


def test_strict_priority_aggregator_waits_for_first_child():
    later = FifoQueue()
    later.push("second")
    assert not PriorityAggregator([Blocked(), later], strict=True).has_next()
    assert PriorityAggregator([Blocked(), later], strict=False).next() == "second"


def server(i, queued=3, visited=False, last=0.0):
    return ServerState(id=i, origin=f"http://s{i}", queued=queued, visited=visited,
                       last_access=last, robots=object())


def test_server_first_new_servers_before_any_second_document():
    sched = Scheduler(delay=1.0)
    old = server(1, visited=True, last=5.0)
    sched.add(old, now=0.0)
    sched.add(server(2), now=0.0)
    sched.add(server(3), now=0.0)
    first = sched.next_server(0.0)
    sched.dispatched(first)
    second = sched.next_server(0.0)
    sched.dispatched(second)
    assert {first.id, second.id} == {2, 3}
    # Both new servers are busy: the visited server must still wait (strict order).
    assert sched.next_server(0.0) is None
    sched.answered(first, 0.0, first_document_done=True)
    assert sched.next_server(0.0) is None  # server 3's first document is still out
    sched.answered(second, 0.0, first_document_done=True)
    assert sched.next_server(0.5).id == 1  # the old server, while the others cool down
    nxt = sched.next_server(1.0)
    assert nxt.id in (2, 3)


def test_least_recently_accessed_server_goes_first_and_delay_is_kept():
    sched = Scheduler(delay=2.0)
    a, b = server(1, visited=True, last=10.0), server(2, visited=True, last=3.0)
    sched.add(a, 0.0)
    sched.add(b, 0.0)
    got = sched.next_server(0.0)
    assert got is b
    sched.dispatched(b)
    b.last_access = 20.0
    sched.answered(b, now=1.0, first_document_done=True)
    assert sched.next_server(1.0) is a
    sched.dispatched(a)
    sched.answered(a, now=1.5, first_document_done=True)
    assert sched.next_server(2.9) is None  # b may go again at 3.0, a at 3.5
    assert sched.next_wakeup() == 3.0
    assert sched.next_server(3.0) is b


def test_server_without_work_is_parked_until_work_added():
    sched = Scheduler(delay=0.0)
    s = server(1, queued=0)
    sched.add(s, 0.0)
    assert sched.next_server(0.0) is None and sched.ready() == 0
    s.queued = 1
    sched.work_added(s, 0.0)
    assert sched.next_server(0.0) is s


def test_deferred_new_server_does_not_hold_back_others():
    sched = Scheduler(delay=0.0)
    a, b = server(1), server(2, visited=True)
    sched.add(a, 0.0)
    sched.add(b, 0.0)
    got = sched.next_server(0.0)
    assert got is a
    sched.defer(a, until=100.0)  # e.g. robots.txt answered 503
    assert sched.next_server(0.0) is b
