"""Small helpers the workbench tests share."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll `condition` until it holds; AssertionError(`what`) after `timeout` seconds."""
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, what
        time.sleep(0.1)
