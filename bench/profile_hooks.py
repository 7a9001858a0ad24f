"""What bench.crawl_profile puts inside a crawl's processes: each one's own CPU, and its profile.

    python -m bench.profile_hooks index ...     # `webcrawler index ...`, every process counted

Run as a script, this is the `webcrawler` command with the engine's entry point and the
children's (the agents' `agent_main`, the index writer's `index_process`) wrapped: each
process writes, as it ends, its own CPU seconds (`getrusage(RUSAGE_SELF)`, from its fork to
its end, start-up included) to `$BENCH_PROFILE_DIR/<role>-<pid>.json`, and with
`BENCH_PROFILE=1` its cProfile to `<role>-<pid>.prof`. The children come from the crawl's
forkserver, which imports this module first (`processes.PRELOADED`), so the wrapped entry
points are the ones the children unpickle. Nothing in webcrawler/ knows of it.
"""

from __future__ import annotations

import atexit
import cProfile
import functools
import importlib.abc
import importlib.util
import json
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

OUT = os.environ.get("BENCH_PROFILE_DIR", "")
PROFILE = os.environ.get("BENCH_PROFILE") == "1"


def _record(role: str, profiler: cProfile.Profile | None) -> None:
    if not OUT:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stem = Path(OUT) / f"{role}-{os.getpid()}"
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(f"{stem}.prof")
    stem.with_suffix(".json").write_text(json.dumps({"role": role,
                                                     "cpu": usage.ru_utime + usage.ru_stime}))


def _wrapped(role: str, func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        profiler = cProfile.Profile(time.thread_time) if PROFILE else None
        if profiler is not None:
            profiler.enable()
        try:
            return func(*args, **kwargs)
        finally:
            _record(role, profiler)

    wrapper.profiled = True  # type: ignore[attr-defined]
    return wrapper


WRITER_MODULE = "webcrawler.engine.pipeline.index_sink"


class _WrapWriterOnImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Wraps the index writer's entry point as its module is imported: in the forkserver this
    module only wraps the agents' (preloaded there anyway), so that the forkserver imports no
    more than a user's does and the writer, forked from it, pays its own imports as a user's
    does (importing index_sink in the forkserver counted the writer's start-up, 0.4 s, as
    "the rest")."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != WRITER_MODULE:
            return None
        sys.meta_path.remove(self)  # the real finders find it; this one wraps what they load
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        self._loader = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        module.index_process = _wrapped("writer", module.index_process)


def install(engine: bool = True) -> None:
    """Wrap the children's entry points where the engine names them (idempotent); in the
    forkserver (`engine` False), the agents' now and the writer's when its process imports it."""
    from webcrawler import processes
    from webcrawler.agents import worker

    if getattr(worker.agent_main, "profiled", False):
        return
    worker.agent_main = _wrapped("agent", worker.agent_main)  # type: ignore[misc]
    if engine:
        from webcrawler.engine.loop import pool
        from webcrawler.engine.pipeline import index_sink

        pool.agent_main = worker.agent_main  # type: ignore[misc]
        index_sink.index_process = _wrapped("writer", index_sink.index_process)  # type: ignore[misc]
    elif WRITER_MODULE not in sys.modules:
        sys.meta_path.insert(0, _WrapWriterOnImport())
    if __name__ not in processes.PRELOADED and __name__ == "bench.profile_hooks":
        processes.PRELOADED.append(__name__)


def run_engine(argv: list[str]) -> None:
    """`webcrawler <argv>` in this process, its CPU (and profile) recorded at exit."""
    import bench.profile_hooks as hooks  # the module the forkserver will import, not __main__

    hooks.install()
    profiler = cProfile.Profile(time.thread_time) if PROFILE else None
    atexit.register(_record, "engine", profiler)
    if profiler is not None:
        profiler.enable()
    from webcrawler.cli.main import main

    sys.argv[1:] = argv  # as the console script calls it: its process ends as a user's does
    main(prog_name="webcrawler")


# imported by the crawl's forkserver (`python -c "from multiprocessing.forkserver import main;
# ..."`, its preload); the engine calls install() itself
if __name__ == "bench.profile_hooks" and OUT and sys.argv == ["-c"]:
    install(engine=False)

if __name__ == "__main__":
    run_engine(sys.argv[1:])
