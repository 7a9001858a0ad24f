"""How often to revisit each change bucket, for the most fresh pages at a fixed bandwidth.

Cho and Garcia-Molina, "Synchronizing a database to improve freshness" (SIGMOD 2000)
and "Effective page refresh policies for Web crawlers" (TODS 2003), section 4: a page
whose real changes are a Poisson process of rate l, visited every 1/f seconds, is
fresh on average a fraction

    F(l, f) = (f / l) (1 - exp(-l / f))

of the time. With n_b pages of rate l_b in bucket b and a recrawl bandwidth B
(fetches per second), the best frequencies maximise sum n_b F(l_b, f_b) subject to
sum n_b f_b = B. Lagrange: dF/df = g(r) / l = mu with r = l / f and
g(r) = 1 - exp(-r) (1 + r), which rises from 0 to 1, so

    f_b = l_b / g^-1(mu l_b)  when mu l_b < 1,   f_b = 0 otherwise:

the paper's surprising shape - the frequency rises with the change rate, then falls,
and pages that change too fast for the bandwidth are not revisited at all (every
visit to them buys less freshness than the same visit to a slower page). mu is
found by bisection so that the bandwidth is spent exactly.

Pure functions over numpy arrays; `webcrawler/recrawl/replan.py` feeds them the
crawl's live bucket counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# g on a log grid of r, for inverting it by interpolation (then polished by Newton steps)
_LOG_R = np.linspace(np.log(1e-8), np.log(60.0), 4001)
_R = np.exp(_LOG_R)
_G = -np.expm1(-_R) - _R * np.exp(-_R)
_LOG_G = np.log(np.maximum(_G, 1e-300))
_BISECTIONS = 200


def freshness(rate: np.ndarray | float, frequency: np.ndarray | float) -> np.ndarray:
    """F(l, f): expected fraction of time a page of change rate l visited f times a second
    is fresh (1 for a page that never changes; 0 for one never visited)."""
    rate, frequency = np.asarray(rate, dtype=float), np.asarray(frequency, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = rate / frequency
        fresh = -np.expm1(-r) / r
    fresh = np.where(frequency <= 0, 0.0, fresh)
    return np.where(rate <= 0, 1.0, fresh)


def g(r: np.ndarray) -> np.ndarray:
    """dF/df times l, as a function of r = l / f: 1 - exp(-r) (1 + r)."""
    r = np.asarray(r, dtype=float)
    return -np.expm1(-r) - r * np.exp(-r)


def g_inverse(y: np.ndarray) -> np.ndarray:
    """r with g(r) = y, for 0 < y < 1 (inf for y >= 1, 0 for y <= 0)."""
    y = np.asarray(y, dtype=float)
    inside = (y > 0) & (y < 1)
    safe = np.where(inside, y, 0.5)
    r = np.exp(np.interp(np.log(safe), _LOG_G, _LOG_R))
    for _ in range(3):  # Newton: g'(r) = r exp(-r)
        slope = r * np.exp(-r)
        r = np.where(slope > 1e-300, r - (g(r) - safe) / np.maximum(slope, 1e-300), r)
        r = np.maximum(r, 1e-12)
    return np.where(inside, r, np.where(y <= 0, 0.0, np.inf))


def frequencies(rates: np.ndarray, mu: float) -> np.ndarray:
    """The optimal visits per second of pages of each change rate, at multiplier `mu`.
    A rate of 0 (never changes) gets 0: it needs no visits to stay fresh."""
    rates = np.asarray(rates, dtype=float)
    r = g_inverse(mu * rates)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where((rates > 0) & np.isfinite(r) & (r > 0), rates / r, 0.0)
    return f


def _bracket(rates: np.ndarray, counts: np.ndarray, bandwidth: float) -> tuple[float, float]:
    """(mu_low, mu_high) around the multiplier: the low one spends more than `bandwidth`, the
    high one at most it (bisection in log mu, until the two are a float's width apart)."""
    low, high = np.log(1e-30 / rates.max()), np.log(1.0 / rates.min())  # spend: huge .. zero
    for _ in range(_BISECTIONS):
        mid = 0.5 * (low + high)
        if float(np.dot(counts, frequencies(rates, float(np.exp(mid))))) > bandwidth:
            low = mid
        else:
            high = mid
        if high - low < 1e-14:
            break
    return float(np.exp(low)), float(np.exp(high))


def _live(rates: Sequence[float] | np.ndarray, counts: Sequence[float] | np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rates, counts = np.asarray(rates, dtype=float), np.asarray(counts, dtype=float)
    return rates, counts, (counts > 0) & (rates > 0)


def multiplier(rates: Sequence[float] | np.ndarray, counts: Sequence[float] | np.ndarray,
               bandwidth: float) -> float:
    """mu such that sum counts * frequencies(rates, mu) = bandwidth; inf when there is no
    bandwidth or no page that changes."""
    rates, counts, live = _live(rates, counts)
    if bandwidth <= 0 or not live.any():
        return float("inf")
    low, high = _bracket(rates[live], counts[live], bandwidth)
    return float(np.sqrt(low * high))


def allocate(rates: Sequence[float] | np.ndarray, counts: Sequence[float] | np.ndarray,
             bandwidth: float) -> np.ndarray:
    """Visits per second for each bucket (rate l_b, n_b pages) that maximise the expected
    number of fresh pages with sum n_b f_b = bandwidth (Cho and Garcia-Molina 2003).

    As mu l -> 1, f = l / g^-1(mu l) falls to 0 only as 1 / log, in steps floats can
    resolve: near the threshold the spend jumps (by up to n_b l_b / 37 when a bucket drops to
    zero). There F(l, f) is linear in f (r > 30), so the optimum is the mix of the two
    allocations either side of mu that spends the bandwidth to the last bit."""
    rates, counts, live = _live(rates, counts)
    if bandwidth <= 0 or not live.any():
        return np.zeros_like(rates)
    low, high = _bracket(rates[live], counts[live], bandwidth)
    f, step = frequencies(rates, high), frequencies(rates, low) - frequencies(rates, high)
    step[~live] = 0.0
    left_over = bandwidth - float(np.dot(counts[live], f[live]))
    jump = float(np.dot(counts, step))
    if jump > 0 and left_over > 0:
        f += step * min(1.0, left_over / jump)
    return f
