"""`webcrawler demo`: crawl a local demo web, index it, and serve the search page.

The demo web (`webcrawler.demoweb.stdlib_docs`) is the standard library's own
documentation, rendered by pydoc and served on 127.0.5.x, so the demo needs
no network and finds real text on any machine with Python. It keeps serving
while the search page does, so result links work.

The data directory starts fresh on every run, but this module only ever
deletes what it made: a directory is wiped only if it carries the demo's
marker file, and then only the database and the index in it.
"""

from __future__ import annotations

import errno
import shutil
import signal
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from webcrawler.commands.index import SeedsFailed, run_index
from webcrawler.datadir import DataDir, create_private
from webcrawler.demoweb.stdlib_docs import DemoWeb
from webcrawler.errors import ServiceError
from webcrawler.query_server import PortInUseError, ServeError, serve
from webcrawler.settings import Settings

DEFAULT_DATA_DIR = Path("webcrawler-demo")
MARKER = ".webcrawler-demo"  # "this directory belongs to the demo; it may be wiped"

InstallSignals = Callable[[Callable[[str], None]], None]


class DemoError(ServiceError):
    """The demo cannot start; str(error) is a one-line message for the user."""


def run_demo(data_dir: Path = DEFAULT_DATA_DIR, port: int = 5000, seconds: float = 60.0,
             host: str = "127.0.0.1", agents: int = 8, serve: bool = True,
             progress: bool = True, install_signals: InstallSignals | None = None,
             web_port: int = 0) -> str:
    """Crawl the demo web for at most `seconds`, print the summary, then (if `serve`)
    serve searches on host:port until Ctrl-C. Returns the crawl summary.

    Raises PortInUseError (a ServeError) before crawling when host:port is busy,
    DemoError when `data_dir` holds something other than an earlier demo."""
    if serve:
        check_port_free(host, port)
    prepare_data_dir(Path(data_dir))
    with _demo_web(web_port) as web:
        print(f"Demo web: the documentation of {len(web.manifest().modules)} standard library "
              f"modules on {len(web.servers) - 1} servers and a hub, {web.seed_url}",
              file=sys.stderr, flush=True)
        settings = Settings(data_dir=Path(data_dir), agents=agents, delay=0.0,
                            hours=seconds / 3600, include=(web.include_pattern,),
                            seeds=(web.seed_url,), progress_interval=1.0)
        summary = _crawl(settings, progress, install_signals)
        print(summary, flush=True)
        if serve:
            print(workbench_hint(web), file=sys.stderr, flush=True)
            _serve(settings.data_dir, host, port)
    return summary


def workbench_hint(web: DemoWeb) -> str:
    """The Workbench command that crawls this web while it is served: its servers are
    loopback addresses, which a workbench refuses unless its operator names them."""
    hosts = [urlsplit(origin).hostname for origin in web.servers]
    flags = " ".join(f"--allow-private-host {host}" for host in hosts)
    return (f"Crawl this web in the Workbench while the demo serves it (in another terminal): "
            f"webcrawler workbench {flags} - then open http://127.0.0.1:5001/ and start at "
            f"{web.seed_url}")


def check_port_free(host: str, port: int) -> None:
    """Raise PortInUseError if something already listens on host:port (0 is always free)."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise ServeError(f"cannot listen on {host}: {error.strerror or error}") from None
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as waitress does
            try:
                probe.bind(address)
            except OSError as error:
                if error.errno != errno.EADDRINUSE:
                    continue  # e.g. no IPv6 here: the server will say so if it matters
                raise PortInUseError(
                    f"port {port} on {host} is already in use: stop the other server or "
                    "choose another port with --port") from None


def _demo_web(port: int) -> DemoWeb:
    try:
        return DemoWeb(port=port)
    except OSError as error:
        raise DemoError(f"cannot serve the demo web on 127.0.5.x port {port or 'any'}: "
                        f"{error.strerror or error} (it needs the loopback addresses "
                        "127.0.5.1-4 and 127.0.5.100, which Linux has; elsewhere alias them "
                        "to the loopback interface)") from None


def prepare_data_dir(data_dir: Path) -> None:
    """Make `data_dir` an empty demo directory; wipe it only if an earlier demo made it."""
    if data_dir.exists() and not data_dir.is_dir():
        raise DemoError(f"{data_dir} is a file, not a directory: choose another --data-dir")
    if data_dir.is_dir() and any(data_dir.iterdir()) and not (data_dir / MARKER).exists():
        raise DemoError(f"{data_dir} is not empty and was not made by the demo: the demo starts "
                        "fresh each run, so choose a new or empty --data-dir")
    create_private(data_dir)
    paths = DataDir(data_dir)
    for path in (*paths.database_files, paths.index):  # what the demo wipes
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
    (data_dir / MARKER).write_text("Made by `webcrawler demo`, which wipes its database and "
                                   "index on every run.\n", encoding="utf-8")


def _crawl(settings: Settings, progress: bool, install_signals: InstallSignals | None) -> str:
    """run_index, with the crawl's signal handlers undone afterwards (Ctrl-C then stops serving)."""
    main_thread = threading.current_thread() is threading.main_thread()
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if main_thread else {}
    try:
        summary, _ = run_index(settings, progress=progress, install_signals=install_signals)
    except SeedsFailed as exc:  # the demo web did not answer: say why, serve nothing
        raise DemoError(str(exc)) from None
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
    return summary


def _serve(data_dir: Path, host: str, port: int) -> None:
    print("Try: python, socket, json decoder, \"regular expression\". Ctrl-C stops.",
          file=sys.stderr, flush=True)
    serve(data_dir, host=host, port=port)


__all__ = ["DEFAULT_DATA_DIR", "DemoError", "check_port_free", "prepare_data_dir", "run_demo",
           "workbench_hint"]
