"""Configuration: where each setting's value comes from.

Precedence, lowest first: the dataclass default < the data directory's
`webcrawler.toml` < a ``WEBCRAWLER_*`` environment variable < a command-line flag.

    kinds     what type a field holds: check a TOML value, parse an environment text
    file      read and check `<data_dir>/webcrawler.toml` ([crawl] and [serve])
    serve     ServeSettings: the query server's own settings
    layers    apply the four layers, remembering each value's origin
    options   click options generated from the settings, and the CLI's entry points
    agent_config  what every agent is told (the settings it needs, the credentials)

Everything here is standard library and click only: `webcrawler.cli` imports it, and
every agent process imports `webcrawler.cli` (tests/test_boundaries.py keeps it light).
"""

from webcrawler.config.kinds import ConfigError

__all__ = ["ConfigError"]
