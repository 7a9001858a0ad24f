"""Title and text out of PDF, DOCX and ODT files, in the agent, within bounds.

A site's manuals and reports are what its users search for first, and they come as
PDF and office files. They are also the easiest files to make hostile: a PDF cut
short, one locked with a password, a DOCX whose 100 KB of zip inflate to gigabytes.
So every extraction here is bounded, and a file that breaks a bound is a failure
with its reason (data, never an exception across the process boundary):

- time: the retrieval's own deadline; a PDF's pages are read until it passes (what
  was read is kept), and the engine replaces an agent stuck past its deadline anyway;
- memory: a zip member is inflated in pieces and given up past `MAX_MEMBER_BYTES`,
  whatever size its header claims; pypdf caps each stream it inflates; XML is parsed
  without entities, DTDs or huge-tree mode (no billion-laughs);
- output: at most `max_chars` characters of text; DOCX and ODT are read in one pass that
  takes each text node once and stops there (agents/office.py: nesting costs nothing).

The title comes from the file's metadata, else its first heading, else its first line.
pypdf is imported on the first PDF, so that agents that never meet one do not load it.
"""

from __future__ import annotations

import io
import logging
import time
import warnings
import zipfile
from dataclasses import dataclass

from lxml import etree

from webcrawler.agents import office
from webcrawler.agents.parse import MAX_TITLE_CHARS, collapse, first_line
from webcrawler.errors import FetchError

log = logging.getLogger(__name__)

MAX_MEMBER_BYTES = 32 << 20  # one XML part of a DOCX/ODT, inflated
_CHUNK = 1 << 16

DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
ODT_MIME = b"application/vnd.oasis.opendocument.text"


class ExtractError(FetchError):
    """The file's text could not be had; str(error) says why, for the failure's detail."""


@dataclass(frozen=True, slots=True)
class Extracted:
    title: str
    text: str


def extract(kind: str, body: bytes, deadline: float, max_chars: int) -> Extracted:
    """The title and text of a "pdf", "docx" or "odt" body; ExtractError when there are none."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a broken file's complaints are not ours to raise
        if kind == "pdf":
            return _pdf(body, deadline, max_chars)
        return _office(kind, body, max_chars)


def zip_kind(body: bytes) -> str:
    """"docx" or "odt" for a zip that is one, "" for any other zip (or no zip at all)."""
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            names = set(archive.namelist())
            if "word/document.xml" in names:
                return "docx"
            if "content.xml" in names and "mimetype" in names:
                return "odt" if _member(archive, "mimetype", 256).strip() == ODT_MIME else ""
    except (zipfile.BadZipFile, ExtractError, OSError, ValueError, EOFError):
        return ""
    return ""


# PDF

def _pdf(body: bytes, deadline: float, max_chars: int) -> Extracted:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(body), strict=False)
        if reader.is_encrypted and not _decrypted(reader):
            raise ExtractError("encrypted PDF (a password is needed)")
        texts = _pdf_pages(reader, deadline, max_chars)
        title = _pdf_title(reader)
    except ExtractError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError,
            RecursionError, OSError, EOFError, AssertionError, ZeroDivisionError) as exc:
        raise ExtractError(f"unreadable PDF ({type(exc).__name__}: {str(exc)[:200]})") from None
    text = collapse(" ".join(texts))[:max_chars]
    if not text:
        raise ExtractError("PDF without text (scanned pages?)")
    return Extracted(title or first_line(texts), text)


def _decrypted(reader: object) -> bool:
    """Many PDFs are "encrypted" with an empty user password: they open for anyone."""
    try:
        return bool(reader.decrypt(""))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - unsupported algorithm, missing crypto library, ...
        return False


def _pdf_pages(reader: object, deadline: float, max_chars: int) -> list[str]:
    texts: list[str] = []
    total = 0
    for page in reader.pages:  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            if not texts:
                raise ExtractError("PDF text not extracted within the retrieval's time")
            log.debug("PDF cut at page %d: deadline", len(texts))
            break
        text = page.extract_text() or ""
        texts.append(text)
        total += len(text)
        if total >= max_chars:
            break
    return texts


def _pdf_title(reader: object) -> str:
    try:
        metadata = reader.metadata  # type: ignore[attr-defined]
        title = metadata.title if metadata is not None else None
    except Exception:  # noqa: BLE001 - a broken info dictionary is no title, not a failure
        return ""
    return collapse(str(title or ""))[:MAX_TITLE_CHARS]


# DOCX and ODT (zip files of XML)

def _office(kind: str, body: bytes, max_chars: int) -> Extracted:
    name = "word/document.xml" if kind == "docx" else "content.xml"
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            info = archive.getinfo(name)
            if info.file_size > MAX_MEMBER_BYTES:
                raise ExtractError(f"decompression bomb: {name} claims {info.file_size:,} bytes")
            with archive.open(info) as stream:
                read = office.read_blocks(kind, stream, MAX_MEMBER_BYTES, max_chars)
            meta = _optional(archive, "docProps/core.xml" if kind == "docx" else "meta.xml")
    except office.TooLarge:
        raise ExtractError(f"decompression bomb: {name} inflates past "
                           f"{MAX_MEMBER_BYTES:,} bytes") from None
    except office.Refused as exc:
        raise ExtractError(f"unreadable {kind.upper()} ({exc})") from None
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, KeyError, NotImplementedError,
            RuntimeError, etree.XMLSyntaxError) as exc:
        raise ExtractError(f"unreadable {kind.upper()} ({type(exc).__name__}: "
                           f"{str(exc)[:200]})") from None
    text = collapse(" ".join(read.blocks))[:max_chars]
    if not text:
        raise ExtractError(f"{kind.upper()} without text")
    heading = read.heading[:MAX_TITLE_CHARS]
    title = _metadata_title(meta) or heading or first_line(read.blocks)
    return Extracted(title, text)


def _member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """One member, inflated in pieces: past `limit` bytes it is a decompression bomb."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise ExtractError(f"decompression bomb: {name} claims {info.file_size:,} bytes")
    out = bytearray()
    with archive.open(info) as stream:
        while chunk := stream.read(_CHUNK):
            out += chunk
            if len(out) > limit:
                raise ExtractError(f"decompression bomb: {name} inflates past {limit:,} bytes")
    return bytes(out)


def _optional(archive: zipfile.ZipFile, name: str) -> bytes:
    try:
        return _member(archive, name, 1 << 20)
    except KeyError:
        return b""


def _xml(data: bytes) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             huge_tree=False, remove_comments=True, remove_pis=True)
    return etree.fromstring(data, parser)


def _metadata_title(meta: bytes) -> str:
    if not meta:
        return ""
    try:
        root = _xml(meta)
    except etree.XMLSyntaxError:
        return ""
    element = next(root.iter(DC_TITLE), None)
    return collapse(element.text or "")[:MAX_TITLE_CHARS] if element is not None else ""

