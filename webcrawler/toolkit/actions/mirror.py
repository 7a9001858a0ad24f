"""Save visited pages to a folder as a browsable mirror, links rewritten to the local copies.

The Workbench's "save" operation (Miller and Bharat 1998, section 3: "save all
the pages found ... for off-line viewing"). Each page is written as soon as it
is visited (cleaned by `sanitize`: no scripts, absolute links), so an aborted
crawl still leaves a usable folder. `close()` then rewrites, in every saved
file, the links to pages that were saved into relative links to their copies,
and writes ``contents.html`` listing them in crawl order. Links to pages not
saved keep their absolute URLs.

File names come from `files.local_name` and are checked by `files.inside`: a
URL can never make this action write outside its folder.
"""

from __future__ import annotations

import html
from pathlib import Path, PurePosixPath
from typing import Any

from webcrawler.toolkit.actions import files, sanitize
from webcrawler.toolkit.actions.base import PagePredicate, VisitAction
from webcrawler.toolkit.model import Page

LINK_ATTRIBUTES = {"a": "href", "area": "href", "img": "src", "link": "href"}


class SaveMirror(VisitAction):
    """``SaveMirror(folder)``: every visited page saved under `folder`, linked together."""

    def __init__(self, folder: str | Path, when: PagePredicate | None = None) -> None:
        super().__init__(when)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.saved: dict[str, PurePosixPath] = {}  # URL (no fragment) -> file, in crawl order
        self._taken: set[PurePosixPath] = set()
        self._folders: set[PurePosixPath] = set()  # folders the saved files are in

    def handle(self, page: Page) -> None:
        url, _ = sanitize.defrag(page.url)
        if url in self.saved:
            return
        name = self._name_for(url)
        root = sanitize.clean(sanitize.parse(page.html or ""), url)
        files.write_text(self.folder, name, "<!DOCTYPE html>\n" + _with_charset(root))
        self.saved[url] = name

    def _name_for(self, url: str) -> PurePosixPath:
        """The URL's local name; a second URL with the same name gets a hashed one, and so does
        one whose name is a folder already (``/x.html/y`` saved, then ``/x.html``) or whose
        folder is a file already (``/x.html`` saved, then ``/x.html/y``): that one goes in its
        host's folder, so both are kept."""
        name = files.local_name(url)
        unique = f"{name.stem}_{files.digest(url)}{name.suffix}"
        if name in self._taken:
            name = name.with_name(unique)
        elif name in self._folders or any(parent in self._taken for parent in name.parents):
            name = PurePosixPath(name.parts[0], unique)
        self._taken.add(name)
        self._folders.update(name.parents)
        return name

    def finish(self) -> str:
        for url, name in self.saved.items():
            self._relink(url, name)
        files.write_text(self.folder, "contents.html", self._contents())
        return f"{len(self.saved)} pages saved to {self.folder} (open contents.html)"

    def _relink(self, url: str, name: PurePosixPath) -> None:
        path = files.inside(self.folder, name)
        root = sanitize.parse(path.read_text(encoding="utf-8"))
        for element in root.iter(*LINK_ATTRIBUTES):
            attribute = LINK_ATTRIBUTES[element.tag]
            target, fragment = sanitize.defrag(element.get(attribute) or "")
            if target in self.saved:
                href = files.relative_link(name, self.saved[target])
                element.set(attribute, href + ("#" + fragment if fragment else ""))
        files.write_text(self.folder, name, "<!DOCTYPE html>\n" + _with_charset(root))

    def _contents(self) -> str:
        items = "\n".join(f'<li><a href="{html.escape(str(name))}">{html.escape(url)}</a></li>'
                          for url, name in self.saved.items())
        return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Mirror contents'
                f"</title></head><body><h1>Mirror contents</h1><ol>\n{items}\n</ol></body></html>\n")


def _with_charset(root: Any) -> str:
    """The document as text, declaring the UTF-8 it is written in."""
    head = root.find("head")
    if head is None:
        head = root.makeelement("head", {})
        root.insert(0, head)
    for meta in head.findall("meta[@charset]"):
        meta.drop_tree()
    head.insert(0, head.makeelement("meta", {"charset": "utf-8"}))
    return sanitize.to_html(root)
