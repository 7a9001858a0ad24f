"""Solve the recrawl model with Ipopt through casadi (the paper used MINOS on NEOS, section 5).

The NLP is the paper's own: every x, z, y, n, b a variable, (2)-(4) equality constraints,
(1), (5), (6) inequalities: ~11,000 variables and constraints at B = 255, T = 14. (With
`full=False` n and b are substituted by (3), (4): fewer iterations on small instances, but
denser derivatives, 7x the time per iteration at the paper's scale.) casadi builds exact
sparse derivatives and Ipopt's interior point method solves it; bench/recrawl_model.py
measures both forms and scipy.
Page counts are divided by the mean bucket size so that Ipopt sees numbers near 1.
A solver that does not converge raises SolveFailed with one line; never a traceback.

casadi (277 MB installed, Ipopt inside) is an optional extra, `webcrawler-search[plan]`: only
`plan-recrawl` and `index --plan auto` solve, and they call `require_solver` before their
work starts, so a missing extra costs one line, not a run. This module imports it only when
it solves, so SolveFailed and the model's callers never need it.
"""

from __future__ import annotations

import importlib.util
import logging
import time
from typing import Any

import numpy as np

from webcrawler.errors import WebcrawlerError, needs_extra
from webcrawler.recrawl.model import ModelData, Solution, balance, bucket_sizes, new_pages, simulate

log = logging.getLogger(__name__)


# MUMPS with the QAMD ordering factorises this KKT system faster than its automatic
# choice, and starting the interior point close to the bounds (most x_it end at 0 or at
# b_i,t-1) saves iterations (bench/recrawl_model.py; docs/measurements.md).
IPOPT_OPTIONS = {"ipopt.mumps_pivot_order": 6, "ipopt.bound_push": 1e-6, "ipopt.bound_frac": 1e-6}


class SolveFailed(WebcrawlerError, RuntimeError):
    """Ipopt stopped without an optimal point; the message is one line for the user."""


_EXTRA = ("plan", "the recrawl model (plan-recrawl, --plan auto)")  # what needs casadi


def require_solver() -> Any:
    """casadi, or ExtraMissing naming `webcrawler-search[plan]` (one line at the command line)."""
    try:
        import casadi
    except ImportError as error:
        raise needs_extra(*_EXTRA, error) from None
    return casadi


def check_solver() -> None:
    """ExtraMissing, as require_solver's, when casadi is not installed, without importing it:
    `index --plan auto` checks before its crawl, and under the freshness objective never solves
    with Ipopt, so importing casadi there was start-up CPU for nothing (docs/recrawl-model.md,
    "What a re-solve costs")."""
    if importlib.util.find_spec("casadi") is None:
        missing = ModuleNotFoundError("No module named 'casadi'", name="casadi")
        raise needs_extra(*_EXTRA, missing) from None


def uniform_start(data: ModelData) -> tuple[np.ndarray, np.ndarray]:
    """A feasible first guess: the bandwidth spread over old pages in proportion to size."""
    share = data.b0 / data.b0.sum()
    x = np.outer(share, data.capacity / (data.c * share[:, None]).sum(axis=0)) * 0.95
    return np.minimum(x, data.b0[:, None] * 0.95), np.zeros(data.periods)


def _nlp(data: ModelData, unit: float, full: bool) -> tuple[dict, list, list]:
    """The symbolic problem in units of `unit` pages: (nlp dict, lbg, ubg). With `full`, n_t
    and b_it are variables and (3), (4) equality constraints, as the paper writes them; else
    they are substituted by (3), (4) themselves (a presolve: x, z, y remain, and the
    constraints (1), (2), (5), (6)), fewer iterations but denser derivatives."""
    ca = require_solver()
    B, T = data.buckets, data.periods
    x, y, z = ca.SX.sym("x", B, T), ca.SX.sym("y", B, T), ca.SX.sym("z", T)
    n, b = (ca.SX.sym("n", T), ca.SX.sym("b", B, T)) if full else (ca.SX(T, 1), ca.SX(B, T))
    g, lbg, ubg = [], [], []

    def add(expr: Any, lo: float, hi: float) -> None:  # a casadi SX
        g.append(expr)
        lbg.extend([lo] * expr.numel())
        ubg.extend([hi] * expr.numel())

    # The state before period t: numbers (DM) at the start, expressions (SX) after.
    y_prev: Any = ca.DM(data.y0 / unit)
    b_prev: Any = ca.DM(data.b0 / unit)
    n_prev: Any = ca.SX(data.n0 / unit)
    for t in range(T):
        cost = ca.dot(ca.DM(data.c[:, t]), x[:, t]) + data.d[t] * z[t]
        add(cost * unit / data.capacity[t], -ca.inf, 1.0)  # (1)
        add(y[:, t] - balance(y_prev, b_prev, x[:, t], ca.DM(data.a[:, t])), 0.0, 0.0)  # (2)
        add(x[:, t] - b_prev, -ca.inf, 0.0)  # (5)
        add(z[t] - n_prev, -ca.inf, 0.0)  # (6)
        found = ca.dot(ca.DM(data.oldnwt[:, t]), x[:, t])
        n_t = new_pages(n_prev, found, z[t], data.newnwt[t], data.nconst / unit)  # (3)
        b_t = bucket_sizes(b_prev, ca.DM(data.p), z[t])  # (4)
        if full:
            add(n[t] - n_t, 0.0, 0.0)
            add(b[:, t] - b_t, 0.0, 0.0)
        else:
            n[t], b[:, t] = n_t, b_t
        y_prev, b_prev, n_prev = y[:, t], b[:, t], n[t]
    f = ca.sum1(ca.sum2(ca.DM(data.oldwt) * y)) + ca.dot(ca.DM(data.newwt), n)
    variables = [ca.vec(x), z, ca.vec(y)] + ([n, ca.vec(b)] if full else [])
    return {"x": ca.vertcat(*variables), "f": f, "g": ca.vertcat(*g)}, lbg, ubg


def solve(data: ModelData, max_iter: int = 3000, tol: float = 1e-7, full: bool = True) -> Solution:
    """The optimal plan for `data` (a local optimum: the problem is not convex); SolveFailed
    if Ipopt does not reach one. `full`: every variable of the paper kept (see _nlp)."""
    started = time.monotonic()
    unit = float(data.b0.mean()) or 1.0
    nlp, lbg, ubg = _nlp(data, unit, full)
    B, T = data.buckets, data.periods
    x0, z0 = uniform_start(data)
    guess = simulate(data, x0, z0)
    state = [guess.n[1:], guess.b[:, 1:].ravel("F")] if full else []
    start = np.concatenate([x0.ravel("F"), z0, guess.y[:, 1:].ravel("F"), *state]) / unit
    options: dict[str, Any] = {"print_time": False, "ipopt.print_level": 0, "ipopt.sb": "yes",
               "ipopt.max_iter": max_iter, "ipopt.tol": tol, **IPOPT_OPTIONS}
    ca = require_solver()
    solver = ca.nlpsol("recrawl", "ipopt", nlp, options)
    result = solver(x0=start, lbx=0.0, ubx=ca.inf, lbg=lbg, ubg=ubg)
    stats = solver.stats()
    if not stats["success"]:
        raise SolveFailed(f"Ipopt did not find an optimal plan: {stats['return_status']} after "
                          f"{stats['iter_count']} iterations (B={B}, T={T})")
    return _solution(data, np.asarray(result["x"]).ravel() * unit, stats, time.monotonic() - started)


def _solution(data: ModelData, v: np.ndarray, stats: dict, seconds: float) -> Solution:
    """Unpack the variable vector; the state is recomputed from the decisions with (2)-(4)."""
    B, T = data.buckets, data.periods
    x = np.clip(v[: B * T].reshape((B, T), order="F"), 0.0, None)
    z = np.clip(v[B * T: B * T + T], 0.0, None)
    sol = simulate(data, x, z)
    log.info("solved B=%d T=%d in %.2f s, %d iterations", B, T, seconds, stats["iter_count"])
    return Solution(x=sol.x, z=sol.z, y=sol.y, n=sol.n, b=sol.b, objective=sol.objective,
                    status=str(stats["return_status"]), seconds=seconds,
                    iterations=int(stats["iter_count"]))
