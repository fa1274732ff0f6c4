"""What the bot benchmarks share: the 95% Wilson score interval of a share of matches, a 95%
interval for a quantile of decision times, and a 95% bootstrap interval of a mean."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

Z95: Final = 1.96
CONFIDENCE: Final = 0.95


def wilson(share: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a share ``share`` of ``n`` trials ((0, 1) for none)."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
    half = Z95 * math.sqrt(share * (1 - share) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def quantile_interval(values: Sequence[float], q: float) -> tuple[float, float, float]:
    """The ``q`` quantile of ``values`` (nearest rank) and its 95% distribution-free interval.

    The interval is between two order statistics X(j) <= X(k) chosen so that the number of values
    below the true quantile, Binomial(n, q), falls in [j, k) with probability at least 95%: no
    assumption about the times' distribution, which has a long tail. When too few values lie above
    the quantile for that (fewer than about 3 / (1 - q)), the upper end is infinite.
    """
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("no values")
    estimate = ordered[max(math.ceil(q * n), 1) - 1]
    below = _binomial_cdf(n, q)  # below[i]: P(Binomial(n, q) <= i)
    tail = (1 - CONFIDENCE) / 2
    j = max((i for i in range(1, n + 1) if below[i - 1] <= tail), default=0)
    k = min((i for i in range(1, n + 1) if below[i - 1] >= 1 - tail), default=n + 1)
    low = ordered[j - 1] if j >= 1 else -math.inf
    high = ordered[k - 1] if k <= n else math.inf
    return estimate, low, high


def _binomial_cdf(n: int, p: float) -> list[float]:
    """P(Binomial(n, p) <= i) for i in 0..n (in logs, so a large n neither under- nor overflows)."""
    log_p, log_q = math.log(p), math.log1p(-p)
    out, total = [], 0.0
    for i in range(n + 1):
        log_pmf = (
            math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q
        )
        total += math.exp(log_pmf)
        out.append(min(total, 1.0))
    return out


def bootstrap_mean(values: list[float], rounds: int = 4000, seed: int = 0) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean of ``values`` (resampled ``rounds``
    times with a generator of its own, so the same values give the same interval)."""
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(values, k=len(values))) / len(values) for _ in range(rounds))
    return means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]
