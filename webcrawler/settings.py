"""One settings object for a crawl, passed down, never read from globals.

A plain dataclass: what each field means and its default. Loading it is `webcrawler.config`'s
job (precedence: the defaults here <- the data directory's `webcrawler.toml` ([crawl]) <-
``WEBCRAWLER_*`` environment variables <- command-line flags; `config.layers.from_environment`
is the layers without the file, for callers with no data directory), and
docs/configuration.md documents every field (a test keeps it so).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from webcrawler.datadir import DataDir
from webcrawler.protocol.messages import DOCUMENT_TYPES
from webcrawler.protocol.urls import TRACKING_PARAMETERS, ParamNames

DEFAULT_USER_AGENT_TOKEN = "WebCrawler"


@dataclass(frozen=True)
class Settings:
    """Everything a crawl can be told. Each field: default, then what it is for."""

    data_dir: Path = Path("webcrawler-data")  # database, index and logs live here
    db_url: str = ""  # any SQLAlchemy URL; empty = SQLite file in data_dir
    agents: int = 15  # agent subprocesses (the paper's 15)
    delay: float = 1.0  # seconds between two requests to one server
    hours: float = 1.0  # stop after this long
    max_docs: int = 0  # stop after this many documents retrieved (0 = no limit)
    max_depth: int = 50  # links from a seed
    max_docs_per_server: int = 0  # 0 = no limit
    max_url_length: int = 2048
    include: tuple[str, ...] = ()  # regexes; a URL must match one (when any are given)
    exclude: tuple[str, ...] = ()  # regexes; a URL matching any is not fetched
    robots_token: str = DEFAULT_USER_AGENT_TOKEN  # the product token robots.txt rules name
    robots_ttl: float = 24 * 3600.0  # seconds a robots.txt stays valid
    robots_retry: float = 600.0  # seconds before a 5xx / unreachable robots.txt is asked again
    commit_every: int = 200  # documents per transaction
    commit_seconds: float = 5.0  # ... or this long, so another writer (a real-time search) never waits long
    agent_max_urls: int = 500  # recycle an agent after this many URLs
    agent_memory_mb: int = 512  # replace an agent that grows past this
    agent_deadline: float = 0.0  # seconds an agent may hold a URL (0 = total_timeout + 15)
    progress_interval: float = 2.0  # seconds between progress reports
    user_agent: str = ""  # full User-Agent header; empty = derived from robots_token
    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    total_timeout: float = 60.0
    max_bytes: int = 1 << 20  # body cap, after decompression
    seeds: tuple[str, ...] = field(default_factory=tuple)
    order: str = "server-first"  # crawl order: server-first, breadth-first, backlink, pagerank
    hot_query: str = ""  # words: URLs whose anchor or URL mention them (or near such pages) go first
    index_shards: int = 0  # index writers, one shard each (docs/scale-out.md); 0: as the index is
    external_index_writers: bool = False  # True: `webcrawler index-writer` runs them (other hosts)
    deny_private: bool = False  # refuse loopback, private, link-local, ... addresses (SSRF safety)
    incremental: bool = False  # keep crawling for --hours: recrawl stored pages as they fall due
    recrawl: str = "buckets"  # incremental recrawl policy: none, uniform, adaptive, buckets
    fetch_rate: float = 0.0  # requests per second over all servers (0 = no cap): the bandwidth
    recrawl_share: float = 0.5  # weight of each server's recrawl queue against its new URLs
    keep_responses: bool = False  # store raw responses for WARC export (incremental crawls always do)
    agents_at: str = ""  # a Dask scheduler (tcp://HOST:PORT) whose agent hosts fetch; empty = local agents
    tls_ca: str = ""  # with agents_at tls://...: the cluster's CA certificate (PEM file)
    tls_cert: str = ""  # ... the engine's certificate, signed by that CA
    tls_key: str = ""  # ... and its private key

    plan: str = ""  # "auto": WebFountain's model sets the recrawl plan each cycle
    plan_strategy: int = 3  # the model's objective weights under --plan auto: 1, 2 or 3
    plan_objective: str = "freshness"  # --plan auto's goal: "freshness" (the crawl's) or "obsolete" (paper)
    plan_cycle: float = 0.0  # seconds between re-solves under --plan auto (0: --hours / the model's T)
    strip_params: tuple[str, ...] = TRACKING_PARAMETERS  # query/path parameters dropped from URLs
    types: tuple[str, ...] = DOCUMENT_TYPES  # kinds of document fetched: html, pdf, docx, odt, text
    sitemaps: bool = True  # read each server's sitemaps (robots.txt's Sitemap: lines, or /sitemap.xml)
    main_content: bool = True  # index each page's main content: navigation, sidebars, footers dropped
    render: str = "never"  # run pages' scripts in headless Chromium: never, auto (script shells), always
    render_timeout: float = 10.0  # seconds one page may take in the browser
    near_duplicates: float = 0.8  # resemblance from which a page is a near-duplicate, not indexed (0: off)
    link_refresh: int = 1000  # documents fetched between two refreshes of the index's link counts (0: off)
    scope_hosts: tuple[str, ...] = ()  # the seeds' hosts: exempt from deny_private (so are servers
    #                                    an include pattern matches)
    retries: int = 3  # further tries of a page after a transient failure (0 = the first is final)
    retry_backoff: float = 1.0  # seconds before the first retry; doubled each try, with jitter
    max_retry_after: float = 300.0  # longest wait honoured (Retry-After, backoff); longer: failed
    delay_factor: float = 2.0  # politeness grows to this many times a server's response time
    max_delay: float = 60.0  # the adaptive delay's ceiling (never below delay or Crawl-delay)
    min_revisit: float = 60.0  # an incremental crawl fetches one page at most this often (seconds)
    trap_repeats: int = 3  # a path segment seen more often than this: a link loop (0 = no check)
    trap_budget: int = 400  # pages per server whose URLs differ only by a date (0 = no trap rule)
    ca_bundle: str = ""  # PEM file of certificate authorities trusted besides the system's
    ca_bundle_only: bool = False  # trust ca_bundle's authorities only, not the system's
    client_cert: str = ""  # PEM client certificate for servers that ask for one
    client_key: str = ""  # its private key (PEM), when not in client_cert
    insecure_skip_tls_verify: tuple[str, ...] = ()  # hosts whose certificates are not checked
    metrics_port: int = 0  # serve Prometheus metrics on 127.0.0.1:PORT while crawling (0 = off)

    @property
    def stores_responses(self) -> bool:
        """Keep each page's raw response? Bodies are most of the database's writes, so only
        when asked, or incremental."""
        return self.keep_responses or self.incremental

    @property
    def paths(self) -> DataDir:
        """The data directory's parts (datadir.py)."""
        return DataDir(self.data_dir)

    @property
    def database_url(self) -> str:
        return self.db_url or self.paths.database_url

    @property
    def index_dir(self) -> Path:
        return self.paths.index

    def param_names(self) -> ParamNames:
        """The tracking and session parameters URLs lose (urls.strip_params)."""
        return ParamNames(self.strip_params)

    def deadline(self) -> float:
        """Seconds an agent may hold one URL before the engine replaces it."""
        return self.agent_deadline or self.total_timeout + 15.0

