"""IL(P): importance read from the URL alone, as the paper's location metric.

Cho, Garcia-Molina & Page: "URLs ending in .com may be deemed more useful
than URLs with other endings, or URLs containing the string home may be of
more interest than other URLs. Another location metric that is sometimes
used considers URLs with fewer slashes more useful than those with more
slashes." The score here is 1 / (1 + slashes in the path), plus a bonus for
a home page (`home`, `index`, or the server's root) and for a `.com` host.
It needs no crawl at all, so it can order URLs nobody has linked to yet.
"""

from __future__ import annotations

from urllib.parse import urlsplit

HOME_WORDS = ("home", "index", "welcome", "default")
HOME_BONUS = 0.5
COM_BONUS = 0.25


def location_score(url: str) -> float:
    """IL(P) of `url`: higher for shallower paths, home pages and .com hosts."""
    parts = urlsplit(url)
    path = parts.path or "/"
    slashes = path.rstrip("/").count("/") if path != "/" else 0
    score = 1.0 / (1.0 + slashes)
    last = path.rstrip("/").rsplit("/", 1)[-1].lower()
    if path == "/" or any(word in last for word in HOME_WORDS):
        score += HOME_BONUS
    if (parts.hostname or "").endswith(".com"):
        score += COM_BONUS
    return score
