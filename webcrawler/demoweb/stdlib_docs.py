"""A demo web of real text: the standard library's documentation, as `pydoc` renders it.

Four servers on 127.0.5.1-4 each host one topic's modules, and a hub on
127.0.5.100 links to them. Every server's ``/`` lists its modules; a module's
page is pydoc's HTML with its links rewritten: links to a module we host
point to the server that hosts it (real cross-server links), links to
anything else (other modules, source files, python.org) become plain text,
so the web never invites traffic off loopback. A handful of deliberately
broken links (404) and a ``/private/`` area per server, robots.txt rules that
differ per server (one with a ``Crawl-delay``) make it a small real web.

Pages are rendered on first request and cached. `DemoWeb.manifest()` is the
ground truth for tests: which pages a crawler named WebCrawler may fetch,
which robots.txt forbids, which links are broken.

This module must never serve on, or link to, anything but loopback addresses.
"""

from __future__ import annotations

import functools
import html
import importlib
import pydoc
import re
import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import ModuleType

from webcrawler.demoweb.server import LoopbackWeb, Page, Site

HUB_ADDRESS = "127.0.5.100"
SECRET_WORD = "plugh"  # appears only on pages robots.txt forbids


@dataclass(frozen=True)
class Topic:
    """One server of the demo web: its modules and its robots.txt."""

    address: str
    title: str
    modules: tuple[str, ...]
    rules: tuple[tuple[bool, str], ...]  # (allow, path prefix) for WebCrawler
    crawl_delay: float | None = None
    shut_out_others: bool = False  # a "User-agent: *" group that disallows everything
    private: tuple[str, ...] = ("/private/notes.html", "/private/drafts.html")
    broken: tuple[tuple[str, str], ...] = ()  # (path, anchor) of links to missing pages

    def robots_txt(self) -> str:
        lines = [f"# robots.txt for the demo web's {self.title.lower()} server",
                 "User-agent: WebCrawler" if self.shut_out_others else "User-agent: *"]
        lines += [f"{'Allow' if allow else 'Disallow'}: {prefix}" for allow, prefix in self.rules]
        if self.crawl_delay is not None:
            lines.append(f"Crawl-delay: {self.crawl_delay}")
        if self.shut_out_others:
            lines += ["", "User-agent: *", "Disallow: /"]
        return "\n".join(lines) + "\n"

    def allows(self, path: str) -> bool:
        """RFC 9309's longest match (these rules have no wildcards); Allow wins a tie."""
        matches = [(len(prefix), allow) for allow, prefix in self.rules if path.startswith(prefix)]
        return max(matches, default=(0, True))[1]


TOPICS: tuple[Topic, ...] = (
    Topic("127.0.5.1", "Text processing and data formats", tuple("""
        string re difflib textwrap unicodedata stringprep codecs html html.parser html.entities
        gettext locale shlex csv json json.decoder json.encoder json.scanner json.tool base64
        binascii quopri xml xml.dom xml.etree xml.etree.ElementTree xml.sax xml.sax.handler
        xml.parsers.expat configparser tomllib netrc plistlib fnmatch glob keyword tokenize token
        """.split()), rules=((False, "/private/"),),
        broken=(("/gopherlib.html", "gopherlib (removed in Python 2.5)"),)),
    Topic("127.0.5.2", "Data types, numbers and persistence", tuple("""
        collections collections.abc heapq bisect array weakref copy pprint reprlib enum graphlib
        numbers math cmath decimal fractions random statistics itertools functools operator
        datetime zoneinfo calendar dataclasses typing types struct pickle pickletools copyreg
        shelve dbm sqlite3 zlib gzip bz2 lzma zipfile tarfile hashlib hmac secrets
        """.split()), rules=((False, "/private/"), (False, "/pickle")),
        broken=(("/sets.html", "sets (removed in Python 3.0)"),)),
    Topic("127.0.5.3", "Networking and Internet protocols", tuple("""
        socket ssl select selectors asyncio asyncio.events asyncio.tasks asyncio.streams http
        http.client http.server http.cookies http.cookiejar urllib urllib.parse urllib.error
        urllib.response urllib.robotparser email email.message email.parser email.utils
        email.headerregistry email.policy mailbox mimetypes ftplib poplib imaplib smtplib uuid
        socketserver xmlrpc xmlrpc.client xmlrpc.server ipaddress wsgiref wsgiref.simple_server
        wsgiref.headers
        """.split()), rules=((False, "/private/"), (False, "/ssl.html")), crawl_delay=0.5,
        shut_out_others=True,
        broken=(("/gopher.html", "gopher"), ("/private/archive/", "the old archive"))),
    Topic("127.0.5.4", "Operating system, concurrency and development tools", tuple("""
        builtins os posixpath io time argparse logging logging.handlers logging.config getpass
        platform errno threading multiprocessing concurrent concurrent.futures subprocess sched
        queue contextvars signal mmap shutil pathlib tempfile filecmp stat fileinput unittest
        unittest.mock doctest pdb timeit trace traceback warnings contextlib abc atexit inspect
        importlib importlib.resources importlib.metadata sysconfig gc dis code codeop pkgutil
        zipimport zipapp faulthandler tracemalloc cProfile profile pstats linecache
        """.split()),
        rules=((False, "/private/"), (True, "/private/changelog.html"), (False, "/pdb.html")),
        private=("/private/drafts.html", "/private/changelog.html"),
        broken=(("/imp.html", "imp (removed in Python 3.12)"),)),
)
HUB_BROKEN = (("/whatsnew.html", "What's new (not written yet)"),)


@dataclass(frozen=True)
class Manifest:
    """Ground truth about a running demo web, for a crawler whose robots token is WebCrawler."""

    seed: str
    allowed: frozenset[str]  # served (200), allowed, and all reachable from the seed
    disallowed: frozenset[str]  # served, but robots.txt forbids them
    broken: frozenset[str]  # linked from an allowed page, answer 404
    modules: Mapping[str, str] = field(default_factory=dict)  # module name -> its page's URL
    secret_word: str = SECRET_WORD  # only on disallowed pages


@functools.cache
def importable(names: tuple[str, ...]) -> tuple[str, ...]:
    """The `names` that import without error or warning (the others are left out)."""
    found = []
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - any failure just leaves the module out
                continue
        found.append(name)
    return tuple(found)


_render_lock = threading.Lock()  # one render at a time: no duplicate work, and warnings stay local


def pydoc_page(name: str) -> str:
    """pydoc's HTML page for module `name`, rendered once per process."""
    with _render_lock:
        return _render(name)


@functools.cache
def _render(name: str) -> str:
    module: ModuleType = importlib.import_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydoc touches deprecated attributes while looking
        return pydoc.html.page(pydoc.describe(module), pydoc.html.document(module, name))


_LINK = re.compile(r'<a href="([^"]*)"([^>]*)>(.*?)</a>', re.S)  # href, other attributes, text
_MODULE_HREF = re.compile(r"([\w.]+)\.html(#[\w.-]*)?")


class DemoWeb:
    """The demo web, served while the context is open.

    >>> with DemoWeb(port=0) as web:
    ...     web.seed_url, web.manifest().allowed
    """

    def __init__(self, port: int = 0, topics: tuple[Topic, ...] = TOPICS) -> None:
        """`port` for every server (0 = a free port each)."""
        self.topics = tuple(replace(t, modules=importable(t.modules)) for t in topics)
        self.host_of = {module: t for t in self.topics for module in t.modules}
        sites = [Site(HUB_ADDRESS, self._hub_page, port=port)]
        sites += [Site(t.address, functools.partial(self._answer, t), port=port,
                       robots_txt=t.robots_txt()) for t in self.topics]
        self.web = LoopbackWeb(sites)
        self._pages: dict[str, str] = {}

    def __enter__(self) -> DemoWeb:
        self.web.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.web.stop()

    @property
    def seed_url(self) -> str:
        return self.web.url(HUB_ADDRESS, "/")

    @property
    def servers(self) -> list[str]:
        """Every server's origin, ``http://address:port``, the hub's first."""
        return [self.web.origin(HUB_ADDRESS)] + [self.web.origin(t.address) for t in self.topics]

    @property
    def include_pattern(self) -> str:
        """A regex that matches the URLs of this web and nothing else."""
        return "^(?:" + "|".join(re.escape(origin) for origin in self.servers) + ")/"

    def module_url(self, name: str) -> str:
        return self.web.url(self.host_of[name].address, f"/{name}.html")

    def manifest(self) -> Manifest:
        allowed, disallowed = {self.seed_url}, set[str]()
        broken = {self.web.url(HUB_ADDRESS, path) for path, _ in HUB_BROKEN}
        for topic in self.topics:
            paths = ["/"] + [f"/{m}.html" for m in topic.modules] + list(topic.private)
            for path in paths:
                url = self.web.url(topic.address, path)
                (allowed if topic.allows(path) else disallowed).add(url)
            broken |= {self.web.url(topic.address, path) for path, _ in topic.broken
                       if topic.allows(path)}
        modules = {name: self.module_url(name) for name in self.host_of}
        return Manifest(self.seed_url, frozenset(allowed), frozenset(disallowed),
                        frozenset(broken), modules)

    # -- pages

    def _hub_page(self, path: str) -> Page | None:
        if path.split("?")[0] != "/":
            return None
        items = "".join(f'<li><a href="{self.web.url(t.address, "/")}">{html.escape(t.title)}</a>'
                        f" ({len(t.modules)} modules)</li>\n" for t in self.topics)
        items += "".join(f'<li><a href="{p}">{html.escape(a)}</a></li>\n' for p, a in HUB_BROKEN)
        return _document("The Python standard library, a demo web",
                         "<p>The documentation of the Python standard library as pydoc renders "
                         "it, spread over four servers by topic.</p>", items)

    def _answer(self, topic: Topic, path: str) -> Page | None:
        path = path.split("?")[0]
        if path == "/":
            return self._index_page(topic)
        if path in topic.private:
            words = SECRET_WORD if not topic.allows(path) else "published"
            return _document(f"{topic.title}: {path}", f"<p>Notes kept here ({words}).</p>", "")
        match = re.fullmatch(r"/([\w.]+)\.html", path)
        if match and self.host_of.get(match[1]) is topic:
            return Page(self._module_page(match[1]))
        return None

    def _index_page(self, topic: Topic) -> Page:
        items = "".join(f'<li><a href="/{m}.html">{m}</a>: {html.escape(_synopsis(m))}</li>\n'
                        for m in topic.modules)
        items += "".join(f'<li><a href="{p}">{p}</a></li>\n' for p in topic.private)
        items += "".join(f'<li><a href="{p}">{html.escape(a)}</a></li>\n' for p, a in topic.broken)
        items += f'<li><a href="{self.seed_url}">All topics</a></li>\n'
        return _document(f"{topic.title}: Python standard library", "", items)

    def _module_page(self, name: str) -> str:
        if name not in self._pages:  # a race only renders the rewrite twice, harmlessly
            self._pages[name] = _LINK.sub(self._rewrite_link, pydoc_page(name))
        return self._pages[name]

    def _rewrite_link(self, match: re.Match[str]) -> str:
        href, attributes, text = match[1], match[2], match[3]
        if href.startswith("#"):
            return match[0]
        if href == ".":
            return f'<a href="/"{attributes}>{text}</a>'
        target = _MODULE_HREF.fullmatch(href)
        if target and target[1] in self.host_of:
            url = self.module_url(target[1]) + (target[2] or "")
            return f'<a href="{url}"{attributes}>{text}</a>'
        if href.startswith(("file:", "https://docs.python.org/")):
            return ""  # the source file's path and the online manual: navigation, not text
        return text  # a module we do not host, or the wider web


@functools.cache
def _synopsis(name: str) -> str:
    doc = pydoc.getdoc(importlib.import_module(name))
    return pydoc.splitdoc(doc)[0] or "(no description)"


def _document(title: str, intro: str, items: str) -> Page:
    return Page(f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f"<title>{html.escape(title)}</title></head>\n<body><h1>{html.escape(title)}</h1>\n"
                f"{intro}<ul>\n{items}</ul>\n</body></html>\n")
