"""Render a fetched page in headless Chromium, for pages whose text their scripts write.

Playwright drives the system's Chromium (`CHROMIUM`, Debian's package), never a browser
it downloaded. The browser starts on the first page to render and serves every later one
of this agent; a page gets a fresh context (no cookies, no storage, service workers
blocked). The browser itself reaches no network: every request of the page, of its frames
and of any popup goes through the context's route, which answers

- the page's own navigation with the markup the agent already fetched (the page is never
  fetched twice, and was fetched only after robots.txt allowed it);
- at most `MAX_SUBRESOURCES` scripts and data requests (XHR, fetch) of the page's own
  origin through the agent's `fetch` (its HTTP session: address checks, credentials,
  byte cap and deadline hold);
- everything else (other hosts, pictures, fonts, frames, popups, other navigations) with
  an abort.

WebSockets are closed before they connect, popups closed as they open. What no route sees
is shut in the browser itself (`ARGS`): WebRTC sends no UDP (no STUN, no TURN), no name or
address is resolved (`--host-resolver-rules`), so a script cannot leak a page as DNS
lookups or packets, and a worker's request or a preconnect connects nowhere; Chromium's
background services are off, and there is no proxy at all (a dead one on a loopback port
would become whoever listens there).

Time: a page gets `timeout` seconds at most; a script that never yields keeps the browser
busy past any Playwright timeout, so a watch (`_Watch`) kills the browser's processes at the
deadline and the next page starts a new one. Memory: V8's heap is capped per renderer, the agent's budget
(`--agent-memory-mb`) counts its browser (footprint.py): measured every tenth of a second
during a render, which ends the browser past it, and after every page, which closes a
browser that leaves too little room for the next. Size: rendered markup over `--max-bytes`
is refused like a fetched body. A render that fails for any reason yields None: the page is
indexed as fetched. Never raises.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import psutil

from webcrawler.agents.footprint import with_descendants
from webcrawler.config.kinds import ConfigError
from webcrawler.errors import ExtraMissing, FetchError, needs_extra

log = logging.getLogger(__name__)

RENDER_MODES = ("never", "auto", "always")
CHROMIUM = "/usr/bin/chromium"  # Debian's chromium package
MAX_SUBRESOURCES = 20  # same-origin scripts and data requests answered per page
WATCH_EVERY = 0.1  # seconds between two measures of the agent's memory during a render
WATCH_SHARE = 0.9  # a render is ended past this share of the budget: the pool, which measures
#                    once a second and ends the whole agent past all of it, comes second
KEEP_SHARE = 0.6  # a browser is kept for the next page while the agent holds less than this
#                   share of its budget after a page (the next one starts with room to grow)
QUIET = 0.15  # seconds without a request answered after which a page's scripts are done
FETCHED_TYPES = ("script", "xhr", "fetch")  # what a page needs to write its text
ARGS = (
    "--headless", "--disable-gpu", "--disable-dev-shm-usage", "--disable-extensions",
    "--no-first-run", "--disable-quic", "--mute-audio", "--renderer-process-limit=2",
    "--js-flags=--max-old-space-size=256",
    # Chromium's own requests (updates, account checks, safe browsing, reports, pings): off.
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-domain-reliability", "--disable-client-side-phishing-detection",
    "--disable-breakpad", "--no-pings", "--disable-default-apps", "--no-service-autorun",
    # WebRTC and DNS: neither goes through a route, so both are shut in the browser itself.
    # No UDP but through a proxy (there is none that carries UDP): no STUN, no TURN, no ICE.
    "--webrtc-ip-handling-policy=disable_non_proxied_udp", "--force-webrtc-ip-handling-policy",
    # Every host name and address the network stack would resolve fails: what the routes
    # answer needs no lookup, and nothing else (a TURN server's name, a WebSocket's, a
    # worker's fetch, an update check's) gets one, so nothing connects anywhere.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--no-proxy-server",  # no proxy either, not even one the environment names
)
# Playwright turns Chromium's popup blocker off; it stays on (a popup is closed anyway).
IGNORED_DEFAULTS = ("--disable-popup-blocking",)


@dataclass(frozen=True, slots=True)
class Resource:
    """A subresource as the agent fetched it, for the browser."""

    status: int
    content_type: str
    body: bytes


Fetch = Callable[[str], "Resource | None"]


def require_renderer(mode: str, executable: str = CHROMIUM) -> None:
    """One line, before a crawl starts, when `mode` is unknown or rendering cannot work here."""
    if mode not in RENDER_MODES:
        raise ConfigError(f"render = {mode!r} (--render, WEBCRAWLER_RENDER or webcrawler.toml): "
                          f"choose from {', '.join(RENDER_MODES)}")
    if mode == "never":
        return
    try:
        import playwright  # noqa: F401 - named first, so a missing install names it
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        raise needs_extra("render", f"--render {mode}", exc) from None
    if not os.access(executable, os.X_OK):
        raise ExtraMissing(f"--render {mode} needs Chromium at {executable}, which is not "
                           "installed: apt-get install chromium")


class Renderer:
    """One browser for one agent, started on demand; `render` a page, `close` at the end."""

    def __init__(self, timeout: float, executable: str = CHROMIUM, *, max_bytes: int = 1 << 20,
                 memory_bytes: int = 512 << 20) -> None:
        self.timeout = timeout
        self.executable = executable
        self.max_bytes = max_bytes  # the rendered markup's cap, a fetched body's (--max-bytes)
        self.memory_bytes = memory_bytes  # the agent's budget, its browser included
        self._agent = psutil.Process()
        self._playwright: Any = None
        self._browser: Any = None
        self._browser_pid = 0
        self._broken = ""  # why this agent cannot render at all (said once)
        self._rendered = 0

    def render(self, url: str, html: str, fetch: Fetch, deadline: float) -> str | None:
        """The page's markup once its scripts ran, or None (failed, out of time, no browser)."""
        budget = min(self.timeout, deadline - time.monotonic())
        if self._broken or budget <= 0.5 or not self._ready():
            return None
        watch = _Watch(self, budget)
        watch.start()
        try:
            return self._page(url, html, fetch, budget)
        except Exception as exc:  # noqa: BLE001 - a page's failure is the page's, never the agent's
            why = watch.why or str(exc).splitlines()[0][:200]
            log.info("%s: not rendered (%s)", url, why)
            return None
        finally:
            watch.stop()
            self._check_browser()

    def close(self) -> None:
        for part in (self._browser, self._playwright):
            try:
                if part is not None:
                    part.close() if part is self._browser else part.stop()
            except Exception:  # noqa: BLE001,S110 - closing what may already be gone
                pass
        self._browser = self._playwright = None

    def footprint(self) -> int:
        """The agent's memory with its browser's and Playwright's driver's (footprint.py):
        what the pool holds to the agent's budget."""
        return with_descendants(self._agent)

    def _page(self, url: str, html: str, fetch: Fetch, budget: float) -> str:
        context = self._browser.new_context(service_workers="block", accept_downloads=False)
        try:
            router = _Router(url, html, fetch)
            context.route("**/*", router.answer)  # the context's: popups and frames too
            context.route_web_socket("**/*", _refuse_socket)  # never connected to a server
            page = router.page = context.new_page()
            context.on("page", _close_popup)  # any page after this one is a popup
            started = time.monotonic()
            page.goto(url, wait_until="load", timeout=budget * 700)
            _settle(page, router, started + budget * 0.8)
            return self._markup(page)
        finally:
            _quietly(context.close)

    def _ready(self) -> bool:
        """A connected browser, started now if need be; False (said once) if none can start."""
        if self._browser is not None and self._browser.is_connected():
            return True
        try:
            from playwright.sync_api import sync_playwright

            if self._playwright is None:
                self._playwright = sync_playwright().start()
            before = {p.pid for p in _chromium_processes()}
            self._browser = self._playwright.chromium.launch(
                executable_path=self.executable, headless=True, args=_args(),
                ignore_default_args=list(IGNORED_DEFAULTS),
                timeout=max(self.timeout, 10.0) * 1000)
            self._browser_pid = _browser_pid(before)
            return True
        except Exception as exc:  # noqa: BLE001 - no browser: pages are indexed as fetched
            self._broken = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            log.warning("cannot render pages: %s", self._broken)
            return False

    def _markup(self, page: Any) -> str:
        """The rendered markup, refused (RenderTooLarge) past `max_bytes` like a fetched body:
        its length is asked of the browser first, so an endless page is never copied out."""
        length = int(page.evaluate(_MARKUP_LENGTH))
        if length > self.max_bytes:
            raise RenderTooLarge(f"rendered markup of {length} characters, over --max-bytes "
                                 f"{self.max_bytes}")
        markup = str(page.content())
        if len(markup.encode("utf-8", "replace")) > self.max_bytes:
            raise RenderTooLarge(f"rendered markup over --max-bytes {self.max_bytes}")
        return markup

    def _kill(self) -> None:
        """Out of time or memory: end the browser's processes (a script may hold it forever)."""
        for process in _tree(self._browser_pid):
            try:
                process.kill()
            except psutil.Error:
                pass

    def _check_browser(self) -> None:
        """After every page, close a browser that died or left the agent holding more than
        `KEEP_SHARE` of its budget; the next page starts a new one."""
        self._rendered += 1
        if self._browser is not None and self._browser.is_connected() and (
                self.footprint() <= self.memory_bytes * KEEP_SHARE):
            return
        if self._browser is not None:
            _quietly(self._browser.close)
        self._browser, self._browser_pid = None, 0


class RenderTooLarge(FetchError):
    """The rendered markup is over the crawl's --max-bytes: the page is indexed as fetched."""


class _Watch:
    """During one render, every `WATCH_EVERY` seconds: end the browser when the page's time is
    out or the agent, its browser included, holds more than its budget (footprint.py)."""

    def __init__(self, renderer: Renderer, seconds: float) -> None:
        self.renderer = renderer
        self.end = time.monotonic() + seconds
        self.why = ""  # why the browser was ended, if it was
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="render-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        budget = int(self.renderer.memory_bytes * WATCH_SHARE)
        while not self._done.wait(max(0.0, min(WATCH_EVERY, self.end - time.monotonic()))):
            if time.monotonic() >= self.end:
                self.why = "out of time"
            else:
                held = self.renderer.footprint()
                if held <= budget:
                    continue
                self.why = f"the agent and its browser held {held >> 20} MB, over {budget >> 20} MB"
            self.renderer._kill()  # noqa: SLF001 - the watch is the renderer's own part
            return


class _Router:
    """What the browser may load for one page (the module's docstring lists it)."""

    def __init__(self, url: str, html: str, fetch: Fetch) -> None:
        self.url, self.html, self.fetch = url, html, fetch
        self.page: Any = None  # the page rendered (set once created); any other is a popup
        self.origin = _origin(url)
        self.served_page = False
        self.fetched = 0
        self.last_answer = time.monotonic()  # when a request was last answered

    def answer(self, route: Any) -> None:
        request = route.request
        if request.is_navigation_request():
            if self.served_page or self.page is None or request.frame != self.page.main_frame:
                return route.abort()
            self.served_page = True
            return route.fulfill(status=200, content_type="text/html; charset=utf-8",
                                 body=self.html)
        if request.resource_type not in FETCHED_TYPES or _origin(request.url) != self.origin \
                or self.fetched >= MAX_SUBRESOURCES:
            return route.abort()
        self.fetched += 1
        resource = self.fetch(request.url)
        self.last_answer = time.monotonic()
        if resource is None:
            return route.abort()
        return route.fulfill(status=resource.status, body=resource.body,
                             content_type=resource.content_type or "application/octet-stream")


def _refuse_socket(socket: Any) -> None:
    """A WebSocket: closed before any server is connected (the crawl fetches no socket)."""
    _quietly(socket.close, code=1008, reason="not crawled")


def _close_popup(popup: Any) -> None:
    """A page the rendered page opened: closed; its navigation was aborted by the route."""
    _quietly(popup.close)


_MARKUP_LENGTH = "() => document.documentElement ? document.documentElement.outerHTML.length : 0"


def _settle(page: Any, router: _Router, until: float) -> None:
    """Let the scripts run until no request of theirs was answered for `QUIET` seconds (text
    written from a fetch appears then), or `until`. Playwright's "networkidle" waits 0.5 s."""
    while time.monotonic() < until and time.monotonic() - router.last_answer < QUIET:
        page.wait_for_timeout(25)


def _args() -> list[str]:
    """Chromium's flags: root cannot run its sandbox (and the routing holds the network)."""
    return [*ARGS, *(("--no-sandbox",) if os.geteuid() == 0 else ())]


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        port = -1
    return parts.scheme, (parts.hostname or ""), port


def _chromium_processes() -> list[psutil.Process]:
    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            if process.name().startswith("chrom"):
                found.append(process)
        except psutil.Error:
            pass
    return found


def _browser_pid(before: set[int]) -> int:
    """The browser's own process among this process's new Chromium descendants."""
    new = [p for p in _chromium_processes() if p.pid not in before]
    pids = {p.pid for p in new}
    for process in new:
        try:
            if process.ppid() not in pids:
                return process.pid
        except psutil.Error:
            pass
    return 0


def _tree(pid: int) -> list[psutil.Process]:
    if not pid:
        return []
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def _quietly(call: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    try:
        call(*args, **kwargs)
    except Exception:  # noqa: BLE001,S110 - a wait that timed out or a closed target
        pass
