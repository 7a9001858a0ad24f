"""The `--render auto` shell check is linear in the page (issue 37, item 7).

Proven by its structure rather than by a clock: `shell.tags` finds the tags with searches
that each start where the last one stopped, so the spans it reports never overlap and never
go back; everything else reads a tag or a bounded stretch after it (agents/shell.py). The
hostile pages (1 MiB each: `id=root ` repeated, the input that took 7.3 s at 128 KiB and
hung an agent at 1 MB, and other spellings of it) are then checked whole. BENCHMARKS.md,
"Rendering script pages", has the check's CPU on them.
"""

from __future__ import annotations

import pytest

from webcrawler.agents.shell import looks_like_shell, tags

WORDS = "word " * 60  # enough visible text that the tags decide
MIB = 1 << 20
HOSTILE = {
    "mount ids in one tag": ("<script></script><div " + "id=root " * (MIB // 8), False),
    "mount ids, one closed": ("<script></script><div " + "id=root " * (MIB // 8) + "></div>", True),
    "unclosed mount tags": ("<script></script>" + "<div id=root " * (MIB // 13), False),
    "lone brackets": ("<script></script>" + "<" * MIB, False),
    "closing brackets": ("<script></script>" + ">" * MIB, False),
    "empty noscripts": ("<script></script>" + "<noscript>" * (MIB // 10), False),
    "open app roots": ("<script></script>" + "<app-root " * (MIB // 10), False),
    "space after a mount": ("<script></script><div id=root>" + " " * MIB + "</div>", False),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_character_is_read_a_bounded_number_of_times(name: str) -> None:
    html, shell = HOSTILE[name]
    end = -1
    for _name, start, close in tags(html):
        assert end < start <= close  # spans in order, never overlapping, never going back
        end = close
    assert looks_like_shell(html, WORDS) is shell


def test_the_tags_are_what_a_browser_would_call_tags() -> None:
    html = '<p class="x">a < b</p><div id=root></div><<br/><NOSCRIPT>x'
    assert [name for name, _, _ in tags(html)] == ["p", "div", "br", "noscript"]
    assert looks_like_shell('<script></script><main id="app" class="m"></main>', WORDS)
    assert looks_like_shell("<script></script><app-root ng-version=17>\n</app-root>", WORDS)
    assert looks_like_shell("<script></script><NOSCRIPT>Please turn on JavaScript</NOSCRIPT>",
                            WORDS)
    assert not looks_like_shell('<script></script><div data-id=root></div>', WORDS)
    assert not looks_like_shell('<script></script><div id=rooted></div>', WORDS)
