"""The index's schema and the helpers that turn documents into fields.

Fields: `doc_id` (unique key, also a column so the ids of a committed index read
fast), `content` (title, URL words, headings, anchor texts and body, each part weighted,
positions for phrases, peculiarity-weighted: `extras`),
`host` (the words `site:` matches), and stored `url`, `title`, `text` (the start
of the visible text, for snippets; Whoosh's W3 codec already zlib-compresses
each document's stored fields). The facets' fields: `site` (the host, a column
only), `kind` (the document's type) and `lang` (its language), each a column of
one small number per document pointing into the segment's distinct values
(`facets.py` counts matches with them); `kind` and `lang` are also terms, for the
`type:` and `lang:` filters on Whoosh's path. `inlinks` and `outlinks`, columns of
counts from the links table, make the ranking's link-based prior (`prior.py`).
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import unquote, urlsplit

from whoosh.columns import NumericColumn, RefBytesColumn
from whoosh.fields import COLUMN, ID, KEYWORD, STORED, Schema

from webcrawler.index.format.analysis import TitledText
from webcrawler.index.format.postings import ContentField
from webcrawler.index.models import IndexedDocument
from webcrawler.text.language import detect

CONTENT = "content"
SNIPPET_CHARS = 6000  # stored text per document: enough for a snippet, not the whole page
URL_WEIGHT = 2.0  # a word of the URL's path, in the content's word weights (analysis.py)
HEADING_WEIGHT = 1.0  # a word of an h1-h3 heading, on top of its place in the body
ANCHOR_WEIGHT = 2.0  # a word of a link's text from another server
SITE_ANCHOR_WEIGHT = 1.0  # ... from the page's own server: navigation, weaker evidence
MAX_ANCHORS = 20  # distinct anchor texts kept per kind, the first seen
MAX_ANCHOR_CHARS = 120
MAX_COUNT = 2**32 - 1  # link counts are kept as unsigned 32-bit numbers
_EXTENSION = re.compile(r"\.[a-z0-9]{1,5}$", re.IGNORECASE)


def build_schema() -> Schema:
    return Schema(
        doc_id=ID(unique=True, stored=True, sortable=True),
        url=STORED,
        title=STORED,
        text=STORED,
        host=KEYWORD(lowercase=True, scorable=False),
        content=ContentField(),
        site=COLUMN(RefBytesColumn()),
        kind=ID(sortable=RefBytesColumn()),
        lang=ID(sortable=RefBytesColumn()),
        inlinks=COLUMN(NumericColumn("I")),
        outlinks=COLUMN(NumericColumn("I")),
    )


def document_kind(content_type: str) -> str:
    """The `type:` facet's value for a media type: its subtype without vendor clutter.

    >>> document_kind("text/html; charset=utf-8"), document_kind("application/pdf")
    ('html', 'pdf')
    """
    media = content_type.split(";", 1)[0].strip().lower()
    subtype = media.rpartition("/")[2]
    kind = KINDS.get(media) or subtype.removeprefix("x-").rpartition("+")[0] or subtype
    return kind.removeprefix("x-")[:32] or "html"


KINDS = {  # media types whose subtype is not the name people know
    "": "html",
    "application/xhtml+xml": "html",
    "text/plain": "text",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/msword": "doc",
    "application/vnd.oasis.opendocument.text": "odt",
}


def host_terms(host: str) -> list[str]:
    """What `site:` can name for `host`: itself, itself without the port, and parent domains.

    >>> host_terms("Docs.Python.org:8080")
    ['docs.python.org:8080', 'docs.python.org', 'python.org']
    """
    host = host.strip().lower()
    if not host:
        return []
    terms = [host]
    name = host
    if host.startswith("["):  # [::1]:8080
        name = host[: host.find("]") + 1] if "]" in host else host
    elif host.count(":") == 1:
        name = host.rsplit(":", 1)[0]
    if name != host:
        terms.append(name)
    try:
        ipaddress.ip_address(name.strip("[]"))
        return terms
    except ValueError:
        pass
    labels = name.split(".")
    terms.extend(".".join(labels[i:]) for i in range(1, len(labels) - 1))
    return terms


def fields_of(doc: IndexedDocument) -> dict[str, object]:
    """The Whoosh field values for one document."""
    return {
        "doc_id": str(doc.doc_id),
        "url": doc.url,
        "title": doc.title,
        "text": doc.text[:SNIPPET_CHARS],
        "host": " ".join(host_terms(doc.host)),
        CONTENT: TitledText(doc.title, doc.text, extras(doc)),
        "site": doc.host.strip().lower().encode("utf-8"),
        "kind": doc.kind or "html",
        "lang": doc.language or detect(doc.title, doc.text) or "unknown",
        "inlinks": min(doc.inlinks, MAX_COUNT),
        "outlinks": min(doc.outlinks, MAX_COUNT),
    }


def extras(doc: IndexedDocument) -> tuple[tuple[str, float], ...]:
    """The weighted parts of a document beyond its title and body: its URL's words, its
    headings (the author's own summaries of its sections; they are in the body too, so a
    heading's word weighs 1 + `HEADING_WEIGHT`) and the distinct
    anchor texts of links to it (other servers' weigh more than its own's)."""
    found: list[tuple[str, float]] = [(url_words(doc.url), URL_WEIGHT)]
    found += [(heading, HEADING_WEIGHT) for heading in doc.headings]
    for texts, weight in ((doc.anchors, ANCHOR_WEIGHT), (doc.site_anchors, SITE_ANCHOR_WEIGHT)):
        distinct = dict.fromkeys(" ".join(t.split())[:MAX_ANCHOR_CHARS].lower() for t in texts)
        found += [(text, weight) for text in list(distinct)[:MAX_ANCHORS] if text]
    return tuple(found)


def url_words(url: str) -> str:
    """The words a URL's path names, without the file extension.

    >>> url_words("http://docs.test/3/library/os.path.html?x=1")
    '3 library os path'
    """
    try:
        path = unquote(urlsplit(url).path)
    except ValueError:
        return ""
    return " ".join(_EXTENSION.sub("", path).replace("/", " ").replace(".", " ").split())
