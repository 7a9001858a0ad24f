"""`webcrawler agent-scheduler` and `webcrawler agent-host`: the cluster roles' commands.

Each prints one line on stdout with the address it serves on (so a script can
read it), logs to stderr, and runs until Ctrl-C or SIGTERM. Both listen on
loopback unless `--host` says otherwise, and beyond it only with mutual TLS or
`--insecure` (agenthosts/security.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from webcrawler.agenthosts.security import Tls, UnsafeRole, exposure
from webcrawler.cli.crawl_options import role_tls_options
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


def _insecure(command: Any) -> Any:
    return click.option("--insecure", is_flag=True,
                        help="Allow listening beyond loopback without TLS (anyone who reaches the "
                             "port can run code as this user).")(command)


def _secured(role: str, host: str, tls: Tls, insecure: bool, address: str = "") -> Any:
    """Dask's Security for the role (None without TLS) once it may listen on `host`; the
    warning for a host beyond loopback goes to stderr first, one line."""
    try:
        tls.check(address)
        warning = exposure(role, host, tls, insecure)
    except UnsafeRole as exc:
        raise click.ClickException(str(exc)) from None
    if warning:
        click.echo(warning, err=True)
    return tls.security()


@click.command("agent-scheduler")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8786, show_default=True,
              help="Port to listen on (0 = any free port).")
@role_tls_options
@_insecure
def agent_scheduler(host: str, port: int, tls_ca: str | None, tls_cert: str | None,
                    tls_key: str | None, insecure: bool) -> None:
    """Run the Dask scheduler that agent hosts join and `index --agents-at` sends URLs to."""
    security = _secured("agent scheduler", host, Tls(tls_ca or "", tls_cert or "", tls_key or ""),
                        insecure)
    roles = _roles("agent-scheduler")
    try:
        roles.run_scheduler(host, port, _announce("agent scheduler at"), security)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from None


@click.command("agent-host")
@click.option("--scheduler", required=True,
              help="The agent scheduler, e.g. tcp://10.0.0.1:8786 (tls://... with the --tls options).")
@click.option("--host", default="127.0.0.1", show_default=True, help="This host's address to listen on.")
@click.option("--agents", type=click.IntRange(1, 256), default=15, show_default=True,
              help="Agents (worker threads) on this host.")
@role_tls_options
@_insecure
def agent_host(scheduler: str, host: str, agents: int, tls_ca: str | None, tls_cert: str | None,
               tls_key: str | None, insecure: bool) -> None:
    """Run an agent host: retrieve the URLs the engine sends through the scheduler."""
    security = _secured("agent host", host, Tls(tls_ca or "", tls_cert or "", tls_key or ""),
                        insecure, scheduler)
    roles = _roles("agent-host")
    try:
        roles.run_agent_host(scheduler, host, agents, _announce("agent host at"), security)
    except (OSError, TimeoutError) as exc:
        raise click.ClickException(f"cannot join the agent scheduler at {scheduler} from {host}: "
                                   f"{exc}") from None
