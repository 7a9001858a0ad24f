"""The `webcrawler` command line: one module per group of subcommands, wired in main.py.

    main.py         the `webcrawler` group: index, search, stats, serve, demo, ...; errors become
                    one line and an exit status here, once
    crawl_options.py  which crawl settings each command takes, by name (the flags are generated
                    from the crawl's settings table, webcrawler/settings/)
    shards.py       `webcrawler index-writer`, and `optimize`'s --shard
    plan.py         `webcrawler plan-recrawl`
    export.py       `webcrawler export`
    config.py       `webcrawler config`
    toolkit.py      `webcrawler crawl FILE.py`
    workbench.py    `webcrawler workbench`, `webcrawler crawl definition.json [--on URL]`
    agent_hosts.py  `webcrawler agent-scheduler`, `webcrawler agent-host`
    demo.py         `webcrawler demo`: the demo web crawled, indexed and searched
    help.py         every option's default written once, as "(default X)"
    ending.py       how the command's process ends: its exit handlers, not its teardown

What a command does beyond parsing its options lives where the house keeps it (`webcrawler
index` is webcrawler/commands/index.py, `serve` the query server, ...).

Every command's process imports this package first, so it stays light: each command imports
what it runs inside its function. (The agents and the index writer, forkserver children, are
never named the `webcrawler` script as their parent's main module: webcrawler/processes.py.)
"""

from webcrawler.cli.main import main

__all__ = ["main"]
