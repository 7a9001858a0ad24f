"""Wildcard, Regexp and Tagexp on known pages, malformed HTML included."""

from __future__ import annotations

import pytest

from webcrawler.toolkit import Page, Regexp, Tagexp, Wildcard

RESULTS = """<html><head><title>Results</title><script>if (a < b) { x = "<li><a>"; }</script></head>
<body><!-- <li><a href=/commented>no</a></li> -->
<ul><li><a href="/one">One</a></li><li>plain</li><LI><A HREF=/two>Two</A></LI></ul>
<div class="result big"><a href="/r1">r1</a></div><div class=results>not me</div>
<input type=text name=q><input type=submit></body></html>"""

MALFORMED = """<p>a < b and c > d <b>bold <i>unclosed
<a href="/quote>broken</a> <li><a href='/ok'>ok</a><li><a href=/bare>bare</a>
<div class="result"><span>in</div></span> <a href="/cut"""


def spans(pattern, html):
    return [html[r.start:r.end] for r in pattern.find(Page("http://h/", html=html))]


def test_wildcard_matches_whole_urls():
    home = Wildcard("http://www.example.edu/faculty/*/home.html")
    assert home.matches("http://www.example.edu/faculty/smith/home.html")
    assert home.matches("http://www.example.edu/faculty/a/b/home.html")
    assert not home.matches("http://www.example.edu/faculty/smith/home.html?x")
    assert not home.matches("http://www.example.edu/staff/smith/home.html")
    assert Wildcard("http://h/p?.html").matches("http://h/p1.html")
    assert not Wildcard("http://h/p?.html").matches("http://h/p12.html")


def test_regexp_searches_and_finds_regions():
    pattern = Regexp(r"/introsml/.*\.html$")
    assert pattern.matches("http://www.cs.cmu.edu/~rwh/introsml/core/x.html")
    assert not pattern.matches("http://www.cs.cmu.edu/~rwh/other.html")
    assert spans(Regexp(r"<a href=\"/r\d\">"), RESULTS) == ['<a href="/r1">']


def test_tagexp_sequence_ignores_text_case_comments_and_scripts():
    assert spans(Tagexp("<li><a></a></li>"), RESULTS) == [
        '<li><a href="/one">One</a></li>', "<LI><A HREF=/two>Two</A></LI>"]
    assert Tagexp("<ul><li>").matches(RESULTS)
    assert not Tagexp("<ul><a>").matches(RESULTS)


def test_tagexp_attribute_constraints():
    assert spans(Tagexp("<div class=result><a href>"), RESULTS) == [
        '<div class="result big"><a href="/r1">']
    assert spans(Tagexp("<input type=text>"), RESULTS) == ["<input type=text name=q>"]
    assert spans(Tagexp("<a href=/two>"), RESULTS) == ["<A HREF=/two>"]
    assert not Tagexp("<li><a title>").matches(RESULTS)


def test_tagexp_operators():
    found = spans(Tagexp("<ul>(<li>.*?</li>)+</ul>"), RESULTS)
    assert len(found) == 1 and found[0].startswith("<ul>") and found[0].endswith("</ul>")
    assert len(Tagexp("<li>(<a>|</li>)").find(Page("u", html=RESULTS))) == 3


def test_tagexp_on_malformed_html():
    assert spans(Tagexp("<li><a href>"), MALFORMED) == ["<li><a href='/ok'>", "<li><a href=/bare>"]
    assert spans(Tagexp("<div class=result><span></div>"), MALFORMED) == [
        '<div class="result"><span>in</div>']
    assert Tagexp("<b><i>").matches(MALFORMED)
    assert not Tagexp("<a href=/cut>").matches(MALFORMED)  # cut off at the end: no tag


def test_tagexp_rejects_stray_text():
    with pytest.raises(ValueError, match="only tags"):
        Tagexp("<li>hello</li>")


def test_a_malformed_regexp_is_a_toolkit_error_in_one_line(tmp_path):
    """Python's re.error is no ValueError and no WebcrawlerError: a crawler file's bad Regexp was
    a traceback in a visit callback, or for the Python API's caller."""
    from tests.toolkit.test_crawl_command import run_command
    from webcrawler.errors import ToolkitError

    with pytest.raises(ToolkitError, match=r"^Regexp '\(': missing \), unterminated subpattern"):
        Regexp("(")
    (tmp_path / "bad.py").write_text("from webcrawler.toolkit import Crawler, Regexp\n"
                                     "class Bad(Crawler):\n    roots = ['http://127.0.0.1:9/']\n"
                                     "    pattern = Regexp('(')\n")
    done = run_command(tmp_path, "bad.py")
    assert done.returncode == ToolkitError.exit_code and done.stdout == ""
    assert done.stderr == ("Error: bad.py: ToolkitError: Regexp '(': missing ), unterminated "
                           "subpattern at position 0\n")
