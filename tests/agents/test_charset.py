"""Bytes become text: BOM, then header, then the document's own declaration, then detection."""

from __future__ import annotations

import pytest

from webcrawler.agents.charset import codec_for, declared_charset, decode, utf8_bytes

FRENCH = "Ceci est un texte français, très élégant, à côté de la rivière, où l'été dure. " * 4


def test_bom_wins_over_everything() -> None:
    text, used = decode(b"\xef\xbb\xbfcaf\xc3\xa9", "text/html; charset=iso-8859-1")
    assert (text, used) == ("café", "utf-8")
    text, used = decode("<p>hé</p>".encode("utf-16"), "text/html; charset=utf-8")
    assert text == "<p>hé</p>" and used.startswith("utf-16")


def test_header_charset_wins_over_meta() -> None:
    body = '<meta charset="utf-8"><p>Привет</p>'.encode("koi8-r")
    assert decode(body, "text/html; charset=KOI8-R")[0].endswith("Привет</p>")


def test_latin1_label_decodes_as_windows_1252() -> None:
    text, used = decode(b"\x93quoted\x94 caf\xe9", "text/html; charset=ISO-8859-1")
    assert text == "\u201cquoted\u201d café" and used == "windows-1252"


@pytest.mark.parametrize("declaration", [
    '<meta charset="shift_jis">',
    "<meta charset=shift_jis>",
    '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">',
    '<?xml version="1.0" encoding="shift_jis"?>',
])
def test_document_declaration(declaration: str) -> None:
    body = (declaration + "<p>日本語のページ</p>").encode("shift_jis")
    text, used = decode(body, "text/html")
    assert "日本語のページ" in text and used == "shift_jis"


def test_meta_beyond_the_prescan_is_ignored() -> None:
    body = b" " * 5000 + b'<meta charset="koi8-r">'
    assert declared_charset(body) == ""


def test_detects_undeclared_latin1() -> None:
    text, used = decode(FRENCH.encode("latin-1"), None)
    assert text == FRENCH and used == "windows-1252"


def test_detects_undeclared_cyrillic_after_a_long_ascii_prefix() -> None:
    russian = "Это страница на русском языке, и в ней нет объявления кодировки. " * 3
    body = b"<html>" + b" " * 40_000 + russian.encode("cp1251")
    text, used = decode(body, "text/html")
    assert used == "cp1251" and russian in text


@pytest.mark.parametrize("label", ["bogus", "base64", "rot13", "utf-7", "unicode_escape", "", "x"])
def test_bogus_labels_fall_through(label: str) -> None:
    assert codec_for(label) == ""
    text, used = decode("naïve".encode(), f"text/html; charset={label}")
    assert (text, used) == ("naïve", "utf-8")


def test_invalid_utf8_is_replaced_not_raised() -> None:
    text, used = decode(b"ok \xff\xfe\xfa bytes", "text/plain; charset=utf-8")
    assert text.startswith("ok ") and "\ufffd" in text and used == "utf-8"


def test_meta_claiming_utf16_means_utf8() -> None:
    assert decode('<meta charset="utf-16"><p>é</p>'.encode(), None)[0].endswith("é</p>")


@pytest.mark.parametrize(("body", "header"), [
    ("<p>Привет, café ☃ 😀</p>".encode(), "text/html; charset=utf-8"),
    (b"<p>plain ASCII</p>", "text/html; charset=utf-8"),
    ('<meta charset="utf-8"><p>\ufffd spelled out</p>'.encode(), None),
    (b"\xef\xbb\xbf<p>caf\xc3\xa9 after a BOM</p>", None),
    (b"<p>broken \xff\xfe and a lone surrogate \xed\xa0\x80</p>", "text/html; charset=utf-8"),
    (b"<p>overlong \xc0\xaf</p>", "text/html; charset=utf-8"),
    ("<p>Привет</p>".encode("koi8-r"), "text/html; charset=KOI8-R"),
    (b"\x93quoted\x94 caf\xe9", "text/html; charset=ISO-8859-1"),
])
def test_utf8_bytes_are_the_body_only_when_they_are_the_text_encoded(
        body: bytes, header: str | None) -> None:
    text, used = decode(body, header)
    same = utf8_bytes(body, text, used)
    assert same is None or same == text.encode("utf-8", errors="replace")
    assert (same is body) == (used == "utf-8" and "\ufffd" not in text
                              and not body.startswith(b"\xef\xbb\xbf"))


def test_utf8_bytes_vouch_for_valid_utf8() -> None:
    body = "<p>Привет, café</p>".encode()
    assert utf8_bytes(body, *decode(body, "text/html; charset=utf-8")) is body
    broken = b"<p>caf\xe9</p>"
    assert utf8_bytes(broken, *decode(broken, "text/html; charset=utf-8")) is None
