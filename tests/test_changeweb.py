"""The changing web: rates, determinism, trivial vs real changes, 304s, births and deaths."""

from __future__ import annotations

import dataclasses
import http.client
import json
import math
import re
import time
from pathlib import Path

import pytest

from tests.support.changes import HOUR_WEIGHTS, PAST_DAYS, SPREADS, Changes, mixed, spread_from
from tests.support.changeweb import ChangingWeb
from tests.support.genweb_server import GenWebProcess, GenWebServer

DAY = 1e6  # real seconds per simulated day when a test wants the clock to stand still
EPOCH = 1_700_000_000.0


def web(**kw: object) -> ChangingWeb:
    settings: dict = dict(servers=4, pages_per_server=40, links_per_page=8, page_bytes=2000,
                          first_address="127.0.44.0", day_seconds=DAY, epoch=EPOCH)
    settings.update(kw)
    return ChangingWeb(**settings)


def at(day: float) -> float:
    return EPOCH + day * DAY


def words(body: bytes) -> list[str]:
    return re.sub(rb"<[^>]+>", b" ", body).decode().split()


def resemblance(a: bytes, b: bytes, w: int = 4) -> float:
    sa = {tuple(words(a)[i:i + w]) for i in range(len(words(a)) - w + 1)}
    sb = {tuple(words(b)[i:i + w]) for i in range(len(words(b)) - w + 1)}
    return len(sa & sb) / len(sa | sb)


def get(w: ChangingWeb, server: int, path: str, headers: dict | None = None) -> tuple[int, bytes, dict]:
    conn = http.client.HTTPConnection(w.address(server), w.port, timeout=5)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read(), dict(response.getheaders())
    finally:
        conn.close()


def test_rates_follow_the_spread_com_faster_than_edu_gov():
    changes = Changes(7, SPREADS["cho"])
    com = [changes.interval(s, p) for s in (0, 1, 4, 5) for p in range(500)]
    edu = [changes.interval(s, p) for s in (2, 3, 6, 7) for p in range(500)]
    daily = lambda xs: sum(x <= 1 for x in xs) / len(xs)  # noqa: E731
    slow = lambda xs: sum(x >= 120 for x in xs) / len(xs)  # noqa: E731
    assert 0.35 < daily(com) < 0.45 and daily(edu) < 0.15
    assert slow(edu) > 0.5 > 0.15 > slow(com)
    assert min(com) < 1 / 24 and max(edu) > 300  # minutes to a year


def test_changes_are_poisson_at_the_page_rate_and_mostly_in_working_hours():
    changes = Changes(7, SPREADS["cho"])
    pages = [(s, p) for s in range(4) for p in range(300) if 0.05 < changes.interval(s, p) < 2]
    assert len(pages) > 50
    observed = sum(changes.events_before(s, p, 56.0) for s, p in pages)
    expected = sum(56.0 / changes.interval(s, p) for s, p in pages)
    assert abs(observed - expected) < 4 * math.sqrt(expected) + 0.02 * expected
    in_hours = total = 0
    for s, p in pages[:30]:
        for day in range(7):
            for t in _times(changes, s, p, day):
                total += 1
                in_hours += HOUR_WEIGHTS[day * 24 + int(t * 24)] > 1
    working_share = 5 * 40 / (5 * 40 + 128)  # working hours' share of the weight
    assert total > 100 and abs(in_hours / total - working_share) < 0.08


def _times(changes: Changes, server: int, page: int, day: int) -> list[float]:
    from tests.support.changes import _day_events

    return list(_day_events(changes, server, page, day))


def test_the_web_is_a_function_of_its_seed():
    a, b, c = web(), web(), web(seed=5)
    for page in (1, 7, 23):
        assert a.state(1, page, at(9.3)) == b.state(1, page, at(9.3))
        assert a.render(1, page, a.state(1, page, at(9.3))) == b.render(1, page, b.state(1, page, at(9.3)))
    assert any(a.state(1, p, at(9.3)) != c.state(1, p, at(9.3)) for p in range(40))
    assert a.pages_at(at(20)).keys() == b.pages_at(at(20)).keys()


def test_a_trivial_change_is_one_line_a_real_change_an_edited_section():
    w = web()
    hourly = next(p for p in range(1, 40) if w.changes.trivial_period(0, p) < 1
                  and w.changes.interval(0, p) > 5)
    s1, s2 = w.state(0, hourly, at(3.0)), w.state(0, hourly, at(3.0 + 2 / 24))
    assert s1.real == s2.real and s1.trivial != s2.trivial and s1.etag != s2.etag
    trivial = resemblance(w.render(0, hourly, s1), w.render(0, hourly, s2))
    fast = next(p for p in range(1, 40) if 0.3 < w.changes.interval(0, p) < 3)
    days = [d / 4 for d in range(400)]
    before, after = next((w.state(0, fast, at(d)), w.state(0, fast, at(d + 0.25))) for d in days
                         if w.state(0, fast, at(d + 0.25)).real.split(".")[0]
                         == str(int(w.state(0, fast, at(d)).real.split(".")[0]) + 1))
    real = resemblance(w.render(0, fast, before), w.render(0, fast, after))
    assert trivial > 0.95 and real < 0.85, (trivial, real)


def test_etag_and_last_modified_answer_conditional_requests_with_304(tmp_path: Path):
    log = tmp_path / "requests.log"
    with GenWebServer(web(epoch=time.time() - 12.5 * DAY, log_path=str(log))) as w:
        status, body, headers = get(w, 0, "/")
        assert status == 200 and body and headers["ETag"] and headers["Last-Modified"]
        status, body, again = get(w, 0, "/", {"If-None-Match": headers["ETag"]})
        assert status == 304 and body == b"" and again["ETag"] == headers["ETag"]
        assert get(w, 0, "/", {"If-None-Match": '"0.0-999"'})[0] == 200
        assert get(w, 0, "/", {"If-Modified-Since": headers["Last-Modified"]})[0] == 304
        assert get(w, 0, "/", {"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"})[0] == 200
        assert get(w, 0, "/robots.txt")[0] == 200
    lines = [line.split("\t") for line in log.read_text().splitlines()]
    assert [int(line[2]) for line in lines] == [200, 304, 200, 304, 200, 200]
    assert lines[0][1] == f"http://{w.address(0)}:{w.port}/" and lines[1][3] == lines[0][3] != "-"


def test_pages_are_born_linked_from_home_and_die_with_404_or_410():
    w = web(spread="heldout")
    born = w.pages_per_server  # the server's first new page
    birth = w.born(0, born)
    assert 0 < birth < 60
    assert w.answer(0, f"/page/{born}.html", {}, now=at(birth - 0.01)).status == 404
    assert w.answer(0, f"/page/{born}.html", {}, now=at(birth + 0.01)).status == 200
    home_before = w.answer(0, "/", {}, now=at(birth - 0.01)).body
    home_after = w.answer(0, "/", {}, now=at(birth + 0.01)).body
    href = f'href="{w.url(0, born)}"'.encode()
    assert href not in home_before and href in home_after
    assert w.state(0, 0, at(birth + 0.01)).real != w.state(0, 0, at(birth - 0.01)).real
    dying = min(range(1, 40), key=lambda p: w.changes.death(0, p))
    death = w.changes.death(0, dying)
    assert w.answer(0, f"/page/{dying}.html", {}, now=at(death - 0.01)).status == 200
    assert w.answer(0, f"/page/{dying}.html", {}, now=at(death + 0.01)).status == (410 if dying % 2 else 404)
    assert w.url(0, dying) not in w.pages_at(at(death + 0.01))


def test_a_static_web_never_changes():
    w = web(spread="static")
    assert w.pages_at(at(0)) == w.pages_at(at(90))
    assert all(s.real == "0.0" and s.trivial == 0 for s in w.pages_at(at(90)).values())


def test_the_server_process_serves_the_same_changing_web():
    w = web(epoch=time.time() - 4.2 * DAY, first_address="127.0.44.8")
    with GenWebProcess(w) as served:
        status, body, headers = get(served, 1, "/page/3.html")
    same = dataclasses.replace(w, port=served.port)
    state = same.state(1, 3, time.time())
    assert status == 200 and headers["ETag"] == state.etag and body == same.render(1, 3, state)


def test_honest_servers_carry_no_clock_or_counter_line_the_others_keep_theirs():
    """Spread.honest_servers: a share of the servers whose Last-Modified dates the content
    alone (issue 35's per-server trust of dates); the same rates and the same lines elsewhere."""
    lined = mixed("test-lines", never=0.4, timestamp_only=0.2, intervals=((1, 10, 60),), day_seconds=60.0)
    half = dataclasses.replace(lined, honest_servers=0.5)
    assert spread_from(json.loads(json.dumps(dataclasses.asdict(half)))) == half  # a server process's copy
    before, after = Changes(3, lined), Changes(3, half)
    pages = range(200)
    for server in range(3):
        stamped = [not math.isinf(after.trivial_period(server, p)) for p in pages]
        if server in (0, 2):  # frac(s x 0.618) < 0.5
            assert not any(stamped)
        else:
            assert stamped == [not math.isinf(before.trivial_period(server, p)) for p in pages]
            assert 0.4 < sum(stamped) / len(stamped) < 0.6  # timestamp_only / never
        assert all(after.interval(server, p) == before.interval(server, p) for p in pages)


def test_a_mixed_spread_has_the_shares_and_intervals_asked_for():
    """changes.mixed (the held-out webs of bench/freshness_real.py): shares of pages that never
    change and that change only a clock or counter line, intervals in real seconds."""
    spread = mixed("test-mix", never=0.4, timestamp_only=0.1, intervals=((1, 10, 60), (3, 600, 3600)),
                   day_seconds=60.0)
    changes = Changes(11, spread)
    pages = [(s, p) for s in range(5) for p in range(400)]
    seconds = [changes.interval(s, p) * 60.0 for s, p in pages]
    never = [math.isinf(x) for x in seconds]
    stamped = [not math.isinf(changes.trivial_period(s, p)) for s, p in pages]
    assert 0.35 < sum(never) / len(pages) < 0.45
    assert 0.07 < sum(n and t for n, t in zip(never, stamped, strict=True)) / len(pages) < 0.13
    changing = [x for x in seconds if not math.isinf(x)]
    fast = [x for x in changing if x <= 60 + 1e-9]
    assert all(10 - 1e-9 <= x <= 60 + 1e-9 or 600 - 1e-9 <= x <= 3600 + 1e-9 for x in changing)
    assert 0.2 < len(fast) / len(changing) < 0.3  # weights 1 : 3
    assert not spread.births_per_day and math.isinf(spread.mean_life_days)


def test_a_mixed_spread_rejects_impossible_shares():
    for never, stamped in ((0.1, 0.2), (1.2, 0.0), (0.5, -0.1)):
        with pytest.raises(ValueError):
            mixed("bad", never=never, timestamp_only=stamped, intervals=((1, 10, 60),), day_seconds=60.0)
    with pytest.raises(ValueError):
        mixed("bad", never=0.2, timestamp_only=0.1, intervals=((1, 60, 10),), day_seconds=60.0)


def test_the_server_process_serves_a_mixed_spread_it_got_as_json():
    spread = mixed("test-mix", never=0.3, timestamp_only=0.15, intervals=((1, 2e5, 1e6),), day_seconds=DAY)
    w = web(spread=spread, epoch=time.time() - 3.5 * DAY, first_address="127.0.44.24")
    assert spread_from(json.loads(json.dumps(w.config()))["spread"]) == spread
    with GenWebProcess(w) as served:
        answers = {p: get(served, 0, f"/page/{p}.html") for p in range(2, 6)}
    same = dataclasses.replace(w, port=served.port)
    for p, (status, _body, headers) in answers.items():
        assert status == 200 and headers["ETag"] == same.state(0, p, time.time()).etag
    assert any(same.state(0, p, time.time()).real != "0.0" for p in answers)  # changed since day 0


def test_the_web_had_a_past_a_static_page_was_made_long_ago():
    """Changes.past_change: a page that never changes was made up to PAST_DAYS before day 0; a
    changing page last changed an exponential time of its own mean interval before."""
    changes = Changes(7, SPREADS["flat"])
    static = [changes.past_change(s, p) for s in range(3) for p in range(300)
              if math.isinf(changes.interval(s, p))]
    ages = [-changes.past_change(s, p) / changes.interval(s, p) for s in range(3) for p in range(300)
            if not math.isinf(changes.interval(s, p))]
    assert len(static) > 100 and all(-PAST_DAYS <= day <= 0 for day in static)
    assert -sum(static) / len(static) == pytest.approx(PAST_DAYS / 2, rel=0.2)
    assert sum(ages) / len(ages) == pytest.approx(1.0, rel=0.15) and min(ages) >= 0
    assert changes.past_change(1, 2) == Changes(7, SPREADS["flat"]).past_change(1, 2)  # from the seed


def test_a_static_page_serves_its_past_as_last_modified():
    """The served web has the simulator's past (Changes.past_change): a page that never changes
    answers with a Last-Modified of the day it was made, long before the crawl's start, so a
    crawler can date it as a real static page; a page that changed since day 0 is dated by that
    change, as before."""
    w = web(spread="flat")
    static = next(p for p in range(w.pages_per_server)
                  if math.isinf(w.changes.interval(0, p)) and math.isinf(w.changes.trivial_period(0, p)))
    state = w.state(0, static, at(0.5))
    assert state.modified == w.clock.real(w.changes.past_change(0, static)) < w.epoch
    changing = next(p for p in range(w.pages_per_server) if w.changes.interval(0, p) < 1.0)
    later = at(5.0)
    assert w.state(0, changing, later).modified == pytest.approx(
        w.clock.real(w.changes.last_event(0, changing, w.clock.day(later))))
