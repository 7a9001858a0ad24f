"""The `--render auto` shell check is linear in the page (issue 37, item 7).

Proven by its structure rather than by a clock: `shell.mount_points` finds the tags that hold
a mount point's id with searches that each start where the last one stopped, so the spans it
reports never overlap and never go back; every other pattern reads a bounded stretch, or one
that ends where its next candidate begins (agents/shell.py). The hostile pages (1 MiB each:
`id=root ` repeated, the input that took 7.3 s at 128 KiB and hung an agent at 1 MB, and
other spellings of it) are then checked whole. BENCHMARKS.md,
"Rendering script pages", has the check's CPU on them.
"""

from __future__ import annotations

import pytest

from webcrawler.agents.shell import looks_like_shell, mount_points

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
    "space after a mount": ("<script></script><div id=root>" + " " * MIB + "</div>", True),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_character_is_read_a_bounded_number_of_times(name: str) -> None:
    html, shell = HOSTILE[name]
    end = -1
    for start, close in mount_points(html):
        assert end < start <= close  # spans in order, never overlapping, never going back
        end = close
    assert looks_like_shell(html, WORDS) is shell


def test_the_heuristic_says_what_it_said() -> None:
    html = '<p id="root" class="x">a < b</p><div id=app></div><section id=root x>'
    assert [html[start:close] for start, close in mount_points(html)] == [
        'id="root" class="x"', "id=app", "id=root x"]
    assert looks_like_shell('<script></script><main id="app" class="m"></main>', WORDS)
    assert looks_like_shell("<script></script><app-root ng-version=17>\n</app-root>", WORDS)
    assert looks_like_shell("<script></script><noscript>Please turn on JavaScript</noscript>",
                            WORDS)
    assert not looks_like_shell("<script></script><div id=rooted></div>", WORDS)
    assert not looks_like_shell("<script></script><div id=root><p>served</p></div>", WORDS)
