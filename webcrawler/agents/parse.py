"""Turn a decoded page into what the index and the engine need: title, text, links, robots flags.

lxml's libxml2 HTML parser is used directly: it is about twenty times faster
than BeautifulSoup on a typical page and it recovers from any markup. The
parse must never raise: a hostile or broken page yields an empty `Parsed`,
never an agent crash. Links come out absolute, normalised by
`webcrawler.protocol.urls`, de-duplicated (anchor texts of repeats merged), without
rel=nofollow links, and none at all when the page's robots meta says
nofollow. This module does no I/O.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass

from lxml import etree

from webcrawler.agents.resolve import PageResolver
from webcrawler.protocol.messages import Outlink
from webcrawler.protocol.urls import MAX_URL_LENGTH, ParamNames, strip_params, try_normalize

log = logging.getLogger(__name__)

INVISIBLE_TAGS = ("script", "style", "noscript", "template", "head", "svg", "math")
# Elements that separate words: their start and end count as white space. Links count too:
# menus written as <a>Home</a><a>News</a> must not index "HomeNews".
BLOCK_TAGS = (
    "p", "div", "br", "hr", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr", "td", "th",
    "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "section", "article", "header",
    "footer", "nav", "aside", "main", "form", "fieldset", "legend", "figure", "figcaption",
    "address", "details", "summary", "caption", "thead", "tbody", "tfoot", "option", "button",
    "label", "input", "select", "textarea", "img", "center", "body", "title", "iframe", "frame",
    "a", "area",
)
MAX_ANCHOR_CHARS = 300
MAX_LINK_TEXTS = 5  # distinct anchor texts kept for a link target, the first ones
HEADINGS = ("h1", "h2", "h3")  # the section titles the ranking reads as a field of their own
MAX_HEADINGS = 30  # per page, the first: a long reference page's later ones add little
MAX_HEADING_CHARS = 200
_TOKENS = re.compile(r"[\s,]+")


@dataclass(frozen=True, slots=True)
class Parsed:
    """What a page says: `nofollow` is True when its robots meta asked us not to follow links."""

    title: str = ""
    text: str = ""
    links: tuple[Outlink, ...] = ()
    noindex: bool = False
    nofollow: bool = False
    canonical: str = ""  # <link rel="canonical">, absolute and normalised ("" when none)
    headings: tuple[str, ...] = ()  # the text of its h1-h3 headings, in page order (`HEADINGS`)


def parse_plain(text: str) -> Parsed:
    """A text/plain body: all of it is text, its first line the title; it has no links."""
    return Parsed(title=first_line([text[:64 * 1024]]), text=collapse(text))


MAX_TITLE_CHARS = 200


def first_line(blocks: list[str]) -> str:
    """The first non-empty line of a text: the title of a document that names none."""
    for block in blocks:
        for line in block.splitlines():
            if line.strip():
                return collapse(line)[:MAX_TITLE_CHARS]
    return ""


def parse_html(
    text: str | bytes,
    url: str,
    robots_token: str = "WebCrawler",
    max_links: int = 5000,
    max_url_length: int = MAX_URL_LENGTH,
    names: ParamNames | None = None,
    main_content: bool = False,
) -> Parsed:
    """Parse an HTML page fetched from `url` (the final URL, after redirects); never raises.

    `text` is the decoded page, or its exact UTF-8 encoding (bytes that are valid UTF-8).

    Links lose the tracking and session parameters `names` lists (urls.strip_params).
    With `main_content` the text is the page's main content (`main_text`)."""
    try:
        root = _tree(text)
        if root is None:
            return Parsed()
        found = _scan(root)
        noindex, nofollow = meta_robots(found.metas, robots_token)
        title = "" if found.title is None else collapse(text_of(found.title))
        body_text = main_text(root) if main_content else visible_text(root)
        base = _base_url(found.base, url, max_url_length)
        canonical = canonical_url(found.canonical, base, max_url_length, names)
        headings = heading_texts(found.headings)
        if nofollow:
            return Parsed(title, body_text, (), noindex, nofollow, canonical, headings)
        _alt_texts(found.images)  # the text is taken: from now on only anchors read them
        links = extract_links(found.anchors, base, max_links, max_url_length, names)
        return Parsed(title, body_text, links, noindex, nofollow, canonical, headings)
    except Exception:  # noqa: BLE001 - one hostile page must not kill the agent
        log.warning("could not parse %s", url, exc_info=True)
        return Parsed()


def _tree(text: str | bytes) -> etree._Element | None:
    """The parsed tree, or None for a document with nothing in it.

    A str is re-encoded to UTF-8 (bytes are that already) and the parser
    told so: lxml refuses a str that carries an XML encoding declaration,
    and a <meta charset> must not make libxml2 decode our already decoded
    text a second time.
    """
    data = text if isinstance(text, bytes) else text.encode("utf-8", errors="replace")
    if not data.strip():
        return None
    return etree.fromstring(_defuse(data), _html_parser())


MAX_TAG_BYTES = 16 * 1024
MAX_ATTRIBUTES = 1000
_LONG_TAG = re.compile(rb"<([A-Za-z][^\s/<>]*)(\s[^<>]{%d,})" % MAX_TAG_BYTES)
_LONG_RUN = re.compile(rb"<[^<]{%d}" % MAX_TAG_BYTES)  # each scan stops at the next "<": linear


def _defuse(data: bytes) -> bytes:
    """The page, with the attributes of any tag that has thousands of them dropped.

    libxml2's HTML parser checks each attribute against all the earlier
    ones of its tag: one tag with a hundred thousand distinct attributes
    keeps it busy for minutes, out of reach of any timeout. Only a page
    holding a run of more than 16 KiB without "<" can hide such a tag (pages
    under 64 KiB skip the test). Such a run spans a whole 8 KiB block without
    "<" (`_quiet_block`: a memchr a block), and only a page with one is searched.
    """
    if len(data) <= 4 * MAX_TAG_BYTES or not _quiet_block(data) or not _LONG_RUN.search(data):
        return data
    return _LONG_TAG.sub(_drop_attributes, data)


def _quiet_block(data: bytes, size: int = MAX_TAG_BYTES // 2) -> bool:
    """Whether some `size`-aligned block of `data` holds no "<": every run of 2 * `size` bytes
    without one contains such a block."""
    return any(data.find(b"<", start, start + size) < 0 for start in range(0, len(data), size))


def _drop_attributes(match: re.Match[bytes]) -> bytes:
    if len(match.group(2).split()) <= MAX_ATTRIBUTES:
        return match.group(0)
    log.debug("dropped the %d-byte attributes of a <%s> tag", len(match.group(2)), match.group(1))
    return b"<" + match.group(1)


@dataclass(slots=True)
class _Found:
    """The elements a page's metadata and links come from, gathered in one walk of the tree."""

    metas: list[etree._Element]
    anchors: list[etree._Element]
    headings: list[etree._Element]
    images: list[etree._Element]  # the <img> elements with an alt text
    title: etree._Element | None = None
    base: etree._Element | None = None
    canonical: str = ""  # the href of the first <link rel="canonical">


def _scan(root: etree._Element) -> _Found:
    """One pass over the tree (each walk costs as much as a tenth of the parse)."""
    found = _Found([], [], [], [])
    for element in root.iter("a", "area", "img", "meta", "title", "base", "link", *HEADINGS):
        tag = element.tag
        if tag == "a" or tag == "area":
            found.anchors.append(element)
        elif tag == "img":
            if element.get("alt"):
                found.images.append(element)
        elif tag in HEADINGS:
            if len(found.headings) < MAX_HEADINGS:
                found.headings.append(element)
        elif tag == "meta":
            found.metas.append(element)
        elif tag == "link":
            if not found.canonical and "canonical" in (element.get("rel") or "").lower().split():
                found.canonical = (element.get("href") or "").strip()
        elif tag == "title":
            found.title = element if found.title is None else found.title
        elif found.base is None and element.get("href"):
            found.base = element
    return found


def heading_texts(elements: list[etree._Element]) -> tuple[str, ...]:
    """The non-empty texts of heading elements, white space collapsed, each cut short."""
    texts = (collapse(text_of(element))[:MAX_HEADING_CHARS] for element in elements)
    return tuple(text for text in texts if text)


def meta_robots(metas: list[etree._Element], robots_token: str) -> tuple[bool, bool]:
    """(noindex, nofollow) from <meta name="robots"> and <meta name="{our token}">."""
    names = {"robots", robots_token.lower()}
    noindex = nofollow = False
    for meta in metas:
        if (meta.get("name") or "").strip().lower() in names:
            directives = robots_directives(meta.get("content") or "")
            noindex |= "noindex" in directives or "none" in directives
            nofollow |= "nofollow" in directives or "none" in directives
    return noindex, nofollow


def robots_directives(content: str) -> set[str]:
    """The lower-cased directives of a robots meta content or X-Robots-Tag value."""
    return {token for token in _TOKENS.split(content.lower()) if token}


def _base_url(base: etree._Element | None, url: str, max_url_length: int) -> str:
    """What relative links resolve against: <base href>, when it is a valid URL, else the page."""
    if base is None:
        return url
    return try_normalize(base.get("href") or "", url, max_url_length) or url


def canonical_url(href: str, base: str, max_url_length: int,
                  names: ParamNames | None = None) -> str:
    """A canonical link's target, normalised as links are ("" when none or unusable)."""
    if not href:
        return ""
    url = try_normalize(href, base, max_url_length)
    if url is None:
        return ""
    return strip_params(url, names) if names else url


def visible_text(root: etree._Element) -> str:
    """The words a reader sees, separated where blocks separate them; invisible parts left out.

    An XSLT stylesheet does the walk inside libxslt: the same walk in Python
    (a space around every block element, then itertext) cost three times as much.
    """
    return collapse(str(_text_stylesheet()(root)))


# Boilerplate: navigation, banners, sidebars, footers, by element, ARIA role or class/id name.
# Not "toc": Sphinx's toctree and DocBook's chapter contents are what a hub page says.
BOILERPLATE_TAGS = ("nav", "header", "footer", "aside")
BOILERPLATE = " | ".join(BOILERPLATE_TAGS)  # the stylesheet's pattern
BOILERPLATE_NAMED = ("div", "ul", "section", "table", "td")  # boilerplate by a word of class/id
BOILERPLATE_WORDS = ("sidebar", "navbar", "navigation", "nav-", "menu", "footer", "breadcrumb",
                     "related", "masthead")
MIN_MAIN_SHARE = 0.2  # main content shorter than this share of the page: the page is its text
# Elements whose ARIA role, or (`BOILERPLATE_NAMED` ones) whose class or id, says boilerplate are
# renamed <nav> before the stylesheet runs, so that its only boilerplate pattern is a few element
# names: a pattern with tests (`*[@role=...]`, `div[contains(@class, ...)]`) is tried on every
# element it could match, which made the stylesheet cost twice the parse's share of it, and XPath
# with the same tests costs more still (docs/main-content.md). Renaming keeps the visible text:
# every renamed tag is a block, as <nav> is. The tree is the agent's own.
BOILERPLATE_ROLES = frozenset(("navigation", "banner", "contentinfo", "complementary", "search"))
_NAMED = re.compile("|".join(map(re.escape, BOILERPLATE_WORDS)))  # any word, anywhere in the value
_ROLES = etree.XPath("//@role")  # the attributes themselves: cheaper than testing each element


def main_text(root: etree._Element) -> str:
    """The page's main content: its visible text without the blocks that repeat on every page
    of a site (navigation, banners, sidebars, footers), so that snippets come from what the
    page says and boilerplate words weigh nothing in ranking; the page's own outline among
    them (`OUTLINE`, which differs on every page) stays. A page whose main content would be
    under a fifth of its text (a hub page of links) keeps all of it."""
    _mark_boilerplate(root)
    main = collapse(str(_stylesheet("main", _MAIN_XSLT)(root)))
    if len(main) >= 200:
        return main
    full = visible_text(root)
    return main if len(main) >= MIN_MAIN_SHARE * len(full) and main else full


def _mark_boilerplate(root: etree._Element) -> None:
    """Rename to <nav> the elements that are boilerplate by their role, class or id."""
    for role in _ROLES(root):
        if role in BOILERPLATE_ROLES:
            role.getparent().tag = "nav"
    for element in root.iter(*BOILERPLATE_NAMED):
        if _NAMED.search(element.get("class") or "") or _NAMED.search(element.get("id") or ""):
            element.tag = "nav"


_local = threading.local()


def _html_parser() -> etree.HTMLParser:
    """One parser per thread: building one costs more than parsing a small page."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = etree.HTMLParser(
            encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True,
            recover=True, default_doctype=False, collect_ids=False,
        )
    return parser


def _text_stylesheet() -> etree.XSLT:
    """The compiled stylesheet, one per thread (lxml XSLT objects are not shared across threads)."""
    return _stylesheet("text", _TEXT_XSLT)


def _stylesheet(name: str, source: str) -> etree.XSLT:
    stylesheet = getattr(_local, name, None)
    if stylesheet is None:
        stylesheet = etree.XSLT(etree.XML(source))
        setattr(_local, name, stylesheet)
    return stylesheet


_TEXT_XSLT = f"""<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:output method="text" encoding="UTF-8"/>
<xsl:template match="{' | '.join(INVISIBLE_TAGS)}"/>
<xsl:template match="{' | '.join(BLOCK_TAGS)}">
<xsl:text> </xsl:text><xsl:apply-templates/><xsl:text> </xsl:text>
</xsl:template>
</xsl:stylesheet>"""
# A list of links into the page itself (a sidebar's "Table of contents") is the page's own
# outline, unlike the site's navigation around it: main content.
OUTLINE = "li/a[starts-with(@href, '#')]"
_MAIN_XSLT = _TEXT_XSLT.replace("<xsl:output", f"""<xsl:template match="{BOILERPLATE}" priority="2">
<xsl:for-each select=".//{OUTLINE}"><xsl:text> </xsl:text><xsl:value-of select="."/></xsl:for-each>
<xsl:text> </xsl:text>
</xsl:template>
<xsl:output""", 1)


def extract_links(
    elements: list[etree._Element], base: str, max_links: int, max_url_length: int,
    names: ParamNames | None = None,
) -> tuple[Outlink, ...]:
    """Followable links in page order, de-duplicated; anchors of repeated targets merged.

    A link's target is resolved once per distinct href (menus repeat them); the loop is
    written out, a page has a hundred links and each call was a tenth of its cost."""
    anchors: dict[str, list[str]] = {}
    seen: dict[str, str | None] = {}  # href -> URL: menus repeat hrefs
    names = names or None  # asked once a page, not once a link
    resolver = PageResolver(base, max_url_length)
    for element in elements:
        href = element.get("href")
        if not href:
            continue
        url = seen.get(href, "")  # "": not seen yet (no URL is empty)
        if url == "":
            url = seen[href] = _link_target(href, resolver, names)
        if url is None:
            continue
        rel = element.get("rel")
        if rel and "nofollow" in rel.lower().split():
            continue
        texts = anchors.get(url)
        if texts is None:
            if len(anchors) >= max_links:
                break
            texts = anchors[url] = []
        elif len(texts) >= MAX_LINK_TEXTS:
            continue  # no room for another text: it is not worth reading
        text = anchor_text(element)
        if text and text not in texts:
            texts.append(text)
    return tuple(Outlink(url, " | ".join(texts)) for url, texts in anchors.items())


def _link_target(href: str, resolver: PageResolver, names: ParamNames | None = None) -> str | None:
    """The normalised target of a link's href, or None for a link into the page itself or
    an uncrawlable one."""
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    url = resolver(href)
    return strip_params(url, names) if url is not None and names is not None else url


def anchor_text(element: etree._Element) -> str:
    """The text of a link, with the alt text of pictures inside it (`_alt_texts`), capped in
    length."""
    if element.tag == "area":
        return collapse(element.get("alt") or "")[:MAX_ANCHOR_CHARS]
    if len(element) == 0:  # the common case: text only
        return collapse(element.text or "")[:MAX_ANCHOR_CHARS]
    return collapse(text_of(element))[:MAX_ANCHOR_CHARS]


def _alt_texts(images: list[etree._Element]) -> None:
    """Write each picture's alt text into its (void) <img> element, for the anchors around it.

    Runs after the page's text, title and headings are taken, so it changes the anchors only;
    once a page, not once an anchor (looking for pictures in each anchor cost more than its
    text)."""
    for img in images:
        img.text = f" {img.get('alt')} "


def text_of(element: etree._Element) -> str:
    """All the text inside `element`, as `"".join(element.itertext())`: libxml2's text
    serialiser makes it in one call, where itertext yields to Python once a piece."""
    return etree.tostring(element, method="text", encoding=str, with_tail=False)


def collapse(text: str) -> str:
    """Runs of white space become one space; no leading or trailing space."""
    return " ".join(text.split())
