"""`webcrawler workbench` and `webcrawler crawl definition.json [--on URL] [--out DIR]`.

`crawl` is the toolkit's command (cli/toolkit.py) with two more options: a
`.json` file is a workbench crawl definition, run here in-process with the same
runner the workbench's crawl processes use (so the result is the same file),
or on another workbench with `--on` (relocation: JSON only, never Python).
A `.py` file goes to the toolkit's command unchanged.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import sys
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

import click

from webcrawler.cli import toolkit as toolkit_cli
from webcrawler.config.layers import from_environment, set_by_environment
from webcrawler.config.options import options
from webcrawler.settings.workbench import WorkbenchSettings
from webcrawler.toolkit.crawler import TOOLKIT_AGENTS


def _load(file: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    """The definition in `file` with the command line's roots, limits and order applied."""
    # here, not at the top: every command's process imports this module, and the definitions'
    # patterns (the `regex` module) serve only the commands that run a definition
    from webcrawler.workbench.definition import DefinitionError, parse

    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise click.ClickException(f"{file}: not a JSON crawl definition ({error})") from None
    if not isinstance(data, dict):
        raise click.ClickException(f"{file}: a crawl definition is a JSON object")
    if overrides.get("roots"):
        data["roots"] = list(overrides["roots"])
    limits = {k: overrides[k] for k in ("pages", "depth", "seconds") if overrides.get(k) is not None}
    if limits:
        data["limits"] = {**(data.get("limits") or {}), **limits}
    if overrides.get("order"):
        data["order"] = overrides["order"]
    try:
        parse(data)
    except DefinitionError as error:
        raise click.ClickException(f"{file}: {error}") from None  # exit 1, as documented
    return data


class Progress:
    """Counters on stderr every few seconds (redrawn in place on a terminal)."""

    def __init__(self) -> None:
        self.live, self.last = sys.stderr.isatty(), 0.0

    def __call__(self, event: dict[str, Any]) -> None:
        now = time.monotonic()
        if event.get("t") != "counters" or (not self.live and now - self.last < 5.0):
            return
        self.last = now
        try:
            line = (f"{int(event['visited'])} pages visited, {int(event['queued'])} queued, "
                    f"{int(event['skipped'])} skipped, {int(event['failed'])} failed, "
                    f"{float(event['bytes']) / 1e6:.1f} MB, {float(event['rate']):.1f} pages/s")
        except (KeyError, TypeError, ValueError, OverflowError):
            return  # counters from another workbench that this client cannot show
        click.echo("\r\x1b[2K" + line if self.live else line, err=True, nl=not self.live)


def run_json(file: Path, out: Path | None, on: str | None, agents: int | None, delay: float | None,
             overrides: dict[str, Any], token: str | None = None,
             use_credentials: bool = False) -> None:
    """Run a JSON crawl definition here, or on the workbench at `on`; print the summary."""
    from webcrawler.toolkit.model import Summary
    from webcrawler.workbench.definition import parse
    from webcrawler.workbench.remote import RemoteError, run_remote
    from webcrawler.workbench.runner import run_definition

    data = _load(file, overrides)
    out_dir = out or Path(f"{file.stem}-crawl")
    progress = Progress()
    try:
        if on:
            finished = run_remote(on, data, out_dir, progress, token)
        else:
            settings = from_environment()
            personal = settings.agents if set_by_environment("agents") else TOOLKIT_AGENTS
            tuned: dict[str, Any] = {"agents": agents or personal, "delay": delay}
            settings = dataclasses.replace(settings, **{k: v for k, v in tuned.items() if v is not None})
            finished = run_definition(parse(data), out_dir, settings, None, progress,
                                      use_credentials=use_credentials)
    except (RemoteError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    if progress.live:
        click.echo("", err=True)
    click.echo(Summary(**finished["summary"]).line())
    click.echo(finished.get("action") or "")
    if finished.get("result"):
        click.echo(f"result: {out_dir / finished['result']}")
    for line in finished.get("errors") or []:
        click.echo(f"  {line}", err=True)


def _crawl(file: Path, out: Path | None, on: str | None, token: str | None,
           **options: Any) -> None:
    """Run a personal crawler: a Crawler subclass in FILE.py, or a workbench crawl definition in
    FILE.json (docs/workbench.md), here or on another workbench with --on."""
    if file.suffix == ".json":
        overrides = {k: options[k] for k in ("roots", "pages", "depth", "seconds", "order")}
        run_json(file, out, on, options["agents"], options["delay"], overrides, token,
                 options.get("use_credentials", False))
        return
    if on or out:
        raise click.UsageError("--on and --out take a JSON crawl definition: Python crawlers "
                               "run only here, never on another workbench")
    toolkit_cli.crawl_command.callback(file=file, **options)  # type: ignore[misc]


crawl_command = click.Command(
    "crawl", callback=_crawl, help=_crawl.__doc__,
    params=[*toolkit_cli.crawl_command.params,
            click.Option(["--on"], default=None, metavar="URL",
                         help="Run the JSON definition on the workbench at URL (relocation)."),
            click.Option(["--out"], type=click.Path(file_okay=False, path_type=Path), default=None,
                         help="Folder for a JSON definition's result (default FILE-crawl/)."),
            click.Option(["--token"], default=None, envvar="WEBCRAWLER_WORKBENCH_TOKEN",
                         show_envvar=True, help="The other workbench's token (with --on).")])


def _data_dir() -> Path:
    return from_environment().data_dir  # a bad variable: ConfigError, one line at the CLI's edge


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@click.command("workbench")
@options(WorkbenchSettings, [f.name for f in fields(WorkbenchSettings)], defaulted=True)
def workbench_command(data_dir: Path | None, host: str, port: int, threads: int,
                      tls_cert: Path | None, tls_key: Path | None, insecure: bool,
                      **options: Any) -> None:
    """The Crawler Workbench: define, run and watch crawls in the browser (docs/workbench.md)."""
    from webcrawler.web.server import exposure_warning, make_server, make_tls_server
    from webcrawler.workbench.access import fingerprint, new_token
    from webcrawler.workbench.app import create_app

    if bool(tls_cert) != bool(tls_key):
        raise click.UsageError("--tls-cert and --tls-key go together")
    data_dir = data_dir or _data_dir()
    warning = exposure_warning(host, "the workbench")
    if warning and not tls_cert and not insecure:
        raise click.UsageError(f"--host {host} is beyond loopback: serve HTTPS (--tls-cert, "
                               "--tls-key), or say --insecure to serve plain HTTP there")
    given = options["token"]
    if warning:
        click.echo(warning, err=True)
        options["token"] = options["token"] or new_token()
    app = create_app(data_dir, **options)  # a bad settings file: ConfigError (one line)
    crawls = app.extensions["webcrawler.workbench"]
    try:
        server = (make_tls_server(app, host, port, threads, str(tls_cert), str(tls_key))  # or ServeError
                  if tls_cert and tls_key else make_server(app, host=host, port=port, threads=threads))
    except BaseException:
        crawls.close()
        raise
    shown = f"[{host}]" if ":" in host else host
    base = f"{'https' if tls_cert else 'http'}://{shown}:{server.effective_port}/"
    click.echo(f"Workbench at {base}")
    token = options["token"]
    if token and given:  # the operator's own: never printed (it may be in use elsewhere)
        click.echo(f"Token: set ({fingerprint(token)}; open {base}?token=TOKEN or send "
                   "Authorization: Bearer TOKEN)", err=True)
    elif token:  # generated here: the operator has no other way to learn it
        click.echo(f"Token: {token} (open {base}?token={token} or send Authorization: Bearer "
                   "TOKEN)", err=True)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        crawls.close()
