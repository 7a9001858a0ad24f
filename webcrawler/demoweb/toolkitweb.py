"""A small university web for the toolkit's examples: faculty, a manual, photos, broken links.

The SPHINX paper's applications (Miller and Bharat 1998) need a web shaped like
theirs: a department whose faculty home pages follow a URL pattern and show a
photograph (the faculty list, the photo album), a document divided into pages
with links outside it (printing), a few links to pages that do not exist (the
broken-link checker), and pages on "amoeba" in two senses, the organism and the
distributed operating system (category re-ranking). Two servers on loopback:
the department, and a "remote" server it links to. `truth()` is what each
example must find. This module must never serve on, or link to, anything but
loopback addresses.
"""

from __future__ import annotations

import base64
import html
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from webcrawler.demoweb.server import LoopbackWeb, Page, Site

DEPARTMENT = "127.0.13.1"
REMOTE = "127.0.13.2"
FACULTY = {"ada": "Ada Lovelace", "alan": "Alan Turing", "grace": "Grace Hopper"}
CHAPTERS = ("Values and types", "Functions", "Modules", "Exceptions")
# A 1x1 transparent PNG: a real image for the photo album.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA"
                       "60e6kgAAAABJRU5ErkJggg==")
BIOLOGY = {
    "amoeba-cell": ("The amoeba, a unicellular organism",
                    "The amoeba is a single cell organism that moves by pseudopods. Amoeba cells "
                    "feed by phagocytosis, engulfing bacteria and algae; the cell nucleus divides "
                    "by binary fission. Biology students watch amoeba under the microscope."),
    "amoeba-pond": ("Amoeba in pond water",
                    "Pond water holds amoeba, paramecium and algae. The organism's cytoplasm "
                    "flows into pseudopods; each cell reproduces by fission in its habitat."),
}
SYSTEMS = {
    "amoeba-os": ("Amoeba, a distributed operating system",
                  "Amoeba is a distributed operating system: a microkernel, processes and threads, "
                  "remote procedure calls between servers, capabilities for protection and a "
                  "distributed file server. Amoeba runs on a processor pool of workstations."),
    "amoeba-rpc": ("Remote procedure calls in Amoeba",
                   "Amoeba servers answer remote procedure calls from client processes over the "
                   "network; the kernel schedules threads; the file server stores immutable files."),
    "amoeba-kernel": ("The Amoeba microkernel",
                      "The Amoeba microkernel manages processes, threads, memory segments and "
                      "network communication for the distributed operating system."),
}


@dataclass(frozen=True)
class Truth:
    """What the examples must find on a running `ToolkitWeb`."""

    faculty: dict[str, str]  # home page URL -> name
    photos: dict[str, str]  # photo URL -> alt text
    chapters: list[str]  # the manual's pages, in reading order
    broken: set[str]  # linked, answer 404
    biology: set[str]  # pages on the organism
    systems: set[str]  # pages on the operating system


def _page(title: str, body: str) -> Page:
    return Page(f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}'
                f"</title></head><body><h1>{html.escape(title)}</h1>\n{body}\n</body></html>")


def _department(remote: str) -> dict[str, Page]:
    routes = {"/": _page("Department of Computing", '<ul><li><a href="/faculty/">Faculty</a></li>'
                         '<li><a href="/manual/index.html">The manual</a></li>'
                         '<li><a href="/topics/">Topics</a></li>'
                         f'<li><a href="{remote}/errata.html">Errata</a></li></ul>')}
    people = "".join(f'<li><a href="/faculty/{key}/home.html">{name}</a></li>'
                     for key, name in FACULTY.items())
    routes["/faculty/"] = _page("Faculty", f'<ul>{people}<li><a href="/faculty/ghost/home.html">'
                                "Emeritus (page moved)</a></li>"
                                '<li><a href="/faculty/visiting.html">Visiting</a></li></ul>')
    routes["/faculty/visiting.html"] = Page("", status=301,  # a redirect to a missing page
                                            headers=(("Location", "/faculty/visitors/"),))
    for key, name in FACULTY.items():
        routes[f"/faculty/{key}/home.html"] = _page(name, (
            f'<img src="/faculty/{key}/photo.png" alt="{name}"><p>{name} teaches here.</p>'
            f'<a href="/faculty/{key}/papers.html">Papers</a> <a href="/faculty/">Faculty</a> '
            f'<a href="{remote}/people/{key}.html">Elsewhere</a>'))
        routes[f"/faculty/{key}/papers.html"] = _page(f"Papers of {name}", "<p>Papers.</p>")
        routes[f"/faculty/{key}/photo.png"] = Page(PNG, content_type="image/png")
    for n, title in enumerate(CHAPTERS, 1):
        following = (f'<a href="chapter{n + 1}.html">Next</a>' if n < len(CHAPTERS) else "")
        routes[f"/manual/chapter{n}.html"] = _page(title, (
            f'<p id="top">Chapter {n} of the manual: {title.lower()}.</p>'
            f'<script>document.title = "tampered"</script>{following} '
            f'<a href="index.html">Contents</a> <a href="{remote}/standard.html">The standard</a>'))
    contents = "".join(f'<li><a href="chapter{n}.html">{t}</a></li>' for n, t in enumerate(CHAPTERS, 1))
    routes["/manual/index.html"] = _page("The manual", f"<ol>{contents}</ol>")
    topics = "".join(f'<li><a href="/topics/{key}.html">{html.escape(title)}</a></li>'
                     for key, (title, _) in {**SYSTEMS, **BIOLOGY}.items())
    routes["/topics/"] = _page("Topics", f"<ul>{topics}</ul>")
    for key, (title, text) in {**BIOLOGY, **SYSTEMS}.items():
        routes[f"/topics/{key}.html"] = _page(title, f"<p>{html.escape(text)}</p>")
    return routes


def _remote() -> dict[str, Page]:
    routes = {f"/people/{key}.html": _page(name, "<p>Elsewhere.</p>") for key, name in FACULTY.items()}
    routes["/standard.html"] = _page("The standard", "<p>The standard.</p>")
    return routes


class ToolkitWeb:
    """The department and the remote server, served while the context is open."""

    def __init__(self) -> None:
        self._routes: dict[str, Page] = {}
        robots = "User-agent: *\nDisallow: /private/\n"
        self.web = LoopbackWeb([Site(DEPARTMENT, self._answer, robots_txt=robots),
                                Site(REMOTE, _remote())])
        self._routes = _department(self.web.origin(REMOTE))

    def _answer(self, path: str) -> Page | None:
        return self._routes.get(path)

    def __enter__(self) -> ToolkitWeb:
        self.web.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.web.stop()

    def url(self, path: str = "/") -> str:
        return self.web.url(DEPARTMENT, path)

    def truth(self) -> Truth:
        remote = self.web.origin(REMOTE)
        return Truth(
            faculty={self.url(f"/faculty/{k}/home.html"): n for k, n in FACULTY.items()},
            photos={self.url(f"/faculty/{k}/photo.png"): n for k, n in FACULTY.items()},
            chapters=[self.url(f"/manual/chapter{n}.html") for n in range(1, len(CHAPTERS) + 1)],
            broken={self.url("/faculty/ghost/home.html"), self.url("/faculty/visiting.html"),
                    remote + "/errata.html"},
            biology={self.url(f"/topics/{k}.html") for k in BIOLOGY},
            systems={self.url(f"/topics/{k}.html") for k in SYSTEMS})


@contextmanager
def roots_or_web(argv: list[str], path: str) -> Iterator[list[str]]:
    """The roots given on the command line, or else `path` on a `ToolkitWeb` served meanwhile
    (so each example runs as it is: ``python examples/faculty_list.py``)."""
    if argv:
        yield argv
        return
    with ToolkitWeb() as web:
        yield [web.url(path)]


@contextmanager
def indexed_web(data_dir: Path | None = None) -> Iterator[Path]:
    """Our own search engine over the web's topic pages: served, indexed by `webcrawler
    index`'s code into `data_dir` (a temporary folder by default), which is yielded."""
    from webcrawler.commands.index import run_index
    from webcrawler.settings import Settings

    with ToolkitWeb() as web, tempfile.TemporaryDirectory() as scratch:
        folder = data_dir or Path(scratch)
        settings = Settings(data_dir=folder, agents=2, delay=0.0, hours=0.05,
                            seeds=(web.url("/topics/"),), include=(re.escape(web.url("/topics/")),))
        run_index(settings, progress=False)
        yield folder
