"""Relocation (SPHINX section 5): a crawl definition run on another machine's workbench.

`webcrawler crawl definition.json --on http://HOST:PORT/` posts the definition
(JSON, never code) to that workbench's API, follows its event stream, and
downloads the result. The crawl runs there, under that host's RequestPolicy
(its operator's allowed hosts, rate, byte budget and audit log).

This is a client of the workbench API, not a crawler: it talks only to the
workbench it was given (stdlib urllib, so the agents remain the only code that
fetches Web pages), and every wait is bounded by the definition's time limit.
The other workbench is not trusted: the URLs it answers must be on the origin
the client was given (no redirects are followed), every answer is bounded in size
(an event line, the start answer, the result), and an answer missing a field is a
RemoteError of one line, never a traceback.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import urljoin, urlsplit

from webcrawler.errors import ServiceError

READ_TIMEOUT = 60.0  # seconds without a byte from the workbench (it sends keep-alives every 10)
GRACE = 120.0  # seconds past the crawl's time limit before the client gives up
MAX_ANSWER = 1 << 20  # bytes of the start answer, and of one event line
MAX_RESULT = 2 << 30  # bytes of the downloaded result
CHUNK = 1 << 16
SAFE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}")
SUMMARY_FIELDS = ("pages", "bytes", "stop_reason")


class RemoteError(ServiceError):
    """The other workbench refused the crawl, could not be reached, or answered something
    this client will not take; str() is one line."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer like any other: it leads nowhere the client was not given."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def on_origin(base: str, given: Any, field: str) -> str:
    """`given` (a URL the workbench at `base` answered) resolved against `base`, refused
    unless it is an http(s) URL on `base`'s own origin."""
    if not isinstance(given, str) or not given or len(given) > 2000:
        raise RemoteError(f"{base} answered without a usable {field}")
    url = urljoin(base, given)
    if _origin(url) != _origin(base) or _origin(url)[0] not in ("http", "https"):
        raise RemoteError(f"{base} answered a {field} on another origin ({url[:100]!r}): refused")
    return url


def _request(url: str, token: str | None, data: dict[str, Any] | None = None) -> Any:
    body = json.dumps(data).encode() if data is not None else None
    headers = {"Content-Type": "application/json"} if body else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET",
                                     headers=headers)
    return _OPENER.open(request, timeout=READ_TIMEOUT)


def _read_json(answer: IO[bytes], base: str) -> Any:
    raw = answer.read(MAX_ANSWER + 1)
    if len(raw) > MAX_ANSWER:
        raise RemoteError(f"{base} answered more than {MAX_ANSWER} bytes: refused")
    try:
        return json.loads(raw)
    except ValueError:
        raise RemoteError(f"{base} answered something that is not JSON") from None


def submit(base: str, definition: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    """Start the crawl on the workbench at `base`; its answer (id, events_url, result_url),
    the URLs checked to be on `base`'s origin."""
    if urlsplit(base).scheme not in ("http", "https") or not urlsplit(base).hostname:
        raise RemoteError(f"--on needs an http(s) URL of a workbench, not {base!r}")
    try:
        with _request(urljoin(base, "/api/crawls"), token, definition) as answer:
            if answer.status != 202:
                raise RemoteError(f"{base} answered {answer.status}, not 202: is it a workbench?")
            started = _read_json(answer, base)
    except urllib.error.HTTPError as error:
        raise RemoteError(f"{base} refused the crawl ({error.code}): {_message(error)}") from None
    except (urllib.error.URLError, OSError) as error:
        raise RemoteError(f"cannot reach the workbench at {base}: {error}") from None
    if not isinstance(started, dict):
        raise RemoteError(f"{base} answered a crawl start that is not a JSON object")
    return {field: on_origin(base, started.get(field), field)
            for field in ("events_url", "result_url")}


def events(base: str, started: dict[str, Any], seconds: float,
           token: str | None = None) -> Iterator[dict[str, Any]]:
    """The crawl's events as the other workbench streams them, until it ends."""
    deadline = time.monotonic() + seconds + GRACE
    try:
        with _request(started["events_url"], token) as stream:
            while time.monotonic() <= deadline:
                raw = stream.readline(MAX_ANSWER + 1)
                if not raw:
                    return
                if len(raw) > MAX_ANSWER:
                    raise RemoteError(f"{base} sent an event line longer than {MAX_ANSWER} bytes: "
                                      "refused")
                line = raw.decode("utf-8", "replace").rstrip("\n")
                if line.startswith("event: end"):
                    return
                if line.startswith("data: "):
                    event = json.loads(line[6:])
                    if not isinstance(event, dict):
                        raise RemoteError(f"{base} sent an event that is not a JSON object")
                    yield event
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise RemoteError(f"lost the event stream of {base}: {error}") from None


def download(base: str, started: dict[str, Any], name: Any, out_dir: Path,
             token: str | None = None) -> Path:
    """The result, saved in `out_dir` under the name it has on the other workbench (a plain
    file name: anything else is refused), at most MAX_RESULT bytes."""
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name):
        raise RemoteError(f"{base} named its result {str(name)[:100]!r}: not a plain file name")
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / name
    partial = out_dir / f".{name}.part"
    try:
        with _request(started["result_url"], token) as answer, partial.open("wb") as out:
            copied = 0
            while chunk := answer.read(CHUNK):
                copied += len(chunk)
                if copied > MAX_RESULT:
                    raise RemoteError(f"the result from {base} is larger than {MAX_RESULT} bytes: "
                                      "refused")
                out.write(chunk)
        partial.replace(target)
    except (urllib.error.URLError, OSError) as error:
        raise RemoteError(f"could not download the result from {base}: {error}") from None
    finally:
        partial.unlink(missing_ok=True)
    return target


def run_remote(base: str, definition: dict[str, Any], out_dir: Path,
               emit: Callable[[dict[str, Any]], None], token: str | None = None) -> dict[str, Any]:
    """Submit, follow and download: the "finished" event (its result now a local file name)."""
    started = submit(base, definition, token)
    seconds = float((definition.get("limits") or {}).get("seconds") or 3600)
    finished: dict[str, Any] | None = None
    for event in events(base, started, seconds, token):
        if event.get("t") == "finished":
            event = finished = checked_finish(base, event)
        emit(event)
    if finished is None:
        raise RemoteError(f"the crawl on {base} ended without a result (see its workbench)")
    if finished.get("result"):
        download(base, started, finished["result"], out_dir, token)
    return finished


def checked_finish(base: str, event: dict[str, Any]) -> dict[str, Any]:
    """The "finished" event with only what the client prints, each of the type it expects
    (text made printable and short); RemoteError (one line) for a malformed one."""
    from webcrawler.toolkit.model import Summary

    given = event.get("summary")
    if not isinstance(given, dict) or any(field not in given for field in SUMMARY_FIELDS):
        raise RemoteError(f"{base} finished the crawl without a summary: malformed answer")
    summary = {}
    for name, default in Summary().as_dict().items():
        value = given.get(name, default)
        kinds = (int, float) if isinstance(default, float) else (type(default),)
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise RemoteError(f"{base} finished the crawl with a malformed summary ({name})")
        summary[name] = _printable(value) if isinstance(value, str) else value
    action, errors = event.get("action") or "", event.get("errors") or []
    if not isinstance(action, str) or not isinstance(errors, list):
        raise RemoteError(f"{base} finished the crawl with a malformed action or errors")
    return {"t": "finished", "summary": summary, "action": _printable(action),
            "result": event.get("result"), "errors": [_printable(str(e)) for e in errors[:20]]}


def _printable(text: str, longest: int = 500) -> str:
    """Text from another machine, safe to print on a terminal: no control characters."""
    return "".join(c if c.isprintable() else " " for c in text[:longest])


def _message(error: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(error.read(MAX_ANSWER)).get("error", error.reason))[:300]
    except (ValueError, AttributeError, OSError):
        return str(error.reason)
    finally:
        error.close()
