"""A photo album of everyone in a department (Miller and Bharat 1998, section 1).

"As a first step in creating a photo album of pictures of all the researchers at
your institution, you might want the agent to crawl over the institution's list
of home pages and collect all the images found." Crawl the faculty pages and
download their images (through the crawl's agents, like every page), with their
alt text, into ``album.html``.

    python examples/photo_album.py [ROOT [FOLDER]]
"""

from __future__ import annotations

import sys
from typing import Any

from webcrawler.toolkit import Crawler, Limits, Link, Page, Wildcard
from webcrawler.toolkit.actions import CollectImages


class PhotoAlbum(Crawler):
    """Follow links to faculty home pages; collect the images of each home page."""

    home = Wildcard("http*://*/faculty/*/home.html")
    limits = Limits(pages=200, depth=2, seconds=120)

    def __init__(self, folder: str = "album", **options: Any) -> None:
        super().__init__(**options)
        self.album = CollectImages(folder, when=lambda page: self.home.matches(page.url))

    def should_visit(self, link: Link) -> bool:
        if "image" in link.labels:  # a home page's picture: downloaded into the album
            return link.source is not None and self.home.matches(link.source.url)
        return "hyperlink" in link.labels and self.home.matches(link.url)

    def visit(self, page: Page) -> None:
        self.album(page)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        with self.album:
            return super().run(*args, **kwargs)


if __name__ == "__main__":
    from webcrawler.demoweb.toolkitweb import roots_or_web

    with roots_or_web(sys.argv[1:2], "/faculty/") as roots:
        crawler = PhotoAlbum(folder=sys.argv[2] if len(sys.argv) > 2 else "album", roots=roots)
        print(crawler.run().line(), file=sys.stderr)
        print(crawler.album.close())
