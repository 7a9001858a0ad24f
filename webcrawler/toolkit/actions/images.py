"""Collect the images of visited pages into a photo album.

The paper's first example of a personal crawl: "a photo album of pictures of
all the researchers at your institution ... crawl over the institution's list
of home pages and collect all the images found" (Miller and Bharat 1998,
section 1). Every image a visited page shows (its `img` links, with their alt
text) is recorded once, with the page it was found on; `close()` writes
``album.html`` (a page of figures with captions) and ``images.csv``.

Only agents do HTTP: an image is downloaded when the crawler follows its <img>
link (`should_visit` says yes to a link labelled "image"); the crawl then visits
it as a page whose `data` holds the bytes, through the same agents, robots.txt,
politeness and request policy as every page. The album keeps a local copy of
each image so fetched (when the bytes are a PNG, JPEG, GIF or WebP image, at
most `MAX_IMAGE_BYTES`), and shows the others from their URLs.
"""

from __future__ import annotations

import csv
import html
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from webcrawler.toolkit.actions import files
from webcrawler.toolkit.actions.base import PagePredicate, VisitAction
from webcrawler.toolkit.model import Page

MAX_IMAGE_BYTES = 10 * 1024 * 1024
MAX_IMAGES = 100_000
SIGNATURES = {b"\x89PNG\r\n\x1a\n": ".png", b"\xff\xd8\xff": ".jpg", b"GIF87a": ".gif",
              b"GIF89a": ".gif"}


@dataclass
class Image:
    """One image: where it is, what its alt text says, which page showed it, its local copy."""

    url: str
    alt: str
    page: str
    title: str
    local: str = ""


class CollectImages(VisitAction):
    """``CollectImages(folder)``: the images of every visited page, as ``album.html``."""

    takes_files = True

    def __init__(self, folder: str | Path, when: PagePredicate | None = None) -> None:
        super().__init__(when)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.images: dict[str, Image] = {}

    def __call__(self, page: Page) -> None:
        """An image's bytes are kept for an image already listed (the page predicate chose
        the page that shows it); any other page goes through the predicate as usual."""
        if not page.data:
            return super().__call__(page)
        url = page.origin.url if page.origin is not None else page.url
        if url in self.images and not self.images[url].local:
            self.images[url].local = self._save(url, page.data)

    def handle(self, page: Page) -> None:
        for link in page.links:
            if link.element != "img" or link.url in self.images or len(self.images) >= MAX_IMAGES:
                continue
            self.images[link.url] = Image(link.url, (link.anchor or "").strip(), page.url,
                                          page.title or "")

    def _save(self, url: str, data: bytes) -> str:
        """A local copy of the image, or "" when the bytes are not an image we keep."""
        extension = image_type(data or b"")
        if not data or not extension or len(data) > MAX_IMAGE_BYTES:
            return ""
        name = PurePosixPath("images", str(files.local_name(url, extension)))
        target = files.inside(self.folder, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return str(name)

    def finish(self) -> str:
        files.write_text(self.folder, "album.html", album_html(list(self.images.values())))
        with files.inside(self.folder, "images.csv").open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(("image", "alt", "page", "title", "local"))
            for i in self.images.values():
                writer.writerow((i.url, i.alt, i.page, i.title, i.local))
        saved = sum(1 for i in self.images.values() if i.local)
        return (f"{len(self.images)} images from {self.done} pages ({saved} saved) in "
                f"{self.folder / 'album.html'}")


def image_type(data: bytes) -> str:
    """The file extension the bytes' signature names, or "" when they are not a known image."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    return next((ext for magic, ext in SIGNATURES.items() if data.startswith(magic)), "")


def album_html(images: list[Image]) -> str:
    """A page of figures: each image with its alt text and the page it came from."""
    figures = "\n".join(
        f'<figure><img src="{html.escape(i.local or i.url)}" alt="{html.escape(i.alt)}" '
        f'loading="lazy"><figcaption>{html.escape(i.alt or "(no description)")}<br>'
        f'<a href="{html.escape(i.page)}">{html.escape(i.title or i.page)}</a></figcaption></figure>'
        for i in images)
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Photo album</title>\n'
            "<style>body{font-family:sans-serif} figure{display:inline-block;width:14rem;"
            "vertical-align:top;margin:.5rem} img{max-width:100%}</style></head>\n"
            f"<body><h1>Photo album</h1><p>{len(images)} images</p>\n{figures}\n</body></html>\n")
