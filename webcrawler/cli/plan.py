"""`webcrawler plan-recrawl`: solve WebFountain's model and print Table 3, write JSON and Figures 3-4.

The instance is either the paper's (section 5, every unstated value an option with the
default docs/recrawl-model.md argues for) or, with --from-crawl, the stored crawl's own
history (recrawl/history.py). Solver failures and a crawl without history are one line,
and so are instances this machine cannot solve: an inverted range of change rates, a
model whose solver would need more memory than there is (estimated from B x T before
anything is built), values that overflow.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from webcrawler.config.kinds import FiniteFloat
from webcrawler.recrawl.instances import Scenario

# Measured (plan-recrawl --strategy 1 on 255x14, 1000x50, 2000x100): casadi's expression graph
# and Ipopt's KKT system take about 10 kB per bucket-period cell above a 100 MB start; the
# estimate is a little above that, so a refused model would really not have fitted.
BYTES_PER_CELL = 12_000
BASE_BYTES = 150_000_000

HELP = {
    "pages": "Pages in the repository at the start (the paper: 500 M).",
    "buckets": "Change-rate buckets B (the paper: 255).",
    "periods": "Time periods T in a crawler cycle (the paper: 14).",
    "period_days": "Length of one period in days (assumed: 2, a four-week cycle).",
    "doubling_days": "Days in which the web doubles (the paper: about 400).",
    "slowest_days": "Mean days between changes in the slowest bucket.",
    "fastest_days": "Mean days between changes in the fastest bucket.",
    "crawls_per_cycle": "Bandwidth: how many times per cycle the repository could be fetched.",
    "old_cost": "Seconds to crawl an old page (cconst).",
    "new_cost": "Seconds to crawl a new page (dconst).",
    "old_finds_new": "New pages found per old page crawled (oldnwt).",
    "new_finds_new": "New pages found per new page crawled (newnwt).",
    "version": "The paper's version: 1 equal buckets, 2 3M/1M/3M buckets, 3 changes half as often.",
}


def scenario_options(command: Any) -> Any:
    """One option per Scenario field, typed and defaulted from the dataclass."""
    for field in reversed(dataclasses.fields(Scenario)):
        positive = not field.name.endswith("finds_new")  # a zero elsewhere divides by zero
        kind = (click.IntRange(1, None) if field.type == "int"
                else FiniteFloat(0, None, min_open=positive))
        if field.name == "version":
            kind = click.IntRange(1, 3)
        command = click.option("--" + field.name.replace("_", "-"), type=kind, default=field.default,
                               show_default=True, help=HELP[field.name])(command)
    return command


@click.command("plan-recrawl")
@click.option("--strategy", "strategies", type=click.IntRange(1, 3), multiple=True,
              help="1 equal weights, 2 last period only, 3 last period and small weights "
                   "(repeatable; default all three).")
@click.option("--small-weight", type=FiniteFloat(0, 1), default=0.01, show_default=True,
              help="Strategy 3's weight on every period but the last.")
@scenario_options
@click.option("--from-crawl", is_flag=True,
              help="Take bucket sizes, change fractions and crawl costs from the stored crawl.")
@click.option("--data-dir", type=click.Path(path_type=Path), default=None,
              help="With --from-crawl: the crawl's data directory (default ./webcrawler-data).")
@click.option("--db", "db_url", default=None, help="With --from-crawl: SQLAlchemy database URL.")
@click.option("--json", "json_path", default=None, help="Write the plans as JSON here ('-': stdout).")
@click.option("--figures", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write Figures 3 and 4 as PNG into this directory.")
@click.option("--max-iter", type=click.IntRange(1, None), default=3000, show_default=True,
              help="Ipopt's iteration limit.")
def plan_recrawl(strategies: tuple[int, ...], small_weight: float, from_crawl: bool,
                 data_dir: Path | None, db_url: str | None, json_path: str | None,
                 figures: Path | None, max_iter: int, **scenario: Any) -> None:
    """Solve WebFountain's recrawl model (Edwards et al. 2001): how many pages of each change
    bucket, and how many new pages, to crawl in each period of a cycle."""
    from webcrawler.recrawl.figures import write_figures
    from webcrawler.recrawl.plan import changes_per_cycle, format_table, plan_json, solve_strategies
    from webcrawler.recrawl.solve import SolveFailed, require_solver

    require_solver()  # ExtraMissing (one line) when casadi, webcrawler-search[plan], is not installed
    if figures is not None:
        from webcrawler.plots import require_plots

        require_plots()  # PlotsUnavailable (one line, at the CLI's edge) before the solve
    given = Scenario(**scenario)
    check_scenario(given)
    if not from_crawl:
        check_memory(given.buckets, given.periods)
    try:
        data, source = _instance(given, from_crawl, data_dir, db_url)
        check_memory(data.buckets, data.periods)
        check_finite(data)
        plans = solve_strategies(data, strategies or (1, 2, 3), small_weight, max_iter,
                                 progress=lambda line: click.echo(line, err=True))
    except SolveFailed:
        raise  # its own one line, at the CLI's edge
    except (ArithmeticError, ValueError, MemoryError, RuntimeError) as exc:
        raise click.ClickException(f"the model cannot be solved with these values "
                                   f"({type(exc).__name__}: {str(exc).splitlines()[0][:200]})") from None
    document = plan_json(data, plans, source)
    if json_path == "-":
        click.echo(json.dumps(document, indent=1))
    else:
        click.echo(format_table(plans))
    if json_path and json_path != "-":
        Path(json_path).write_text(json.dumps(document, indent=1), encoding="utf-8")
        click.echo(f"plans written to {json_path}", err=True)
    if figures is not None:
        for path in write_figures(plans, changes_per_cycle(data), figures):
            click.echo(f"figure written to {path}", err=True)


def check_scenario(scenario: Scenario) -> None:
    """Ranges the model needs the right way round: one line otherwise."""
    if scenario.fastest_days >= scenario.slowest_days:
        raise click.ClickException(
            f"--fastest-days ({scenario.fastest_days:g}) must be less than --slowest-days "
            f"({scenario.slowest_days:g}): the fastest bucket changes most often")


def model_bytes(buckets: int, periods: int) -> int:
    """About how much memory solving a B x T model takes (see BYTES_PER_CELL)."""
    return BASE_BYTES + BYTES_PER_CELL * buckets * periods


def check_memory(buckets: int, periods: int) -> None:
    """Refuse a model whose solve would not fit in the memory available now."""
    import psutil

    need, have = model_bytes(buckets, periods), psutil.virtual_memory().available
    if need > have:
        raise click.ClickException(
            f"a model of {buckets} buckets x {periods} periods needs about {need / 1e9:.1f} GB "
            f"of memory to solve, and {have / 1e9:.1f} GB are available: use fewer --buckets "
            "or --periods")


def check_finite(data: Any) -> None:
    """Every number of the instance finite (values like --pages 1e300 overflow when built)."""
    import numpy as np

    for field in dataclasses.fields(data):
        value = np.asarray(getattr(data, field.name), dtype=float)
        if not np.isfinite(value).all():
            raise click.ClickException(f"the model's {field.name} overflows with these values: "
                                       "use smaller --pages, costs or rates")


def _instance(scenario: Scenario, from_crawl: bool, data_dir: Path | None,
              db_url: str | None) -> tuple[Any, dict[str, Any]]:
    """The ModelData to solve and a description of where it came from."""
    from webcrawler.recrawl.instances import build

    if not from_crawl:
        return build(scenario), {"kind": "scenario", **dataclasses.asdict(scenario)}
    from webcrawler.config.options import crawl_settings
    from webcrawler.recrawl.history import from_database

    settings = crawl_settings({"data_dir": data_dir})  # file and variables, as `index` reads them
    data_dir = settings.data_dir
    return from_database(db_url or settings.db_url or _sqlite(data_dir), scenario)  # or NoHistory


def _sqlite(data_dir: Path) -> str:
    from webcrawler.datadir import DataDir

    paths = DataDir(data_dir)
    if not paths.database.exists():
        raise click.ClickException(f"no crawl in {data_dir}: run webcrawler index first")
    return paths.database_url
