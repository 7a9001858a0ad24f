"""How the `webcrawler` command's process ends: its exit handlers run, its interpreter is not
torn down.

A crawl's engine holds some 700 modules (SQLAlchemy, NumPy, the engine, the index sink) and
their objects. Past its exit handlers, a normal exit frees every one of them, module by
module, and collects them: CPU that the user pays on every command and that nobody sees
(issue 36 counts it with the crawl). The console script has nothing left to do by then, so it
runs what a normal exit runs that can matter (every `atexit` handler: multiprocessing's, which
ends its children, logging's, temporary directories' finalizers), flushes stdout and stderr,
and leaves with the same status through `os._exit`. Only for a command that asks for it
(`webcrawler index`: `end_without_teardown()`; a command that runs the user's code, whose
files may wait for the teardown to be flushed, does not), only where the command is the
process (called with its arguments, by CliRunner or a script that calls `main([...])`, the
command returns as before), and never while a non-daemon thread runs, which a normal exit
waits for.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

_asked = False


def end_without_teardown() -> None:
    """This command's process may end without its interpreter's teardown (`end_process`)."""
    global _asked
    _asked = True


def end_process(code: object) -> None:
    """Leave the process with `code` (a SystemExit's: None or an int) after its exit
    handlers, without the interpreter's teardown, if its command asked. Returns (nothing
    done) otherwise, for any other code, or while a non-daemon thread other than this one runs."""
    if not _asked or (code is not None and not isinstance(code, int)):
        return  # a message: the interpreter prints it, as it does
    if threading.current_thread() is not threading.main_thread() or any(
            not t.daemon and t is not threading.main_thread() for t in threading.enumerate()):
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe, a closed stream: as the interpreter does
            code = code or 120
    os._exit(code or 0)
