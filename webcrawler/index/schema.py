"""The index's schema and the helpers that turn documents into fields.

Fields: `doc_id` (unique key, also a column so the ids of a committed index read
fast), `content` (title + body, positions for phrases, peculiarity-weighted),
`host` (the words `site:` matches), and stored `url`, `title`, `text` (the start
of the visible text, for snippets; Whoosh's W3 codec already zlib-compresses
each document's stored fields).
"""

from __future__ import annotations

import ipaddress

from whoosh.fields import ID, KEYWORD, STORED, Schema

from webcrawler.index.analysis import TitledText
from webcrawler.index.models import IndexedDocument
from webcrawler.index.postings import ContentField

CONTENT = "content"
SNIPPET_CHARS = 6000  # stored text per document: enough for a snippet, not the whole page


def build_schema() -> Schema:
    return Schema(
        doc_id=ID(unique=True, stored=True, sortable=True),
        url=STORED,
        title=STORED,
        text=STORED,
        host=KEYWORD(lowercase=True, scorable=False),
        content=ContentField(),
    )


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
        CONTENT: TitledText(doc.title, doc.text),
    }
