"""A generated loopback web with a known topic structure, for real-time search tests and the bench.

Pages belong to topics; a page's text is mostly its topic's words, and a link's anchor
text is about the *target's* topic: most name the topic word and one other of its words,
a quarter two other words of it, and some say nothing ("see also").
Links mix topics at random, so a crawler that follows anchors stays on topic and
one that follows every link does not. `TopicWeb.topic_of(url)` is the ground truth.
Servers are 127.0.7.1.. (loopback only); each has a home page "/" linking to a few
pages of every topic, and a robots.txt that allows everything.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from webcrawler.demoweb.server import LoopbackWeb, Site, html

TOPICS: dict[str, list[str]] = {
    "sailing": "sailing boats yacht harbour mast keel regatta sailor anchorage jib dinghy tide".split(),
    "astronomy": "astronomy telescope galaxy nebula planets comet orbit stars observatory "
                 "eclipse quasar cosmos".split(),
    "cooking": "cooking recipes kitchen bread pastry oven spices soup roast baking flavour chef".split(),
    "gardening": "gardening compost seedlings roses pruning orchard lawn shrubs bulbs soil "
                 "greenhouse perennials".split(),
    "chess": "chess opening gambit endgame checkmate bishop knight rook pawn grandmaster "
             "tournament castling".split(),
    "geology": "geology rocks minerals granite basalt fossils volcano strata erosion quartz "
               "tectonic sediment".split(),
}
FILLER = "page notes about this collection with further reading and some remarks for visitors".split()


@dataclass
class TopicWeb:
    """The pages (path -> (topic, title, text, links)) of every server, and its running web."""

    servers: int = 4
    pages_per_topic: int = 30
    links_per_page: int = 8
    same_topic_links: int = 2  # of `links_per_page`, to pages of the page's own topic
    seed: int = 7
    base: str = "127.0.7"
    web: LoopbackWeb | None = None
    pages: dict[str, dict[str, tuple[str, str, str, list[tuple[str, str]]]]] = field(
        default_factory=dict)

    def addresses(self) -> list[str]:
        return [f"{self.base}.{n}" for n in range(1, self.servers + 1)]

    def __enter__(self) -> TopicWeb:
        rng = random.Random(self.seed)
        addresses = self.addresses()
        routes: dict[str, dict] = {a: {} for a in addresses}
        sites = [Site(a, routes[a], robots_txt="User-agent: *\nAllow: /\n") for a in addresses]
        self.web = LoopbackWeb(sites).__enter__()
        ids = [(topic, n) for topic in TOPICS for n in range(self.pages_per_topic)]
        place = {key: (addresses[i % len(addresses)], f"/p{i}.html") for i, key in enumerate(ids)}
        by_topic = {t: [k for k in ids if k[0] == t] for t in TOPICS}
        for key in ids:
            topic, n = key
            others = [k for k in ids if k[0] != topic]
            targets = rng.sample([k for k in by_topic[topic] if k != key], self.same_topic_links)
            targets += rng.sample(others, self.links_per_page - self.same_topic_links)
            rng.shuffle(targets)
            links = [(self.web.url(*place[t]), self._anchor(rng, t[0])) for t in targets]
            words = rng.choices(TOPICS[topic], k=18) + rng.choices(FILLER, k=12)
            rng.shuffle(words)
            title = f"{topic.title()} notes {n}"
            address, path = place[key]
            self.pages.setdefault(address, {})[path] = (topic, title, " ".join(words), links)
            routes[address][path] = html(title, " ".join(words), links)
        for address in addresses:
            home = [(self.web.url(*place[k]), self._anchor(rng, k[0]))
                    for k in ids if place[k][0] == address and k[1] < 3]
            routes[address]["/"] = html(f"home of {address}", "an index of notes", home)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.web is not None
        self.web.__exit__(*exc)

    @staticmethod
    def _anchor(rng: random.Random, topic: str) -> str:
        draw = rng.random()
        if draw < 0.15:
            return "see also"
        words = TOPICS[topic]
        if draw < 0.75:  # most anchors name the topic, as people write them
            return f"{words[0]} {rng.choice(words[1:])}"
        return " ".join(rng.sample(words[1:], 2))

    def url(self, address: str, path: str) -> str:
        assert self.web is not None
        return self.web.url(address, path)

    def homes(self) -> list[str]:
        return [self.url(a, "/") for a in self.addresses()]

    def topic_of(self, url: str) -> str | None:
        """The topic of the page at `url` (None for home pages and unknown URLs)."""
        for address, pages in self.pages.items():
            origin = self.url(address, "")
            if url.startswith(origin):
                page = pages.get(url[len(origin):])
                return page[0] if page else None
        return None

    def fetched(self) -> list[str]:
        """URLs of the documents served so far, in order (robots.txt left out)."""
        assert self.web is not None
        return [f"http://{h.server}{h.path}" for h in self.web.log.snapshot()
                if h.path != "/robots.txt"]
