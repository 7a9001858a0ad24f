"""The query server's settings table (`webcrawler serve`), as `Settings` is the crawl's.

Each field is one setting, declared once (settings/declare.py). `webcrawler serve`'s flags,
the ``WEBCRAWLER_SERVE_<NAME>`` variables, the `[serve]` keys of `webcrawler.toml`, the app
factory's options (`webcrawler.query_server.OPTIONS`, `realtime.OPTIONS`) and
docs/configuration.md's table are read from it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from webcrawler.settings.declare import setting

LISTEN = ("host", "port", "threads")  # where to listen: waitress's, not the app's


@dataclass(frozen=True)
class ServeSettings:
    """Everything the query server can be told (the app's options, plus where to listen)."""

    host: str = setting("127.0.0.1", "Address to listen on.")
    port: int = setting(5000, "Port to listen on (0: any free port).", low=0, high=65535)
    threads: int = setting(8, "Request threads.", low=1, high=64)
    allowed_hosts: tuple[str, ...] = setting(
        (), "A host name the server answers to besides localhost and --host (repeatable); "
        "requests naming any other host get 421.", flag="--allowed-host")
    allow_from_url: bool = setting(
        False, "Let the real-time search form start from any URL, not only indexed documents.",
        off="--no-allow-from-url")
    allow_private_fetch: bool = setting(
        False, "Let real-time searches reach loopback and private addresses that the crawl's "
        "seeds do not name (refused by default).", off="--no-allow-private-fetch")
    per_page: int = setting(10, "Results on a page of /search, and the JSON API's default n.",
                            low=1)
    max_per_page: int = setting(100, "The JSON API's largest n.", low=1)
    max_page: int = setting(1000, "Deepest result page anyone may ask for.", low=1)
    max_query_length: int = setting(
        1000, "Characters; longer queries are refused with a message.", low=1)
    stats_ttl: float = setting(5.0, "Seconds /stats figures are cached.", low=0)
    realtime_max_jobs: int = setting(2, "Real-time searches running at once (more: 429).", low=1)
    realtime_seconds: float = setting(
        30.0, "The longest a real-time search may run, and its default.", low=1)
    realtime_max_fetches: int = setting(
        100, "Documents one real-time search may retrieve.", low=1)
    realtime_want: int = setting(10, "New documents a real-time search looks for by default.",
                                 low=1)
    realtime_agents: int = setting(3, "Agent processes per real-time search.", low=1)
    realtime_delay: float | None = setting(
        None, "Seconds between two requests to one server in a real-time search (default: the "
        "crawl's delay).", low=0)
    realtime_grace: float = setting(
        30.0, "Seconds past its limit before a real-time search's processes are killed.", low=0)

    def app_options(self) -> dict[str, Any]:
        """The options `webcrawler.query_server.create_app` takes (all but where to listen)."""
        return {k: v for k, v in asdict(self).items() if k not in LISTEN}
