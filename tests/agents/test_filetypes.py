"""Files the index cannot use are skipped by extension, by Content-Type and by their bytes."""

from __future__ import annotations

import gzip

import pytest

from webcrawler.protocol.filetypes import (
    binary_bytes,
    document_magic,
    indexable_type,
    mime_type,
    unindexable_response,
    unindexable_url,
    wanted_type,
)


@pytest.mark.parametrize("url", [
    "http://h.test/a.png", "http://h.test/a.JPG", "http://h.test/dir/song.mp3",
    "http://h.test/film.mkv", "http://h.test/paper.ps",
    "http://h.test/src.tar.gz", "http://h.test/x.zip", "http://h.test/setup.exe",
    "http://h.test/font.woff2", "http://h.test/sheet.xls", "http://h.test/slides.pptx",
    "http://h.test/a%2Egif", "http://h.test/a.png?size=2",
])
def test_unindexable_extensions(url: str) -> None:
    assert unindexable_url(url)


@pytest.mark.parametrize("url", [
    "http://h.test/", "http://h.test/index.html", "http://h.test/a.txt", "http://h.test/page",
    "http://h.test/x.php?file=a.png", "http://h.test/sites/example.com", "http://h.test/v1.2/",
    "http://h.test/.png/", "not a url at all",
])
def test_indexable_extensions(url: str) -> None:
    assert not unindexable_url(url)


def test_document_kinds_by_extension_follow_the_crawls_types() -> None:
    for url in ("http://h.test/paper.pdf", "http://h.test/report.docx", "http://h.test/a.odt"):
        assert not unindexable_url(url)
        assert unindexable_url(url, ("html", "text"))
    assert unindexable_url("http://h.test/a.txt", ("html", "pdf"))
    assert unindexable_url("http://h.test/a.png?x=a.pdf", ("html", "pdf"))


def test_wanted_types_and_document_magic() -> None:
    assert wanted_type("application/pdf", "http://h.test/x") is True
    assert wanted_type("application/pdf", "http://h.test/x", ("html",)) is False
    assert wanted_type("application/octet-stream", "http://h.test/a.pdf") is True
    assert wanted_type("application/octet-stream", "http://h.test/a.bin") is False
    assert wanted_type("image/png", "http://h.test/a.pdf") is False
    assert wanted_type("", "http://h.test/a") is None
    assert document_magic(b"%PDF-1.7") and not document_magic(b"%PDF-1.7", ("html", "docx"))
    assert document_magic(b"PK\x03\x04") and not document_magic(b"PK\x03\x04", ("pdf",))
    assert not document_magic(b"\x89PNG")


def test_mime_type_is_lowercased_without_parameters() -> None:
    assert mime_type("Text/HTML; charset=UTF-8") == "text/html"
    assert mime_type(None) == ""
    assert indexable_type("application/xhtml+xml") is True
    assert indexable_type("image/png") is False
    assert indexable_type("") is None


@pytest.mark.parametrize("head", [
    b"\x89PNG\r\n\x1a\n\x00\x00", b"GIF89a\x01\x00", b"\xff\xd8\xff\xe0\x00\x10JFIF",
    b"%PDF-1.7\n", b"PK\x03\x04\x14\x00", gzip.compress(b"hello", mtime=0), b"\x7fELF\x02\x01\x01",
    b"MZ\x90\x00\x03\x00", b"RIFF\x24\x00\x00\x00WAVEfmt ", b"\x00\x00\x00\x18ftypmp42",
    b"<html>\x00\x00\x00</html>",
])
def test_binary_bytes(head: bytes) -> None:
    assert binary_bytes(head)


@pytest.mark.parametrize("head", [
    b"<!DOCTYPE html><html>", b"plain words", b"", b"MZ is a name\n",
    b"BMW and Audi", "h\xe9".encode("utf-16"), b"\xef\xbb\xbf<p>bom</p>",
])
def test_text_bytes(head: bytes) -> None:
    assert not binary_bytes(head)


def test_unindexable_response_prefers_the_label_then_the_bytes() -> None:
    assert unindexable_response("image/png", b"<html>") == "content type image/png"
    assert "binary" in unindexable_response("text/html", b"%PDF-1.4")
    assert unindexable_response("text/html; charset=utf-8", b"<html>") == ""
    assert unindexable_response(None, b"hello") == ""
