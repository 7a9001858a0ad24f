"""Dated sites for the trap tests and bench/traps.py: calendars without end, and an archive.

Each is a routes function for `webcrawler.demoweb.server.Site`, its dates counted from `today` (so the
sites mean the same whatever day the tests run):

    endless_calendar(today)   /cal?month=YYYY-MM, "no events", previous and next month links,
                              in both directions without end
    daily_calendar(today)     /events/YYYY/MM/DD/, "Nothing on Sunday, 29 November 2026",
                              the next and previous day
    busy_calendar(today)      /agenda/YYYYMM, each month's page different (its own events),
                              running into the future only
    monthly_archive(today, 120)  /archive/ lists /archive/YYYY/MM/ for the past 120 months,
                              each month naming its own posts, with previous and next month
                              links: a real blog's archive, to be crawled whole
"""

from __future__ import annotations

import datetime

from webcrawler.demoweb.server import Page, Routes, html

LETTERS = "abcdefghij"


def word(number: int) -> str:
    """A word of letters only for `number` (digits are what calendar pages differ by)."""
    return "w" + "".join(LETTERS[int(d)] for d in str(number))


def month_after(year: int, month: int, step: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + step
    return index // 12, index % 12 + 1


def endless_calendar(today: datetime.date) -> Routes:
    def route(path: str) -> Page | None:
        if path == "/":
            return html("Club", "the club's home", [(f"/cal?month={today:%Y-%m}", "calendar")])
        if not path.startswith("/cal?month="):
            return None
        year, month = map(int, path[len("/cal?month="):].split("-"))
        links = [(f"/cal?month={y}-{m:02d}", label) for (y, m), label in
                 ((month_after(year, month, -1), "previous"), (month_after(year, month, 1), "next"))]
        return html(f"Calendar {year}-{month:02d}", "no events", links)
    return route


def daily_calendar(today: datetime.date) -> Routes:
    def route(path: str) -> Page | None:
        if path == "/":
            return html("Venue", "what's on", [(f"/events/{today:%Y/%m/%d}/", "today")])
        try:
            day = datetime.datetime.strptime(path, "/events/%Y/%m/%d/").date()
        except ValueError:
            return None
        near = [day - datetime.timedelta(days=1), day + datetime.timedelta(days=1)]
        return html(f"Events on {day:%A, %d %B %Y}", f"Nothing on {day:%A, %d %B %Y}",
                    [(f"/events/{d:%Y/%m/%d}/", f"{d:%A}") for d in near])
    return route


def busy_calendar(today: datetime.date) -> Routes:
    def route(path: str) -> Page | None:
        if path == "/":
            return html("Theatre", "the season", [(f"/agenda/{today:%Y%m}", "this month")])
        if not (path.startswith("/agenda/") and path[8:].isdigit() and len(path) == 14):
            return None
        year, month = int(path[8:12]), int(path[12:14])
        n = year * 12 + month
        y, m = month_after(year, month, 1)
        return html(f"Agenda {year}-{month:02d}", f"plays {word(n)} and {word(n * 7)}",
                    [(f"/agenda/{y}{m:02d}", "next month")])
    return route


def monthly_archive(today: datetime.date, months: int = 120) -> Routes:
    """A blog's archive of the `months` months before `today`'s, each month with its posts."""
    dated = [month_after(today.year, today.month, -k) for k in range(months, 0, -1)]

    def route(path: str) -> Page | None:
        if path == "/":
            return html("Blog", "a blog", [("/archive/", "archive")])
        if path == "/archive/":
            return html("Archive", "every month", [(f"/archive/{y}/{m:02d}/", f"{y}-{m}")
                                                   for y, m in dated])
        parts = path.strip("/").split("/")
        if len(parts) != 3 or parts[0] != "archive" or not (parts[1] + parts[2]).isdigit():
            return None
        key = (int(parts[1]), int(parts[2]))
        if key not in dated:
            return None
        at = dated.index(key)
        posts = [at * 3 + k for k in range(3)]
        links = [(f"/archive/{y}/{m:02d}/", "older") for y, m in dated[max(0, at - 1):at]]
        links += [(f"/archive/{y}/{m:02d}/", "newer") for y, m in dated[at + 1:at + 2]]
        return html(f"Archive {key[0]}-{key[1]:02d}", " ".join(f"post {word(n)}" for n in posts),
                    links)
    return route
