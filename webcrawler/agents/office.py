"""The text of a DOCX or ODT part, read in one pass: each text node once, stopping at the cap.

A paragraph may hold another (`w:p` inside `w:p`, `text:p > text:span > text:p`): a hostile
file nests them a couple of hundred deep. Collecting each paragraph's text from its whole
subtree copies the deepest text once per level (a 1.4 KB DOCX took 561 MB), so nothing here
looks at a subtree. The XML is never built as a tree either: the inflated part is fed in
pieces to a parser whose target sees start tags, end tags and character data in document
order (lxml's target-parser interface, libxml2 underneath), so the work and the memory follow
the bytes read, the nesting costs one stack entry per level, and reading stops at the first
piece after the text reaches `max_chars` (or the part passes `limit` bytes: a zip bomb).

Blocks are cut at every paragraph's start and end; a block takes the style of the innermost
paragraph open when it is cut (the DOCX title or heading, the ODT `text:h`).
Never an entity, a DTD or the network: a parser target gets entities expanded whatever the
parser's options say, so a part that declares a DTD is refused before its first declaration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO

from lxml import etree

from webcrawler.errors import FetchError

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
TEXT_NS = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_CHUNK = 1 << 16
_HEADING_STYLES = frozenset({"title", "heading1", "heading 1"})
_DOCX = {"paragraphs": frozenset({f"{W}p"}), "text": frozenset({f"{W}t"}),
         "spaces": frozenset({f"{W}tab", f"{W}br", f"{W}cr"})}
_ODT = {"paragraphs": frozenset({f"{TEXT_NS}p", f"{TEXT_NS}h"}), "text": frozenset(),
        "spaces": frozenset({f"{TEXT_NS}s", f"{TEXT_NS}tab", f"{TEXT_NS}line-break"})}


class Refused(FetchError):
    """Not a part to read (a DTD); str(error) says why. The caller makes it an ExtractError."""


class TooLarge(Refused):
    """The part inflated past its limit."""


@dataclass
class Blocks:
    """What a target collects: the text blocks in order, the first heading, and a count of the
    characters that are not white space (the output is at least that long once collapsed)."""

    kind: str
    max_chars: int
    blocks: list[str] = field(default_factory=list)
    heading: str = ""
    chars: int = 0
    _parts: list[str] = field(default_factory=list)
    _styles: list[bool] = field(default_factory=list)  # per open paragraph: a heading?
    _text_depth: int = 0  # open w:t elements (DOCX: only their data is text)
    _tags: list[str] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return self.chars >= self.max_chars

    # lxml's parser-target interface

    def doctype(self, *_declared: object) -> None:
        """Called before the DTD's declarations are read: a parser target is handed entities
        already expanded, so a part with a DTD (OOXML and ODF have none) is refused first."""
        raise Refused(f"a DTD in the {self.kind.upper()} (never read: no entity is expanded)")

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        names = _DOCX if self.kind == "docx" else _ODT
        if tag in names["paragraphs"]:
            self._cut()
            self._styles.append(tag == f"{TEXT_NS}h")
        elif tag in names["text"]:
            self._text_depth += 1
        elif tag in names["spaces"]:
            self._add(" ")
        elif tag == f"{W}pStyle" and self._tags[-2:] == [f"{W}p", f"{W}pPr"]:
            self._styles[-1] = (attrib.get(f"{W}val") or "").lower() in _HEADING_STYLES
        self._tags.append(tag)

    def end(self, tag: str) -> None:
        names = _DOCX if self.kind == "docx" else _ODT
        self._tags.pop()
        if tag in names["paragraphs"]:
            self._cut()
            self._styles.pop()
        elif tag in names["text"]:
            self._text_depth -= 1

    def data(self, text: str) -> None:
        if self._styles and (self.kind == "odt" or self._text_depth > 0):
            self._add(text)

    def close(self) -> Blocks:
        self._cut()
        return self

    def _add(self, text: str) -> None:
        if not self.full:
            self._parts.append(text)
            self.chars += sum(map(len, text.split()))

    def _cut(self) -> None:
        if not self._parts:
            return
        text = "".join(self._parts)
        self._parts.clear()
        if not text.strip():
            return
        self.blocks.append(text)
        if not self.heading and self._styles and self._styles[-1]:
            self.heading = " ".join(text.split())


def read_blocks(kind: str, stream: IO[bytes], limit: int, max_chars: int) -> Blocks:
    """The blocks of a "docx" document.xml or an "odt" content.xml read from `stream`.

    Raises TooLarge past `limit` inflated bytes, Refused for a DTD, and lxml's XMLSyntaxError
    for broken XML.
    """
    target = Blocks(kind, max_chars)
    parser = etree.XMLParser(target=target, resolve_entities=False, no_network=True,
                             load_dtd=False, huge_tree=False)
    read = 0
    while not target.full and (chunk := stream.read(_CHUNK)):
        read += len(chunk)
        if read > limit:
            raise TooLarge(read)
        parser.feed(chunk)
    if target.full:
        return target.close()
    result: Blocks = parser.close()
    return result
