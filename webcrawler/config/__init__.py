"""Configuration: where each setting's value comes from. The settings themselves, each
declared once with its type, default, bounds and help, are the tables of webcrawler/settings/
(Settings, ServeSettings, WorkbenchSettings); everything here is generated from them.

Precedence, lowest first: the table's default < the data directory's
`webcrawler.toml` < a ``WEBCRAWLER_*`` environment variable < a command-line flag.

    kinds     what type a field holds: check a TOML value, parse an environment text
    file      read and check `<data_dir>/webcrawler.toml` ([crawl] and [serve])
    layers    apply the four layers, remembering each value's origin
    bounds    a setting's bounds: its flag's click type, and the one check of every layer
    options   click options generated from the tables, and the CLI's entry points
    helptext  how a help sentence says its default
    docs      docs/configuration.md's settings tables, generated (python -m webcrawler.config.docs)
    agent_config  what every agent is told (the settings it needs, the credentials)

Everything here is standard library and click only: `webcrawler.cli` imports it, and
every agent process imports `webcrawler.cli` (tests/test_boundaries.py keeps it light).
"""

from webcrawler.config.kinds import ConfigError

__all__ = ["ConfigError"]
