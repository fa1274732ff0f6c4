"""What the bot benchmarks share: the 95% Wilson score interval of a share of matches."""

from __future__ import annotations

import math
from typing import Final

Z95: Final = 1.96


def wilson(share: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a share ``share`` of ``n`` trials ((0, 1) for none)."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
    half = Z95 * math.sqrt(share * (1 - share) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
    return max(0.0, centre - half), min(1.0, centre + half)
