"""Background builds stand aside while a query runs in another thread, never inside one,
and keep what they made out of the cyclic collector's walks."""

from __future__ import annotations

import gc
import threading

import pytest

from webcrawler.index import background


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The builder's sleeps, recorded instead of slept; it looks at every step."""
    slept: list[float] = []
    monkeypatch.setattr(background, "YIELD_SECONDS", 0.0)
    monkeypatch.setattr(background.time, "sleep", slept.append)
    return slept


def _query_in_another_thread() -> tuple[threading.Event, threading.Thread]:
    started, finish = threading.Event(), threading.Event()

    def query() -> None:
        with background.foreground():
            started.set()
            finish.wait(10)

    thread = threading.Thread(target=query)
    thread.start()
    started.wait(10)
    return finish, thread


def test_a_build_steps_on_when_no_query_runs(sleeps: list[float]) -> None:
    pacer = background.Pacer()
    for _ in range(100):
        pacer.step()
    assert sleeps == []


def test_a_build_stands_aside_while_another_thread_queries_at_most_max_wait(
        sleeps: list[float]) -> None:
    finish, thread = _query_in_another_thread()
    try:
        background.Pacer().step()
    finally:
        finish.set()
        thread.join(10)
    assert sleeps and all(s == background.STAND_ASIDE for s in sleeps)
    assert sum(sleeps) == pytest.approx(background.MAX_WAIT)


def test_a_build_inside_a_query_never_waits_for_other_queries(sleeps: list[float]) -> None:
    finish, thread = _query_in_another_thread()
    try:
        with background.foreground(), background.foreground():  # nested: still this query
            pacer = background.Pacer()
            for _ in range(10):
                pacer.step()
        assert sleeps == []
        background.Pacer().step()  # out of the query again: this thread is a builder
        assert sleeps
    finally:
        finish.set()
        thread.join(10)


def test_what_a_build_made_is_frozen_every_freeze_steps(
        sleeps: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "FREEZE_STEPS", 10)
    gc.unfreeze()
    pacer = background.Pacer()
    made = []
    for i in range(10):
        made.append([i])  # tracked by the collector until frozen
        pacer.step()
    try:
        assert gc.get_freeze_count() >= len(made)
    finally:
        gc.unfreeze()
