"""Which files the index can use, judged by URL extension, Content-Type and first bytes.

The index wants text: HTML and plain text, and the text inside PDF, DOCX and ODT
files (agents/extract.py), each kind fetched only when the crawl's `types` name it.
Pictures, sound, video, PostScript, archives, fonts, executables and other office
documents cost bandwidth and give nothing to index, so they are skipped as early as
possible: before the request when the URL's extension says so (the engine calls
`unindexable_url` too), and before the body is parsed when the response header or the
first bytes say so. A server that labels a binary file text/html must not get it into
the index.

Pure functions: no I/O, no state.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from webcrawler.protocol.messages import DOCUMENT_TYPES, KIND_OF_TYPE

INDEXABLE_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
TYPE_OF_KIND = {"html": "text/html", "text": "text/plain", "pdf": "application/pdf",
                "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                "odt": "application/vnd.oasis.opendocument.text"}
KIND_OF_EXTENSION = {"pdf": "pdf", "docx": "docx", "odt": "odt", "txt": "text"}
# Labels that say nothing about the content: the URL's extension and the bytes decide.
GENERIC_TYPES = frozenset({
    "application/octet-stream", "binary/octet-stream", "application/zip",
    "application/x-zip-compressed", "application/download", "application/x-download",
    "application/force-download",
})

# Extensions of files we never request. Lower case, without the dot.
UNINDEXABLE_EXTENSIONS = frozenset(
    """
    png gif jpg jpeg jpe jfif pjpeg pjp bmp tif tiff ico cur svg svgz webp avif heic heif
    psd xcf ai eps ps pcx tga jp2 jxl raw cr2 nef dng xbm xpm pbm pgm ppm
    mp3 wav ogg oga opus flac aac m4a wma mid midi aif aiff au snd ra ram amr
    mp4 m4v mov avi wmv flv f4v mkv webm mpg mpeg mpe 3gp 3g2 ogv qt asf rm rmvb vob
    pdf dvi djvu xps
    zip gz tgz bz2 tbz tbz2 xz txz lz lzma zst 7z rar tar z lha lzh arj cab ace sit sitx
    iso img dmg toast vcd cpio shar apk jar war ear deb rpm msi msm pkg snap
    exe dll so bin class pyc pyo wasm elf dylib
    woff woff2 ttf otf eot pfb pfm fon
    doc docx docm dot dotx xls xlsx xlsm xlt ppt pptx pps ppsx odt ods odp odg odf rtf
    pub vsd mdb accdb wpd wps
    swf fla sqlite
    """.split()
)

# (offset, magic bytes) of binary formats: what `file(1)` would look at first.
_MAGIC = (
    b"\x89PNG\r\n\x1a\n",  # PNG
    b"GIF87a",
    b"GIF89a",
    b"\xff\xd8\xff",  # JPEG
    b"%PDF-",
    b"%!PS",  # PostScript
    b"PK\x03\x04",  # ZIP, and so jar/docx/xlsx/odt/apk
    b"PK\x05\x06",  # empty ZIP
    b"\x1f\x8b",  # gzip
    b"BZh",  # bzip2
    b"\xfd7zXZ\x00",  # xz
    b"7z\xbc\xaf\x27\x1c",  # 7-Zip
    b"Rar!\x1a\x07",  # RAR
    b"\x28\xb5\x2f\xfd",  # zstd
    b"\x7fELF",  # ELF executable
    b"MZ",  # DOS/Windows executable
    b"\xca\xfe\xba\xbe",  # Java class / Mach-O fat
    b"\xcf\xfa\xed\xfe",  # Mach-O 64
    b"\xce\xfa\xed\xfe",  # Mach-O 32
    b"\x00asm",  # WebAssembly
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",  # OLE2: old office documents
    b"{\\rtf",  # RTF
    b"II*\x00",  # TIFF little-endian
    b"MM\x00*",  # TIFF big-endian
    b"BM",  # BMP (checked with care below: "BM" also starts words)
    b"\x00\x00\x01\x00",  # ICO
    b"OggS",
    b"fLaC",
    b"ID3",  # MP3 with tag
    b"\xff\xfb",  # MP3 frame
    b"\x1aE\xdf\xa3",  # Matroska / WebM
    b"FWS",  # Flash
    b"CWS",
    b"wOFF",
    b"wOF2",
    b"\x00\x01\x00\x00\x00",  # TrueType
    b"OTTO",  # OpenType
    b"SQLite format 3\x00",
)
_TEXTUAL_MAGIC_RISK = (b"BM", b"MZ", b"ID3", b"FWS", b"CWS", b"BZh", b"OTTO", b"%!PS")
_RIFF_KINDS = (b"WAVE", b"AVI ", b"WEBP")
SNIFF_BYTES = 1024


def unindexable_url(url: str, types: tuple[str, ...] = DOCUMENT_TYPES) -> bool:
    """True when the URL's path ends in an extension of a file the index cannot use, or of a
    kind of document the crawl's `types` leave out."""
    extension = url_extension(url)
    if extension == "gz" and looks_like_sitemap(url):
        return False  # sitemap.xml.gz: read by agents/sitemap.py
    kind = KIND_OF_EXTENSION.get(extension)
    if kind is not None:
        return kind not in types
    return extension in UNINDEXABLE_EXTENSIONS


def looks_like_sitemap(url: str) -> bool:
    """Does the URL's last path segment name a sitemap (sitemap.xml, sitemap-2.txt.gz, ...)?"""
    try:
        last = unquote(urlsplit(url).path.rsplit("/", 1)[-1]).lower()
    except ValueError:
        return False
    return "sitemap" in last and last.endswith((".xml", ".xml.gz", ".txt", ".txt.gz", ".gz"))


def url_extension(url: str) -> str:
    """The lower-cased extension of the URL's last path segment ("" when none)."""
    try:
        path = urlsplit(url).path
    except ValueError:
        return ""
    last = unquote(path.rsplit("/", 1)[-1])
    return last.rsplit(".", 1)[1].lower() if "." in last else ""


def wanted_type(mime: str, url: str, types: tuple[str, ...] = DOCUMENT_TYPES) -> bool | None:
    """Is a response labelled `mime` a kind the crawl fetches? None when the server did not say.

    A generic label (application/octet-stream, ...) is wanted when the URL's extension
    names a wanted PDF, DOCX or ODT: the first bytes decide afterwards.
    """
    if not mime:
        return None
    kind = KIND_OF_TYPE.get(mime)
    if kind is not None:
        return kind in types
    if mime in GENERIC_TYPES:
        return KIND_OF_EXTENSION.get(url_extension(url)) in set(types) - {"text", "html"}
    return False


def document_magic(head: bytes, types: tuple[str, ...] = DOCUMENT_TYPES) -> bool:
    """Do the first bytes start a PDF, or a zip (DOCX, ODT), of a kind the crawl fetches?"""
    if head.startswith(b"%PDF-"):
        return "pdf" in types
    return head.startswith(b"PK\x03\x04") and ("docx" in types or "odt" in types)


def mime_type(content_type: str | None) -> str:
    """The lower-cased media type without parameters: "Text/HTML; charset=x" -> "text/html"."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def indexable_type(mime: str) -> bool | None:
    """True for text types we parse, False for others, None when the server did not say."""
    if not mime:
        return None
    return mime in INDEXABLE_TYPES


def binary_bytes(head: bytes) -> bool:
    """True when the first bytes of a body look like a binary file, whatever the label says.

    Text encoded as UTF-16/32 contains NUL bytes too, so a body starting
    with a UTF-16/32 byte-order mark is treated as text.
    """
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    for magic in _MAGIC:
        if head.startswith(magic) and not _probably_text(head, magic):
            return True
    if head.startswith(b"RIFF") and head[8:12] in _RIFF_KINDS:
        return True
    if head[4:12] in (b"ftypisom", b"ftypmp42", b"ftypqt  ", b"ftypM4A ", b"ftypheic", b"ftypavif"):
        return True
    return b"\x00" in head[:SNIFF_BYTES]


def _probably_text(head: bytes, magic: bytes) -> bool:
    """Short magics that also start ordinary words ("BMW", "MZ...") need a non-text byte."""
    if magic not in _TEXTUAL_MAGIC_RISK:
        return False
    sample = head[:64]
    return all(32 <= b < 127 or b in (9, 10, 13) for b in sample)


def unindexable_response(content_type: str | None, head: bytes) -> str:
    """Why a response cannot be indexed ("" when it can): judged by its label, then its bytes."""
    mime = mime_type(content_type)
    if indexable_type(mime) is False:
        return f"content type {mime}"
    if binary_bytes(head):
        return f"binary content (labelled {mime or 'nothing'})"
    return ""
