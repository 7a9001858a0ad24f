"""`webcrawler agent-scheduler` and `webcrawler agent-host`: the cluster roles' commands.

Each prints one line on stdout with the address it serves on (so a script can
read it), logs to stderr, and runs until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from webcrawler.errors import needs_extra


def _announce(what: str) -> Callable[[str], None]:
    return lambda address: click.echo(f"{what} {address}")


def _roles(command: str) -> Any:
    """agenthosts.roles (asyncio and Dask: only for these commands), or the one line that
    names the extra to install."""
    try:
        import distributed  # noqa: F401 - the roles import it as they start

        from webcrawler.agenthosts import roles
    except ImportError as exc:
        raise needs_extra("distributed", f"webcrawler {command}", exc) from None
    return roles


@click.command("agent-scheduler")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8786, show_default=True,
              help="Port to listen on (0 = any free port).")
def agent_scheduler(host: str, port: int) -> None:
    """Run the Dask scheduler that agent hosts join and `index --agents-at` sends URLs to."""
    roles = _roles("agent-scheduler")
    try:
        roles.run_scheduler(host, port, _announce("agent scheduler at"))
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from None


@click.command("agent-host")
@click.option("--scheduler", required=True, help="The agent scheduler, e.g. tcp://10.0.0.1:8786.")
@click.option("--host", default=None, help="This host's address to listen on (default: chosen by Dask).")
@click.option("--agents", type=click.IntRange(1, 256), default=15, show_default=True,
              help="Agents (worker threads) on this host.")
def agent_host(scheduler: str, host: str | None, agents: int) -> None:
    """Run an agent host: retrieve the URLs the engine sends through the scheduler."""
    roles = _roles("agent-host")
    try:
        roles.run_agent_host(scheduler, host or "", agents, _announce("agent host at"))
    except (OSError, TimeoutError) as exc:
        raise click.ClickException(f"cannot join the agent scheduler at {scheduler}: {exc}") from None
