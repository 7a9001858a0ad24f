"""Which crawl settings each command takes, by name: the flags themselves (spelling, type,
bounds, help) are generated from the crawl's settings table (webcrawler/settings/), so a
command lists names and nothing else."""

from __future__ import annotations

from webcrawler.config.layers import variables
from webcrawler.config.options import options
from webcrawler.settings import Settings

# The crawl's scope: stored by `index`, kept by every later command unless given again.
SCOPE = ("include", "exclude", "max_depth", "max_docs_per_server", "robots_token", "deny_private")
# What counts as one document, and which kinds are fetched.
CONTENT = ("strip_params", "sitemaps", "near_duplicates", "main_content", "render", "types")
# The incremental crawl (webcrawler/recrawl/), and WebFountain's plan under --plan auto.
RECRAWL = ("incremental", "recrawl", "fetch_rate", "recrawl_share", "keep_responses")
PLAN = ("plan", "plan_strategy", "plan_cycle")
# Agent hosts through Dask (docs/scale-out.md), and a sharded index.
CLUSTER = ("agents_at", "tls_ca", "tls_cert", "tls_key")
SHARDS = ("index_shards", "external_index_writers")
# The expert's knobs: timeouts, sizes, robots.txt, agents, retries, politeness, traps, TLS.
TUNING = ("connect_timeout", "read_timeout", "total_timeout", "max_bytes", "max_url_length",
          "user_agent", "robots_ttl", "robots_retry", "commit_seconds", "agent_max_urls",
          "agent_memory_mb", "agent_deadline", "progress_interval", "retries", "retry_backoff",
          "max_retry_after", "delay_factor", "max_delay", "min_revisit", "trap_repeats",
          "trap_budget", "ca_bundle", "ca_bundle_only", "client_cert", "client_key",
          "insecure_skip_tls_verify", "render_timeout", "metrics_port")
# TUNING settings a real-time search (`webcrawler search`) never reads: it commits after every
# document, reports its own progress, recrawls nothing and serves no metrics.
NOT_IN_SEARCH = ("commit_seconds", "progress_interval", "min_revisit", "metrics_port")
SEARCH_AGENTS = 4  # a real-time search's agents unless --agents says otherwise

INDEX_HEAD = ("hours", "max_docs", "seeds")  # then --seeds-file, which only `index` reads
INDEX = ("agents", "delay", *SCOPE, *CONTENT, *RECRAWL, *PLAN, "commit_every", "link_refresh",
         "order", "hot_query", *CLUSTER, *SHARDS, *TUNING, "data_dir", "db_url")
SEARCH = ("agents", "delay", *SCOPE, *(n for n in TUNING if n not in NOT_IN_SEARCH), "data_dir",
          "db_url")

index_head_options = options(Settings, INDEX_HEAD)
index_options = options(Settings, INDEX)
search_options = options(Settings, SEARCH, special={"agents": {"shown": SEARCH_AGENTS}})
data_dir_option = options(Settings, ("data_dir",))
db_option = options(Settings, ("db_url",))
# The agent roles read no settings but these three, from their flags or their variables.
role_tls_options = options(Settings, CLUSTER[1:],
                           special={n: {"envvar": variables(Settings, n)[0]} for n in CLUSTER[1:]})
