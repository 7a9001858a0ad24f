"""Relocation (SPHINX section 5): a crawl definition run on another machine's workbench.

`webcrawler crawl definition.json --on http://HOST:PORT/` posts the definition
(JSON, never code) to that workbench's API, follows its event stream, and
downloads the result. The crawl runs there, under that host's RequestPolicy
(its operator's allowed hosts, rate, byte budget and audit log).

This is a client of the workbench API, not a crawler: it talks only to the
workbench it was given (stdlib urllib, so the agents remain the only code that
fetches Web pages), and every wait is bounded by the definition's time limit.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from webcrawler.errors import ServiceError

READ_TIMEOUT = 60.0  # seconds without a byte from the workbench (it sends keep-alives every 10)
GRACE = 120.0  # seconds past the crawl's time limit before the client gives up


class RemoteError(ServiceError):
    """The other workbench refused the crawl or could not be reached; str() is one line."""


def _request(url: str, data: dict[str, Any] | None = None) -> Any:
    body = json.dumps(data).encode() if data is not None else None
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET",
                                     headers={"Content-Type": "application/json"} if body else {})
    return urllib.request.urlopen(request, timeout=READ_TIMEOUT)  # noqa: S310 - http(s) checked


def submit(base: str, definition: dict[str, Any]) -> dict[str, Any]:
    """Start the crawl on the workbench at `base`; its answer (id, events_url, result_url)."""
    if urlsplit(base).scheme not in ("http", "https"):
        raise RemoteError(f"--on needs an http(s) URL of a workbench, not {base!r}")
    try:
        with _request(urljoin(base, "/api/crawls"), definition) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as error:
        raise RemoteError(f"{base} refused the crawl ({error.code}): {_message(error)}") from None
    except (urllib.error.URLError, OSError) as error:
        raise RemoteError(f"cannot reach the workbench at {base}: {error}") from None


def events(base: str, started: dict[str, Any], seconds: float) -> Iterator[dict[str, Any]]:
    """The crawl's events as the other workbench streams them, until it ends."""
    deadline = time.monotonic() + seconds + GRACE
    try:
        with _request(urljoin(base, started["events_url"])) as stream:
            for raw in stream:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith("event: end") or time.monotonic() > deadline:
                    return
                if line.startswith("data: "):
                    yield json.loads(line[6:])
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise RemoteError(f"lost the event stream of {base}: {error}") from None


def download(base: str, started: dict[str, Any], name: str, out_dir: Path) -> Path:
    """The result, saved in `out_dir` under the name it has on the other workbench."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / Path(name).name
    try:
        with _request(urljoin(base, started["result_url"])) as answer:
            target.write_bytes(answer.read())
    except (urllib.error.URLError, OSError) as error:
        raise RemoteError(f"could not download the result from {base}: {error}") from None
    return target


def run_remote(base: str, definition: dict[str, Any], out_dir: Path,
               emit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Submit, follow and download: the "finished" event (its result now a local file name)."""
    started = submit(base, definition)
    seconds = float((definition.get("limits") or {}).get("seconds") or 3600)
    finished: dict[str, Any] | None = None
    for event in events(base, started, seconds):
        emit(event)
        if event.get("t") == "finished":
            finished = event
    if finished is None:
        raise RemoteError(f"the crawl on {base} ended without a result (see its workbench)")
    if finished.get("result"):
        download(base, started, finished["result"], out_dir)
    return finished


def _message(error: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(error.read()).get("error", error.reason))
    except (ValueError, AttributeError, OSError):
        return str(error.reason)
    finally:
        error.close()
