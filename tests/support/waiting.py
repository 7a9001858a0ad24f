"""Waiting in tests for a condition, never for a fixed time.

A test that sleeps a fixed time is slow when the machine is idle and flaky
when it is loaded; `wait_until` polls the condition instead and returns as
soon as it holds, with the condition's value, or fails the test with a
message once `timeout` seconds have passed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T], timeout: float, what: str = "the condition",
               interval: float = 0.05) -> T:
    """The first truthy value of `condition()`, polled every `interval` seconds; an
    AssertionError naming `what` when none came within `timeout` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= end:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        time.sleep(interval)
