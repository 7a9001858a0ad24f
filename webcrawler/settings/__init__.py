"""The crawl's settings table: one settings object for a crawl, passed down, never read
from globals.

Each field is one setting, declared once (settings/declare.py): its type (the annotation), its
default, its bounds and its help. The flags of `index`, `search` and the other commands
(config/options.py), the ``WEBCRAWLER_<NAME>`` variables and the `[crawl]` keys of the data
directory's `webcrawler.toml` (config/layers.py, config/file.py), the bounds check of every
layer (config/bounds.py) and docs/configuration.md's table (`python -m webcrawler.config.docs`)
are all read from it. Precedence: the defaults here <- the file <- the variables <- flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from webcrawler.datadir import DataDir
from webcrawler.protocol.messages import DOCUMENT_TYPES
from webcrawler.protocol.urls import TRACKING_PARAMETERS, ParamNames
from webcrawler.settings.declare import NO_FLAG, setting

DEFAULT_USER_AGENT_TOKEN = "WebCrawler"
# recrawl/policies.py's POLICIES, named here so that the command line starts without numpy
# (tests/test_configuration.py checks that they agree)
RECRAWL_POLICIES = ("none", "uniform", "adaptive", "buckets")
FIRST_PASS_SHARE = 0.1
"""The default recrawl share: new URLs first, recrawls a floor. A page never fetched counts as
obsolete until fetched, so it is worth more to freshness than any recrawl (which gains at most
one page's staleness); but a server whose frontier never ends (calendars, growing sites) must
still have its pages recrawled, so the recrawl queue keeps a tenth of the turns rather than
none. The share only matters while a server has both kinds of work: once its new URLs run out
every turn is a recrawl whatever the share (docs/freshness.md, "The first pass")."""


@dataclass(frozen=True)
class Settings:
    """Everything a crawl can be told: each field its type, default, bounds and help."""

    data_dir: Path = setting(
        Path("webcrawler-data"), "Where the database and index live (default ./webcrawler-data, or "
        "$WEBCRAWLER_DATA).", doc="database, index, logs and `webcrawler.toml` live here (so the "
        "file cannot set it)", env="WEBCRAWLER_DATA",
        not_in_file="it is the directory the file is in: use --data-dir or WEBCRAWLER_DATA")
    db_url: str = setting(
        "", "SQLAlchemy database URL (default: SQLite in the data dir; $WEBCRAWLER_DB).",
        flag="--db", env="WEBCRAWLER_DB",
        doc="any SQLAlchemy URL (SQLite or `postgresql+psycopg://...`); empty: the SQLite file "
            f"`{DataDir(Path()).database.name}` in the data directory")
    agents: int = setting(
        15, "Agent processes at most (one starts with the crawl, another when every started "
        "one is busy).", low=1, high=64,
        doc="agent processes at most (the paper's 15; `search` uses 4 unless `--agents` is given); "
            "one starts with the crawl, another when every started one is busy")
    delay: float = setting(
        1.0, "Seconds between two requests to one server.", low=0,
        doc="seconds between two requests to one server (a site's larger `Crawl-delay` wins)")
    hours: float = setting(
        1.0, "Stop after this many hours (default {default}; 0: queue the seeds, fetch nothing).",
        low=0, doc="stop the crawl after this long")
    max_docs: int = setting(
        0, "Stop after retrieving this many documents (default {default}: no limit).", low=0,
        doc="stop after this many documents retrieved (0: no limit)")
    max_depth: int = setting(
        50, "Links from a seed (default {default}; 0: the seeds only).", low=0,
        doc="links from a seed (scope: stored with the crawl)")
    max_docs_per_server: int = setting(
        0, "Documents per server (default {default}: no cap).", low=0,
        doc="documents per server (0: no limit; scope)")
    max_url_length: int = setting(2048, "Longest URL fetched, in characters.", low=1)
    include: tuple[str, ...] = setting(
        (), "Regex a URL must match to be fetched (repeatable; replaces the stored list; "
        "--include '' lifts it).", pattern=True,
        doc="regexes; a URL must match one, when any are given (scope; in a variable: separated "
            "by white space)")
    exclude: tuple[str, ...] = setting(
        (), "Regex of URLs never to fetch (repeatable; replaces the stored list).", pattern=True,
        doc="regexes; a URL matching any is never fetched (scope)")
    robots_token: str = setting(
        DEFAULT_USER_AGENT_TOKEN, "Product token for robots.txt and the User-Agent.",
        flag="--user-agent-token",
        doc="the product token robots.txt rules name, and the User-Agent's first word (scope)")
    robots_ttl: float = setting(24 * 3600.0, "Seconds a robots.txt stays valid.", low=0)
    robots_retry: float = setting(
        600.0, "Seconds before a robots.txt that failed (5xx, unreachable) is asked again.", low=0)
    commit_every: int = setting(200, "Documents per transaction.", low=1,
                                doc="documents per database transaction")
    commit_seconds: float = setting(
        5.0, "Commit at least this often, in seconds, so another writer (a real-time search) "
        "never waits long.", low=0)
    agent_max_urls: int = setting(500, "Replace an agent process after this many URLs.", low=1)
    agent_memory_mb: int = setting(
        512, "Replace an agent process that grows past this many MB, its browser included "
        "under --render.", low=1)
    agent_deadline: float = setting(
        0.0, "Seconds an agent may hold one URL (default {default}: --total-timeout + 15).", low=0)
    progress_interval: float = setting(2.0, "Seconds between progress lines.", low=0)
    user_agent: str = setting("", "The whole User-Agent header (default: from --user-agent-token).")
    connect_timeout: float = setting(
        10.0, "Seconds to wait for a server to accept the connection.", low=0)
    read_timeout: float = setting(20.0, "Seconds to wait for each read from a server.", low=0)
    total_timeout: float = setting(60.0, "Seconds one retrieval may take in all.", low=0)
    max_bytes: int = setting(1 << 20, "Largest body kept, in bytes after decompression.", low=1)
    seeds: tuple[str, ...] = setting(
        (), "A URL to start from (repeatable).", flag="--seed",
        doc="URLs to start from (`--seed` repeatable, or `--seeds-file F`, one a line)")
    order: str = setting(
        "server-first", "Crawl order (default {default}, the WebCrawler's; docs/ordering.md).",
        choices=("server-first", "breadth-first", "backlink", "pagerank"),
        doc="crawl order: server-first, breadth-first, backlink, pagerank (docs/ordering.md)")
    hot_query: str = setting(
        "", "Words: URLs whose anchor text or URL mention them, or within 3 links of a page "
        "that does, are fetched first (the hot queue of Cho et al. 1998).",
        doc="words: URLs whose anchor text or URL mention them, or near such pages, go first")
    index_shards: int = setting(
        0, "Split the index into this many shards, one writer process each (default: as the "
        "index is; 1 for a new one; docs/scale-out.md).", low=1, high=64,
        doc="index writers, one shard each (docs/scale-out.md); 0: as the index is")
    external_index_writers: bool = setting(
        False, "With --index-shards: start no writers; `webcrawler index-writer` runs them (on "
        "other hosts).", doc="with `index_shards`: start no writers, `webcrawler index-writer` "
        "runs them (other hosts)")
    deny_private: bool = setting(
        False, "Refuse loopback, private, link-local, ... addresses, after DNS too, except the "
        "seeds' hosts (default: allow).", off="--allow-private",
        doc="refuse loopback, private, link-local, ... addresses, after DNS too, except the "
            "seeds' hosts (SSRF safety)")
    incremental: bool = setting(
        False, "Keep crawling for --hours: new URLs and recrawls of stored pages as they fall "
        "due (WebFountain).", doc="keep crawling for `hours`: recrawl stored pages as they fall "
        "due (WebFountain)")
    recrawl: str = setting(
        "buckets", "Recrawl policy of --incremental (default {default}; none = batch order, "
        "still running for --hours).", choices=RECRAWL_POLICIES,
        doc="recrawl policy of an incremental crawl: none, uniform, adaptive, buckets")
    fetch_rate: float = setting(
        0.0, "Requests per second over all servers, the bandwidth (0 = no cap).", low=0,
        doc="requests per second over all servers, the bandwidth (0: no cap)")
    recrawl_share: float = setting(
        FIRST_PASS_SHARE, "Share 0..1 of a server's turns its due recrawls get while it still has "
        "new URLs (default {default}: new pages first, a floor for recrawls; once its new URLs "
        "run out every turn is a recrawl; --plan auto: the model's share, at most this).", low=0, high=1,
        doc="share 0..1 of a server's turns its due recrawls get while it still has new URLs "
            "(new pages first, a floor for recrawls); --plan auto: the model's share, at most this")
    keep_responses: bool = setting(
        False, "Store each page's raw response (headers, compressed body) for `export --format "
        "warc` (--incremental crawls always do).", doc="store raw responses for `export --format "
        "warc` (incremental crawls always do)")
    agents_at: str = setting(
        "", "A Dask scheduler (tcp://HOST:PORT, or tls://HOST:PORT with --tls-ca, --tls-cert, "
        "--tls-key) whose agent hosts fetch, instead of local agents (docs/scale-out.md).",
        doc="a Dask scheduler (tcp://HOST:PORT, or tls://HOST:PORT with the three `tls_` "
            "settings) whose agent hosts fetch; empty: local agents")
    tls_ca: str = setting(
        "", "Mutual TLS: the cluster's CA certificate (PEM); peers must show a certificate it "
        "signed.", doc="with `agents_at` tls://...: the cluster's CA certificate (PEM file); every "
        "peer must show a certificate it signed (docs/scale-out.md, \"Mutual TLS\")")
    tls_cert: str = setting(
        "", "Mutual TLS: this role's certificate (PEM), signed by --tls-ca.",
        doc="with `agents_at` tls://...: the engine's certificate (PEM), signed by `tls_ca`")
    tls_key: str = setting("", "Mutual TLS: this role's private key (PEM).",
                           doc="with `agents_at` tls://...: the engine's private key (PEM)")
    plan: str = setting(
        "", "With --incremental: solve WebFountain's model from the crawl's history at the start "
        "of each period and recrawl by its plan.", choices=("auto",),
        doc="`auto`: WebFountain's model sets the recrawl plan each period (docs/recrawl-model.md)")
    plan_strategy: int = setting(3, "The model's strategy under --plan auto.", low=1, high=3,
                                 doc="the model's objective weights under `plan = auto`: 1, 2 or 3")
    plan_objective: str = setting(
        "freshness", "What the model's plan maximises under --plan auto: time-averaged freshness "
        "at the fetch rate, or the paper's obsolete pages under --plan-strategy.",
        choices=("freshness", "obsolete"),
        doc="what the model's plan optimises under `plan = auto`: `freshness` (time-averaged fresh "
            "pages at the fetch rate, Cho and Garcia-Molina's allocation over the model's buckets) "
            "or `obsolete` (the paper's objective under `plan_strategy`; docs/recrawl-model.md)")
    plan_cycle: float = setting(
        0.0, "Seconds between re-solves of the model during the crawl (default: --hours split "
        "into the model's 14 periods).", low=0, low_open=True,
        doc="seconds between re-solves under `plan = auto` (0: `hours` split into the model's 14 "
            "periods)")
    strip_params: tuple[str, ...] = setting(
        TRACKING_PARAMETERS, "A query or path parameter dropped from every URL (tracking, session "
        "ids; 'utm_*' is a prefix; repeatable; replaces the default list; --strip-param '' keeps "
        "every parameter).", flag="--strip-param",
        doc="query and path parameters dropped from every URL found (tracking, session ids; "
            "`utm_*` is a prefix; any case); parameters not named stay (one URL per document: "
            "README \"One URL per document\")")
    types: tuple[str, ...] = setting(
        DOCUMENT_TYPES, "Kinds of document fetched and indexed, comma-separated (default "
        f"{','.join(DOCUMENT_TYPES)}).", choices=DOCUMENT_TYPES, split=",",
        doc="kinds of document fetched and indexed (`--types html,pdf`; the variable separates "
            "them by spaces); links to the others are not queued when the URL's extension names "
            "them (`.pdf`, `.docx`, `.odt`, `.txt`), the rest are refused by the agent by their "
            "Content-Type or first bytes")
    sitemaps: bool = setting(
        True, "Read each server's sitemaps: robots.txt's Sitemap: lines, else /sitemap.xml "
        "(default: on).", off="--no-sitemaps",
        doc="read each server's sitemaps (sitemaps.org: robots.txt's `Sitemap:` lines, else "
            "`/sitemap.xml`; indexes, gzip, XML and text; 50,000 URLs and 50 MB a file) and queue "
            "the URLs they list that are in the scope")
    main_content: bool = setting(
        True, "Index each page's main content, its navigation, sidebars, headers and footers "
        "dropped, or all its text (default: main content).", off="--all-text",
        doc="index each page's main content: `<nav>`, `<header>`, `<footer>`, `<aside>`, "
            "navigation/banner/footer roles and sidebar, menu, footer, breadcrumb, related blocks "
            "dropped, except the page's own outline among them (links into the page itself); a "
            "page whose main content would be under a fifth of its text keeps it all; snippets "
            "then come from the main content (docs/main-content.md); `--all-text` indexes all "
            "the visible text")
    render: str = setting(
        "never", "Run pages' scripts in headless Chromium before indexing them: auto, pages that "
        "look like script shells; always, every HTML page (default {default}; needs "
        "webcrawler-search[render] and Debian's chromium).", choices=("never", "auto", "always"),
        doc="run pages' scripts in headless Chromium before indexing them (docs/rendering.md): "
            "`never`; `auto`, the pages that look like script shells (a `<script>`, and fewer "
            "than 50 visible words, an empty mount point such as `<div id=\"root\"></div>`, or a "
            "`<noscript>` asking for JavaScript); `always`, every HTML page. Needs "
            "`webcrawler-search[render]` and Debian's `/usr/bin/chromium` (one line says so "
            "otherwise)")
    render_timeout: float = setting(
        10.0, "Seconds one page may take in the browser under --render.", low=0)
    near_duplicates: float = setting(
        0.8, "Resemblance (0..1) of a page's text to an indexed page from which it is stored as "
        "a near-duplicate, not indexed (default {default}; 0: off).", low=0, high=1,
        doc="resemblance (0..1, of the pages' w-shingle sketches) to an indexed page from which "
            "a page is stored as a near-duplicate and not indexed; 0 turns it off "
            "(docs/near-duplicates.md)")
    link_refresh: int = setting(
        1000, "Documents between two refreshes of the index's link counts (default {default}; "
        "0: off).", low=0,
        doc="documents fetched between two refreshes of the index's link counts during a crawl: "
            "the pages those documents link to whose link prior changed by 5% or more since they "
            "were indexed are sent to the index again (at most 200 a refresh, the largest "
            "changes first; also once a minute and when the crawl ends); 0 turns it off "
            "(`engine/pipeline/link_refresh.py`)")
    scope_hosts: tuple[str, ...] = setting(
        (), "The seeds' hosts: exempt from deny_private (so are servers an include pattern "
        "matches).", flag=NO_FLAG,
        doc="internal: the seeds' hosts, exempt from `deny_private`; the crawl derives it from "
            "its seeds (no flag; the file refuses it)",
        not_in_file="the crawl derives it from its seeds")
    retries: int = setting(
        3, "Tries of a page after a passing failure (refused, reset, timeout, DNS, 429, 500, "
        "502, 503, 504) (default {default}; 0: the first failure is final).", low=0, high=20,
        doc="tries of a page after a passing failure (connection refused or reset, timeout, DNS, "
            "an agent that hung, 429, 500, 502, 503, 504); 0: the first failure is final "
            "(docs/real-web.md)")
    retry_backoff: float = setting(
        1.0, "Seconds before the first retry, doubled for each next one, with jitter.", low=0,
        doc="seconds before the first retry, doubled for each next one, with jitter (a server's "
            "longer Retry-After wins)")
    max_retry_after: float = setting(
        300.0, "Longest wait honoured, in seconds (Retry-After or backoff); a server asking for "
        "more is left until a later crawl.", low=0,
        doc="longest wait honoured, in seconds (Retry-After or backoff); a page asked to wait "
            "longer fails for this crawl, its server is not asked inside the window, a resumed "
            "crawl tries again")
    delay_factor: float = setting(
        2.0, "Politeness grows to this many times a server's response time (with --delay above "
        "0); 429 and 503 double it (default {default}; 0: fixed delay).", low=0,
        doc="politeness grows to this many times a server's response time (with `delay` above "
            "0), and becomes twice the refused interval on a 429 or 503 (never below `delay` or "
            "Crawl-delay; docs/real-web.md); 0: fixed delay")
    max_delay: float = setting(
        60.0, "Largest politeness delay the adaptation may reach, in seconds (never below "
        "--delay or Crawl-delay).", low=0)
    min_revisit: float = setting(
        60.0, "An incremental crawl fetches one page at most once in this many seconds.", low=0,
        doc="an incremental crawl fetches one page at most once in this many seconds, whatever "
            "its recrawl policy says")
    trap_repeats: int = setting(
        3, "A URL whose path repeats one segment more than this many times is a link loop, "
        "refused as 'trap' (default {default}; 0: no check).", low=0)
    trap_budget: int = setting(
        400, "Pages per server whose URLs differ only by a date (a calendar) fetched at most "
        "(default {default}; 0: no date rule at all).", low=0,
        doc="pages fetched per server and URL pattern whose URLs differ only by a date (a "
            "calendar whose pages differ); the rest are refused as `trap`. Dates beyond a year "
            "ahead and chains of pages alike but for their dates are refused sooner "
            "(docs/real-web.md); 0: no date rule at all")
    ca_bundle: str = setting(
        "", "PEM file of certificate authorities to trust besides the operating system's (a "
        "private CA).", doc="PEM file of certificate authorities to trust besides the operating "
        "system's (a private CA): an intranet and the public web both verify; empty: the "
        "operating system's store only (on Linux the distribution's bundle, e.g. "
        "/etc/ssl/certs/ca-certificates.crt; truststore on macOS and Windows)")
    ca_bundle_only: bool = setting(
        False, "Trust only --ca-bundle's authorities, not the operating system's.")
    client_cert: str = setting(
        "", "PEM client certificate to present to servers that ask for one.",
        doc="PEM client certificate for servers that ask for one (with `client_key` when the "
            "key is apart)")
    client_key: str = setting(
        "", "The client certificate's private key (PEM), when not in --client-cert.")
    insecure_skip_tls_verify: tuple[str, ...] = setting(
        (), "A host whose certificate is not checked (repeatable): UNSAFE, anyone on the path to "
        "it can read and change what is crawled.", metavar="HOST",
        doc="hosts (repeat the flag; the variable: separated by white space) whose certificates "
            "are not checked: unsafe (anyone on the path to them can read and change what is "
            "crawled); no credential is sent to them. Before issue 37 the flag took no value and "
            "applied to every host; it now takes the hosts it applies to")
    metrics_port: int = setting(
        0, "Serve the crawl's Prometheus metrics at http://127.0.0.1:PORT/metrics (default "
        "{default}: off).", low=0, high=65535,
        doc="serve the crawl's Prometheus metrics at `http://127.0.0.1:PORT/metrics` while it "
            "runs (0: off)")

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

