"""A zero-inflated prior for the change rate: a share of a server's pages never change (issue 35).

A web holds pages that never change (the issue: "learnt as such within a few visits and cost
almost nothing"), and a single Gamma prior for a group's rates (buckets.Prior) has no room for
them: it shrinks a page seen unchanged towards its group's mean rate, and the page stays in a
bucket of tens of minutes for several recrawls. Here a group's rates are a mixture: a point
mass at 0 of share `static`, and Gamma(`shape`, `scale`) for the pages that change (density
proportional to l^(shape - 1) e^(-scale l), scale in seconds). A page seen unchanged for T
seconds then never changes with probability

    p = static / (static + (1 - static) (scale / (scale + T)) ** shape)

(the second term is the chance a changing page of the group shows no change in T, the Gamma's
Laplace transform), and its rate is the posterior mean, (1 - p) times the changing part's
posterior mean shape / (scale + T). A page seen to change has p = 0 and keeps the estimator's
own rate (buckets.change_rate): the mixture touches only the pages never seen to change.

The mixture is fitted empirical-Bayes from the crawl itself (`fit`): each page's changes seen
X and observed span T, the marginal likelihood static [X = 0] + (1 - static) NB(X; shape, scale,
T) maximised over a grid of shapes, the scale by golden section on its log and the static share
by EM. A server's pages give the shape and scale; a (server, changefreq) group its own static
share, leaning on its server's with `GROUP_PAGES` pseudo-pages (priors.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

SHAPES = (0.25, 0.5, 1.0, 2.0, 4.0)  # the changing part's Gamma shapes tried
GROUP_PAGES = 5.0  # the server's share's worth in a group's, in pages
MIN_PAGES = 20  # a server's recrawled pages before its mixture is fitted
_EM_STEPS = 25
_GOLDEN_STEPS = 40


@dataclass(frozen=True, slots=True)
class Mixture:
    """A group's fitted belief: `static` share never changes, the rest Gamma(shape, scale)."""

    static: float
    shape: float
    scale: float  # seconds

    def unchanged(self, seconds: float) -> float:
        """The chance a changing page of the group shows no change in `seconds`."""
        return (self.scale / (self.scale + seconds)) ** self.shape

    def p_static(self, seconds: float) -> float:
        """The chance a page seen unchanged for `seconds` never changes."""
        changing = (1.0 - self.static) * self.unchanged(max(0.0, seconds))
        return self.static / (self.static + changing) if self.static > 0 else 0.0

    def rate(self, seconds: float) -> float:
        """The posterior mean rate of a page seen unchanged for `seconds`."""
        seconds = max(0.0, seconds)
        return (1.0 - self.p_static(seconds)) * self.shape / (self.scale + seconds)

    def with_static(self, static: float) -> Mixture:
        return Mixture(static, self.shape, self.scale)


def _log_nb(x: np.ndarray, t: np.ndarray, shape: float, scale: float) -> np.ndarray:
    """log P(X = x changes in t seconds) for a Poisson rate drawn from Gamma(shape, scale)."""
    lg = np.vectorize(math.lgamma, otypes=[float])
    return (lg(shape + x) - math.lgamma(shape) - lg(x + 1.0)
            + shape * np.log(scale / (scale + t)) + x * np.log(t / (scale + t)))


def _static_share(zero: np.ndarray, nb: np.ndarray, start: float = 0.5,
                  pseudo: float = 0.0, toward: float = 0.0) -> float:
    """EM for the point mass's share given each page's changing-part likelihood `nb`
    (`pseudo` pages of share `toward` added, a Beta prior's pull)."""
    share = start
    for _ in range(_EM_STEPS):
        mass = share * zero
        owned = mass / np.maximum(mass + (1.0 - share) * nb, 1e-300)
        share = (float(owned.sum()) + pseudo * toward) / (len(zero) + pseudo)
    return min(max(share, 0.0), 0.999)


def _profile(x: np.ndarray, t: np.ndarray, shape: float, log_scale: float) -> tuple[float, float]:
    """(log-likelihood, static share) at this shape and scale, the share by EM."""
    nb = np.exp(_log_nb(x, t, shape, math.exp(log_scale)))
    zero = (x == 0).astype(float)
    share = _static_share(zero, nb)
    return float(np.log(share * zero + (1.0 - share) * nb + 1e-300).sum()), share


def fit(changes: Sequence[float], spans: Sequence[float]) -> Mixture | None:
    """The maximum marginal likelihood mixture of pages that saw `changes` in `spans` seconds
    (pages with no span left out); None with fewer than MIN_PAGES pages."""
    x, t = np.asarray(changes, dtype=float), np.asarray(spans, dtype=float)
    keep = t > 0
    x, t = x[keep], t[keep]
    if len(x) < MIN_PAGES:
        return None
    best: tuple[float, Mixture] | None = None
    low, high = math.log(float(t.min())) - 8.0, math.log(float(t.max())) + 8.0
    for shape in SHAPES:
        def likelihood(log_scale: float, shape: float = shape) -> float:
            return _profile(x, t, shape, log_scale)[0]

        log_scale = _golden(likelihood, low, high)
        score, share = _profile(x, t, shape, log_scale)
        if best is None or score > best[0]:
            best = (score, Mixture(share, shape, math.exp(log_scale)))
    return best[1] if best is not None else None


def group_share(server: Mixture, changes: Sequence[float], spans: Sequence[float]) -> float:
    """A group's static share under its server's changing part, leaning on the server's share
    with GROUP_PAGES pseudo-pages."""
    x, t = np.asarray(changes, dtype=float), np.asarray(spans, dtype=float)
    keep = t > 0
    x, t = x[keep], t[keep]
    if len(x) == 0:
        return server.static
    nb = np.exp(_log_nb(x, t, server.shape, server.scale))
    return _static_share((x == 0).astype(float), nb, server.static, GROUP_PAGES, server.static)


def _golden(score: Callable[[float], float], low: float, high: float) -> float:
    """The maximiser of a unimodal `score` on [low, high] by golden-section search."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = low, high
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = score(c), score(d)
    for _ in range(_GOLDEN_STEPS):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = score(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = score(d)
    return 0.5 * (a + b)
