"""Small real PDF, DOCX and ODT files, and hostile ones, for tests and benchmarks.

The PDF is written by pypdf (a page with a Helvetica text stream, a title in its
info dictionary); DOCX and ODT are what they are, zip files of XML, written with
zipfile. The hostile files are what a crawler meets: a PDF cut short, one locked
with a password, a DOCX whose document inflates to hundreds of megabytes.
"""

from __future__ import annotations

import io
import zipfile
from xml.sax.saxutils import escape


def pdf(lines: list[str], title: str = "", password: str = "") -> bytes:
    """A PDF with one page per line group (a list item = one page); encrypted with RC4 when
    a `password` is given."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
    })
    font_ref = writer._add_object(font)
    for line in lines:
        page = writer.add_blank_page(612, 792)
        stream = DecodedStreamObject()
        text = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream.set_data(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject({
            NameObject("/Font"): DictionaryObject({NameObject("/F1"): font_ref})})
    if title:
        writer.add_metadata({"/Title": title})
    if password:
        writer.encrypt(user_password=password, owner_password=password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def docx(paragraphs: list[str], title: str = "", heading: str = "") -> bytes:
    """A DOCX: `heading` as a Heading1 paragraph, then `paragraphs`; `title` in docProps."""
    body = ""
    if heading:
        body += (f'<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>'
                 f"<w:r><w:t>{escape(heading)}</w:t></w:r></w:p>")
    body += "".join(f"<w:p><w:r><w:t>{escape(p)}</w:t></w:r></w:p>" for p in paragraphs)
    document = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                f'<w:document xmlns:w="{W_NS}"><w:body>{body}</w:body></w:document>')
    files = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.'
                               'org/package/2006/content-types"/>',
        "word/document.xml": document,
    }
    if title:
        files["docProps/core.xml"] = (
            '<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/'
            'package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">'
            f"<dc:title>{escape(title)}</dc:title></cp:coreProperties>")
    return _zip(files)


def odt(paragraphs: list[str], title: str = "", heading: str = "") -> bytes:
    """An ODT (OpenDocument text): `heading` as text:h, then `paragraphs`; `title` in meta.xml."""
    text_ns = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    office_ns = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    body = f'<text:h text:outline-level="1">{escape(heading)}</text:h>' if heading else ""
    body += "".join(f"<text:p>{escape(p)}</text:p>" for p in paragraphs)
    files = {
        "mimetype": "application/vnd.oasis.opendocument.text",
        "content.xml": (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content '
                        f'xmlns:office="{office_ns}" xmlns:text="{text_ns}"><office:body>'
                        f"<office:text>{body}</office:text></office:body>"
                        "</office:document-content>"),
    }
    if title:
        files["meta.xml"] = (f'<?xml version="1.0"?><office:document-meta xmlns:office="{office_ns}" '
                             'xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta>'
                             f"<dc:title>{escape(title)}</dc:title></office:meta>"
                             "</office:document-meta>")
    return _zip(files)


def zip_bomb_docx(inflated: int = 100 << 20) -> bytes:
    """A DOCX of about inflated / 1000 bytes whose document.xml inflates to `inflated` bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w") as member:
            member.write(f'<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>'.encode())
            chunk = b" " * (1 << 20)
            for _ in range(inflated >> 20):
                member.write(chunk)
            member.write(b"</w:t></w:r></w:p></w:body></w:document>")
    return out.getvalue()


def nested_docx(depth: int, words: int, tail: str = "") -> bytes:
    """A DOCX of `depth` paragraphs each inside the last, each holding its own word
    ("level0" ...) and the deepest `words` more; `tail` (raw XML) after the outermost one."""
    body = "".join(f"<w:p><w:r><w:t>level{i} </w:t></w:r>" for i in range(depth))
    body += f"<w:r><w:t>{'deep ' * words}</w:t></w:r>" + "</w:p>" * depth + tail
    document = (f'<?xml version="1.0" encoding="UTF-8"?>'
                f'<w:document xmlns:w="{W_NS}"><w:body>{body}</w:body></w:document>')
    return _zip({"[Content_Types].xml": "<Types/>", "word/document.xml": document})


def nested_odt(depth: int, words: int, tail: str = "") -> bytes:
    """An ODT of `depth` levels of text:p > text:span > text:p, each level with its own word,
    the deepest with `words` more; `tail` (raw XML) after the outermost paragraph."""
    text_ns = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    office_ns = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    body = "".join(f"<text:p>level{i} <text:span>" for i in range(depth))
    body += "deep " * words + "</text:span></text:p>" * depth + tail
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               f'xmlns:office="{office_ns}" xmlns:text="{text_ns}"><office:body><office:text>'
               f"{body}</office:text></office:body></office:document-content>")
    return _zip({"mimetype": "application/vnd.oasis.opendocument.text", "content.xml": content})


def _zip(files: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            method = zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED
            archive.writestr(name, content, compress_type=method)
    return out.getvalue()
