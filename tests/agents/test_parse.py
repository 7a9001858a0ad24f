"""HTML -> title, visible text, links and robots flags; never an exception."""

from __future__ import annotations

import pytest

from webcrawler.agents.parse import _defuse, parse_html, parse_plain
from webcrawler.protocol.messages import Outlink

PAGE = "http://site.test/dir/page.html"


def test_title_and_visible_text() -> None:
    doc = """<html><head><title>  Hello
      World </title><style>p {color: red}</style><script>var hidden = 1;</script></head>
      <body><!-- a comment --><h1>Head</h1><p>One <b>bold</b> word.<br>Next line</p>
      <noscript>no script</noscript><template><p>template</p></template>
      <ul><li>first</li><li>second</li></ul><img src="x.png" alt="picture">
      <script>document.write("hidden")</script>tail text</body></html>"""
    parsed = parse_html(doc, PAGE)
    assert parsed.title == "Hello World"
    assert parsed.text == "Head One bold word. Next line first second tail text"


def test_blocks_and_links_separate_words_but_inline_markup_does_not() -> None:
    parsed = parse_html("<p>H<b>ello</b></p><p>World</p><a href=a>Home</a><a href=b>News</a>", PAGE)
    assert parsed.text == "Hello World Home News"


def test_links_are_resolved_normalised_and_deduplicated() -> None:
    doc = """<a href="a.html">A <img src=x alt="pic"> link</a>
      <a href="/dir/./a.html#part">again</a> <a href="#top">top</a> <a href="">self</a>
      <a href="mailto:x@y.test">mail</a> <a href="javascript:void(0)">js</a>
      <a href="HTTP://Other.TEST:80/%7euser/">user</a> <a href="http://[bad">bad</a>
      <map><area href="../up.html" alt="Up"></map> <a href="ftp://f.test/">ftp</a>"""
    assert parse_html(doc, PAGE).links == (
        Outlink("http://site.test/dir/a.html", "A pic link | again"),
        Outlink("http://other.test/~user/", "user"),
        Outlink("http://site.test/up.html", "Up"),
    )


def test_base_href() -> None:
    doc = '<head><base href="http://cdn.test/root/"></head><a href="x/y.html">x</a>'
    assert parse_html(doc, PAGE).links == (Outlink("http://cdn.test/root/x/y.html", "x"),)
    doc = '<head><base href="javascript:alert(1)"></head><a href="y.html">y</a>'
    assert parse_html(doc, PAGE).links == (Outlink("http://site.test/dir/y.html", "y"),)


def test_rel_nofollow_links_are_dropped() -> None:
    doc = '<a rel="Sponsored NOFOLLOW" href="/ad">ad</a><a rel="next" href="/2">next</a>'
    assert parse_html(doc, PAGE).links == (Outlink("http://site.test/2", "next"),)


@pytest.mark.parametrize("meta, noindex, nofollow", [
    ('<meta name="robots" content="noindex">', True, False),
    ('<meta name="ROBOTS" content="NoFollow">', False, True),
    ('<meta name="robots" content="noindex, nofollow">', True, True),
    ('<meta name="robots" content="none">', True, True),
    ('<meta name="WebCrawler" content="noindex">', True, False),
    ('<meta name="googlebot" content="noindex,nofollow">', False, False),
    ('<meta name="robots" content="index, follow">', False, False),
])
def test_meta_robots(meta: str, noindex: bool, nofollow: bool) -> None:
    parsed = parse_html(f"<head>{meta}</head><body><a href='/x'>x</a></body>", PAGE, "webcrawler")
    assert (parsed.noindex, parsed.nofollow) == (noindex, nofollow)
    assert parsed.links == (() if nofollow else (Outlink("http://site.test/x", "x"),))


def test_max_links() -> None:
    doc = "".join(f'<a href="/p{i}">p{i}</a><a href="/p{i}">again</a>' for i in range(100))
    links = parse_html(doc, PAGE, max_links=10).links
    assert [link.url for link in links] == [f"http://site.test/p{i}" for i in range(10)]


def test_plain_text() -> None:
    parsed = parse_plain("  line one\n\n<b>line</b> two  ")
    assert (parsed.title, parsed.text, parsed.links) == ("line one", "line one <b>line</b> two", ())


@pytest.mark.parametrize("doc", [
    "", "   \n ", "<!-- only a comment -->", "<html></html>", "<<<<>>>>", "\x00\x01\x02",
    '<?xml version="1.0" encoding="iso-8859-1"?><html><title>x</title></html>',
    '<a href="' + "x" * 2_000_000 + '">huge attribute</a>',
    "<div>" * 50_000 + "deep" + "</div>" * 50_000,
    "<a href='\ud800'>lone surrogate</a>", "<title>\udcff</title>",
    "<table><tr><td><a href=/x>unclosed", "<svg><a href='/s'>svg</a></svg>",
    "<base href='http://[::1'>", "<meta name=robots>", "<a href=' http://x.test/\n a '>ws</a>",
])
def test_hostile_markup_never_raises(doc: str) -> None:
    parsed = parse_html(doc, PAGE)
    assert isinstance(parsed.text, str) and isinstance(parsed.links, tuple)


def test_xml_declaration_on_a_str_still_parses() -> None:
    doc = '<?xml version="1.0" encoding="iso-8859-1"?><html><head><title>T</title></head>' \
          "<body>café</body></html>"
    parsed = parse_html(doc, PAGE)
    assert (parsed.title, parsed.text) == ("T", "café")


def test_headings_h1_to_h3_in_page_order_bounded() -> None:
    from webcrawler.agents.parse import MAX_HEADING_CHARS, MAX_HEADINGS

    page = ("<html><head><title>T</title></head><body><h1>Socket  <b>programming</b></h1>"
            "<p>text</p><h4>not this</h4><h3>Timeouts</h3><h2> </h2><h2>Closing sockets</h2>"
            f"<h3>{'x' * 500}</h3></body></html>")
    parsed = parse_html(page, "http://a.test/")
    assert parsed.headings == ("Socket programming", "Timeouts", "Closing sockets",
                               "x" * MAX_HEADING_CHARS)
    many = "".join(f"<h2>part {n}</h2>" for n in range(MAX_HEADINGS + 5))
    assert len(parse_html(f"<body>{many}</body>", "http://a.test/").headings) == MAX_HEADINGS


@pytest.mark.parametrize("offset", [0, 1, 5000, 8191, 8192, 12345, 70000])
def test_a_wide_tag_loses_its_attributes_wherever_it_sits_in_a_long_page(offset: int) -> None:
    # Before the search for tags wider than 16 KiB (parse._defuse), a page is checked for an
    # 8 KiB block without "<": the tag must be found at any offset, aligned or not.
    filler = "<b>x</b>" * 12_000  # 96 KB dense with "<": no block without one
    tag = "<p " + " ".join(f"a{i}" for i in range(5_000)) + ">"
    parsed = parse_html(f"<title>wide</title>{filler[:offset]}{tag}inside</p>{filler[offset:]}",
                        PAGE)
    assert parsed.title == "wide" and "inside" in parsed.text
    assert _defuse(filler.encode()) == filler.encode()
    assert b"a4999" not in _defuse(f"{filler[:offset]}{tag}{filler[offset:]}".encode())


@pytest.mark.parametrize("doc", [
    "<title>Caf\u00e9 \u2603</title><p>Привет <a href='/\u00e9t\u00e9?q=\u00fc'>\u00e9t\u00e9</a></p>"
    "<a href='x.html'><img alt='\U0001F600 pic'></a><h1>\u00c9l\u00e9gant</h1>",
    '<?xml version="1.0" encoding="iso-8859-1"?><meta charset="koi8-r"><p>d\u00e9j\u00e0 vu</p>',
    "<p>\ufffd spelled out, and \u00a0non-breaking\u2003spaces</p><a href=b>b\u00a0c</a>",
    "",
])
def test_utf8_bytes_parse_as_their_text(doc: str) -> None:
    """parse_html reads a page's UTF-8 bytes (the body as fetched) as it reads the text."""
    for main_content in (False, True):
        assert (parse_html(doc.encode(), PAGE, main_content=main_content)
                == parse_html(doc, PAGE, main_content=main_content))


def test_a_repeated_target_keeps_its_first_distinct_anchor_texts() -> None:
    """Repeats of a text count once; past MAX_LINK_TEXTS texts, the later anchors add none
    (nofollow ones, and the page's own fragment links, none at all)."""
    anchors = ["<a href='t.html'>one</a>", "<a href='t.html#x'>one</a>", "<a href='#t'>own</a>",
               "<a href='t.html' rel='nofollow'>skipped</a>", "<a href='t.html'><b>t</b>wo</a>",
               *(f"<a href='./t.html'>{n}</a>" for n in ("3", "", "4", "5", "6", "7")),
               "<a href='u.html'>u</a>"]
    assert parse_html(f"<body>{''.join(anchors)}</body>", PAGE).links == (
        Outlink("http://site.test/dir/t.html", "one | two | 3 | 4 | 5"),
        Outlink("http://site.test/dir/u.html", "u"),
    )
